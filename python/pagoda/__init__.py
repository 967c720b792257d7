"""Pagoda's offline Python API, shaped like vLLM's:

    from pagoda import LLM, SamplingParams
    outputs = LLM().generate(["Hello"], SamplingParams(max_tokens=8))
"""

from ._pagoda import LLM, CompletionOutput, Logprob, RequestOutput, SamplingParams, StructuredOutputsParams
from .beam_search import BeamSearchOutput, BeamSearchParams, BeamSearchSequence, beam_search

# vLLM's older name for StructuredOutputsParams.
GuidedDecodingParams = StructuredOutputsParams

# vLLM's LLM.beam_search(prompts, BeamSearchParams(...)).
LLM.beam_search = beam_search

__all__ = [
    "LLM",
    "SamplingParams",
    "StructuredOutputsParams",
    "GuidedDecodingParams",
    "RequestOutput",
    "CompletionOutput",
    "Logprob",
    "BeamSearchParams",
    "BeamSearchOutput",
    "BeamSearchSequence",
]
