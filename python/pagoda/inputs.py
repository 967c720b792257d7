"""Prompt shapes of vLLM's `vllm.inputs`: a prompt is a string, a TextPrompt
({"prompt": str}) or a TokensPrompt ({"prompt_token_ids": [int, ...]}), whose
ids go to the engine as given, without the tokenizer.

    from pagoda.inputs import TokensPrompt
    llm.generate(TokensPrompt(prompt_token_ids=[1, 2, 3]))
"""

from typing import List, Optional, Sequence, Tuple, TypedDict, Union


class TextPrompt(TypedDict):
    """Text, tokenized with the model's special tokens (as a plain string is)."""

    prompt: str


class TokensPrompt(TypedDict):
    """Token ids, used as given: no BOS is added."""

    prompt_token_ids: List[int]


PromptType = Union[str, TextPrompt, TokensPrompt]

# vLLM's prompt fields that Pagoda has nothing for (multimodal input, the
# prefix cache's salt, pooling models' type ids): refused by name.
_UNSUPPORTED_FIELDS = ("multi_modal_data", "mm_processor_kwargs", "cache_salt", "token_type_ids")


def _token_ids(value, where: str) -> List[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{where}['prompt_token_ids'] must be a list of ints, got {type(value).__name__}")
    ids = list(value)
    for i in ids:
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError(f"{where}['prompt_token_ids'] must hold ints, got {type(i).__name__}")
    return ids


def parse_prompt(prompt, where: str = "prompt") -> Tuple[Optional[str], Optional[List[int]]]:
    """(text, None) or (None, token ids) for one prompt, as vLLM parses it."""
    if isinstance(prompt, str):
        return prompt, None
    if not isinstance(prompt, dict):
        raise TypeError(
            f"{where} must be a str, a TextPrompt ({{'prompt': str}}) or a TokensPrompt "
            f"({{'prompt_token_ids': [int, ...]}}), got {type(prompt).__name__}"
        )
    for key in prompt:
        if key in _UNSUPPORTED_FIELDS:
            raise ValueError(f"{where}: '{key}' is not supported by Pagoda")
        if key not in ("prompt", "prompt_token_ids"):
            raise ValueError(f"{where}: unknown prompt field '{key}' (expected 'prompt' or 'prompt_token_ids')")
    if "prompt_token_ids" in prompt:
        if "prompt" in prompt:
            raise ValueError(f"{where}: give 'prompt' or 'prompt_token_ids', not both")
        return None, _token_ids(prompt["prompt_token_ids"], where)
    if "prompt" in prompt:
        if not isinstance(prompt["prompt"], str):
            raise TypeError(f"{where}['prompt'] must be a str, got {type(prompt['prompt']).__name__}")
        return prompt["prompt"], None
    raise ValueError(f"{where} needs 'prompt' or 'prompt_token_ids'")


def parse_prompts(prompts) -> List[Tuple[Optional[str], Optional[List[int]]]]:
    """One prompt or a list of them (of any of the shapes, mixed)."""
    if isinstance(prompts, (str, dict)):
        return [parse_prompt(prompts)]
    if not isinstance(prompts, Sequence):
        raise TypeError(f"prompts must be a prompt or a list of prompts, got {type(prompts).__name__}")
    return [parse_prompt(p, f"prompts[{i}]") for i, p in enumerate(prompts)]
