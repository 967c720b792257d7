"""vLLM's `LLM.beam_search` API over Pagoda's in-engine beam search.

vLLM runs beam search in Python around its engine; Pagoda runs it inside the
engine (forking sequences on copy-on-write block tables), so this module only
translates the parameters and results into vLLM's shapes.
"""

from dataclasses import dataclass, field
from typing import List, Optional, Union

from ._pagoda import SamplingParams


@dataclass
class BeamSearchParams:
    beam_width: int
    max_tokens: int
    ignore_eos: bool = False
    temperature: float = 0.0
    length_penalty: float = 1.0
    include_stop_str_in_output: bool = False


@dataclass
class BeamSearchSequence:
    """One finished beam: `tokens` holds the prompt's ids then the beam's, and
    `text` the prompt followed by the generated text."""

    tokens: List[int]
    logprobs: list = field(default_factory=list)
    cum_logprob: float = 0.0
    text: Optional[str] = None
    finish_reason: Optional[str] = None
    stop_reason: Union[int, str, None] = None


@dataclass
class BeamSearchOutput:
    sequences: List[BeamSearchSequence]


def _prompt_text(prompt) -> str:
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, dict) and isinstance(prompt.get("prompt"), str):
        return prompt["prompt"]
    raise ValueError("beam_search prompts must be strings or {'prompt': str} dicts")


def beam_search(llm, prompts, params: BeamSearchParams) -> List[BeamSearchOutput]:
    """The `beam_width` best beams of each prompt, best first."""
    if params.temperature != 0.0:
        raise ValueError("Pagoda ranks beams by raw log probabilities: temperature must be 0")
    sampling = SamplingParams(
        n=params.beam_width,
        temperature=0.0,
        max_tokens=params.max_tokens,
        ignore_eos=params.ignore_eos,
        include_stop_str_in_output=params.include_stop_str_in_output,
        use_beam_search=True,
        beam_width=params.beam_width,
        length_penalty=params.length_penalty,
    )
    texts = [_prompt_text(p) for p in prompts]
    results = []
    for out in llm.generate(texts, sampling, use_tqdm=False):
        sequences = [
            BeamSearchSequence(
                tokens=list(out.prompt_token_ids) + list(c.token_ids),
                cum_logprob=c.cumulative_logprob,
                text=out.prompt + c.text,
                finish_reason=c.finish_reason,
                stop_reason=c.stop_reason,
            )
            for c in out.outputs
        ]
        results.append(BeamSearchOutput(sequences=sequences))
    return results
