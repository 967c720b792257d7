"""Pagoda's offline Python API, shaped like vLLM's:

    from pagoda import LLM, SamplingParams
    outputs = LLM().generate(["Hello"], SamplingParams(max_tokens=8))
"""

from ._pagoda import (
    CompletionOutput,
    Logprob,
    RequestMetrics,
    RequestOutput,
    SamplingParams,
    StructuredOutputsParams,
    Tokenizer,
)
from .beam_search import BeamSearchOutput, BeamSearchParams, BeamSearchSequence
from .inputs import PromptType, TextPrompt, TokensPrompt
from .llm import LLM

# vLLM's older name for StructuredOutputsParams.
GuidedDecodingParams = StructuredOutputsParams

__all__ = [
    "LLM",
    "SamplingParams",
    "StructuredOutputsParams",
    "GuidedDecodingParams",
    "RequestOutput",
    "RequestMetrics",
    "CompletionOutput",
    "Logprob",
    "Tokenizer",
    "PromptType",
    "TextPrompt",
    "TokensPrompt",
    "BeamSearchParams",
    "BeamSearchOutput",
    "BeamSearchSequence",
]
