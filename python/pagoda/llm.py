"""pagoda.LLM: vLLM's offline API (vllm.LLM) over Pagoda's engine."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _pagoda
from . import chat_messages
from .beam_search import beam_search
from .inputs import parse_prompts
from .progress import progress_bar


def _params_per_prompt(sampling_params, count: int, defaults: _pagoda.SamplingParams) -> List[_pagoda.SamplingParams]:
    """vLLM's rule: None (the model's defaults), one SamplingParams for all, or one per prompt."""
    if sampling_params is None:
        return [defaults] * count
    if isinstance(sampling_params, _pagoda.SamplingParams):
        return [sampling_params] * count
    params = list(sampling_params)
    if len(params) != count:
        raise ValueError("the lengths of prompts and sampling_params must be the same")
    for p in params:
        if not isinstance(p, _pagoda.SamplingParams):
            raise TypeError(f"sampling_params must hold SamplingParams, got {type(p).__name__}")
    return params


def _check_only(name: str, value, allowed, why: str) -> None:
    if value != allowed:
        raise ValueError(f"{name}={value!r} is not supported: {why}")


class LLM(_pagoda.LLM):
    """An engine for offline batches, with vLLM's arguments:

        LLM(model=None, *, tokenizer=None, dtype="auto", quantization=None, revision=None, seed=None,
            max_model_len=None, gpu_memory_utilization=None, kv_cache_memory=None,
            tensor_parallel_size=1, pipeline_parallel_size=1, enforce_eager=False, trust_remote_code=False,
            enable_prefix_caching=True, max_num_seqs=256, max_num_batched_tokens=None, block_size=16,
            scheduling_policy="fcfs", threads=0, long_prefill_token_threshold=256,
            max_num_partial_prefills=4, max_long_partial_prefills=1, generation_config="auto",
            kv_cache_dtype="auto", load_format="auto")

    `model` is a GGUF file, a Hugging Face model directory, or a model id found
    in the Hugging Face cache (at `revision`); None: $PAGODA_MODEL, else the
    default model. `tokenizer` takes another directory or GGUF file's tokenizer
    and chat template. `dtype` is the weights' type for a Hugging Face
    checkpoint ("auto", "bfloat16", "float16"/"half", "float32"/"float").
    `load_format`: "auto", "safetensors", "gguf", or "dummy" (random weights
    of the shapes a Hugging Face directory's config.json gives, as vLLM's);
    vLLM's other formats are refused.

    Memory: `gpu_memory_utilization` is, on the CPU, the share of the available
    RAM for the weights plus the KV cache (as vLLM's CPU backend sizes it);
    `kv_cache_memory` instead gives the KV cache's size (bytes or "2GiB";
    default 4 GiB, vLLM's VLLM_CPU_KVCACHE_SPACE). Give one, not both.

    `max_num_batched_tokens` fixes every step's token budget, as in vLLM;
    None (the default) sizes each step's budget from measured step times
    so that a step takes about 200 ms, at most 2048 tokens.

    `kv_cache_dtype`: "auto" keeps the KV cache in bfloat16 where the AMX
    kernels attend on it straight from the cache, else float16; "bfloat16",
    "float16" or "float32" choose (fp8 types are refused).

    `generation_config`: "auto" takes the model's generation_config.json
    sampling values as the defaults (get_default_sampling_params()), "vllm"
    keeps vLLM's, or a directory names another generation_config.json.

    Pagoda runs in one process on the CPU: `tensor_parallel_size` and
    `pipeline_parallel_size` must be 1, and `enforce_eager` is accepted and
    changes nothing (the CPU always runs eagerly: there are no CUDA graphs).
    It runs no code from model repositories, so `trust_remote_code=True` is
    refused. Other keyword arguments raise TypeError.
    """

    def __init__(
        self,
        model: Optional[str] = None,
        *,
        tokenizer: Optional[str] = None,
        dtype: str = "auto",
        quantization: Optional[str] = None,
        revision: Optional[str] = None,
        seed: Optional[int] = None,
        max_model_len: Optional[int] = None,
        gpu_memory_utilization: Optional[float] = None,
        kv_cache_memory: Union[int, str, None] = None,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        enforce_eager: bool = False,
        trust_remote_code: bool = False,
        enable_prefix_caching: Optional[bool] = None,
        max_num_seqs: Optional[int] = None,
        max_num_batched_tokens: Optional[int] = None,
        block_size: Optional[int] = None,
        scheduling_policy: Optional[str] = None,
        threads: Optional[int] = None,
        long_prefill_token_threshold: Optional[int] = None,
        max_num_partial_prefills: Optional[int] = None,
        max_long_partial_prefills: Optional[int] = None,
        generation_config: str = "auto",
        kv_cache_dtype: str = "auto",
        load_format: str = "auto",
    ):
        _check_only("tensor_parallel_size", tensor_parallel_size, 1, "Pagoda runs in one process on the CPU")
        _check_only("pipeline_parallel_size", pipeline_parallel_size, 1, "Pagoda runs in one process on the CPU")
        _check_only("trust_remote_code", trust_remote_code, False,
                    "Pagoda runs no code from model repositories; its architectures are built in")
        if not isinstance(enforce_eager, bool):
            raise TypeError(f"enforce_eager must be a bool, got {type(enforce_eager).__name__}")
        # None: the engine's default (EngineConfig).
        tunables = dict(
            enable_prefix_caching=enable_prefix_caching, max_num_seqs=max_num_seqs,
            max_num_batched_tokens=max_num_batched_tokens, block_size=block_size,
            scheduling_policy=scheduling_policy, threads=threads,
            long_prefill_token_threshold=long_prefill_token_threshold,
            max_num_partial_prefills=max_num_partial_prefills, max_long_partial_prefills=max_long_partial_prefills,
        )
        super().__init__(
            model, tokenizer=tokenizer, dtype=dtype, quantization=quantization, revision=revision, seed=seed,
            max_model_len=max_model_len, gpu_memory_utilization=gpu_memory_utilization,
            kv_cache_memory=kv_cache_memory, generation_config=generation_config, kv_cache_dtype=kv_cache_dtype,
            load_format=load_format, **{k: v for k, v in tunables.items() if v is not None},
        )
        self._tokenizer_view = None

    def get_default_sampling_params(self) -> _pagoda.SamplingParams:
        """vLLM's: SamplingParams with the sampling values of the model's
        generation_config.json (under generation_config="auto"), which
        generate() and chat() use when given no SamplingParams."""
        return self._default_sampling_params()

    def get_tokenizer(self) -> _pagoda.Tokenizer:
        """The model's tokenizer, with Hugging Face's encode, decode,
        apply_chat_template, vocab_size/len(), bos_token_id and eos_token_id."""
        if self._tokenizer_view is None:
            self._tokenizer_view = self._tokenizer()
        return self._tokenizer_view

    def generate(
        self,
        prompts,
        sampling_params=None,
        *,
        use_tqdm: Union[bool, Callable] = True,
        lora_request=None,
        priority: Optional[List[int]] = None,
    ) -> List[_pagoda.RequestOutput]:
        """Runs the prompts to completion; one RequestOutput per prompt, in order.

        `prompts`: a str, a TextPrompt ({"prompt": str}), a TokensPrompt
        ({"prompt_token_ids": [...]}, which bypasses the tokenizer), or a list
        of them, mixed. `sampling_params`: None, one SamplingParams, or one per
        prompt. `use_tqdm` shows a progress bar on stderr (or is a tqdm-like
        callable). `priority`: one int per prompt, for scheduling_policy
        "priority" (lower runs first)."""
        if lora_request is not None:
            raise ValueError("lora_request is not supported: Pagoda has no LoRA adapters")
        parsed = parse_prompts(prompts)
        return self._run([(text, ids) for text, ids in parsed], sampling_params, use_tqdm, priority)

    def chat(
        self,
        messages,
        sampling_params=None,
        use_tqdm: Union[bool, Callable] = True,
        lora_request=None,
        chat_template: Optional[str] = None,
        chat_template_content_format: str = "auto",
        add_generation_prompt: bool = True,
        continue_final_message: bool = False,
        tools: Optional[List[Dict[str, Any]]] = None,
        chat_template_kwargs: Optional[Dict[str, Any]] = None,
        mm_processor_kwargs: Optional[Dict[str, Any]] = None,
    ) -> List[_pagoda.RequestOutput]:
        """Generates replies to one conversation (a list of {"role", "content"}
        messages) or a list of conversations, as vLLM's LLM.chat: each is
        rendered with the model's chat template (or `chat_template`, the
        template's text) by Pagoda's Jinja engine, tokenized without adding
        special tokens, and generated from. Content is text, or a list of text
        parts joined by newlines ("string" content format) or given to the
        template as the list ("openai"); "auto" picks "openai" when the
        template loops over a message's content, as vLLM does."""
        if lora_request is not None:
            raise ValueError("lora_request is not supported: Pagoda has no LoRA adapters")
        if mm_processor_kwargs is not None:
            raise ValueError("mm_processor_kwargs is not supported: Pagoda has no multimodal models")
        if chat_template_kwargs is not None and not isinstance(chat_template_kwargs, dict):
            raise TypeError("chat_template_kwargs must be a dict")
        tokenizer = self.get_tokenizer()
        prompts = []
        for conversation in chat_messages.conversations(messages):
            text = tokenizer.apply_chat_template(
                chat_messages.prepare(conversation, chat_template_content_format,
                                      chat_template if chat_template is not None else tokenizer.chat_template),
                tools=tools,
                chat_template=chat_template,
                add_generation_prompt=add_generation_prompt,
                continue_final_message=continue_final_message,
                tokenize=False,
                **(chat_template_kwargs or {}),
            )
            # The template wrote the special tokens already (vLLM: add_special_tokens=False).
            prompts.append((text, tokenizer.encode(text, add_special_tokens=False)))
        return self._run(prompts, sampling_params, use_tqdm, None)

    def _run(self, prompts, sampling_params, use_tqdm, priority) -> List[_pagoda.RequestOutput]:
        params = _params_per_prompt(sampling_params, len(prompts), self.get_default_sampling_params())
        if priority is None:
            priority = [0] * len(prompts)
        elif len(priority) != len(prompts):
            raise ValueError("the lengths of prompts and priority must be the same")
        elif any(p != 0 for p in priority) and self._scheduling_policy != "priority":
            raise ValueError("priority was given but the scheduling policy is not 'priority'")
        bar = progress_bar(use_tqdm, len(prompts))
        try:
            return self._generate([(t, ids, p) for (t, ids), p in zip(prompts, priority)], params, bar)
        finally:
            if bar is not None:
                bar.close()

    beam_search = beam_search
