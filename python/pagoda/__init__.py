"""Pagoda's offline Python API, shaped like vLLM's:

    from pagoda import LLM, SamplingParams
    outputs = LLM().generate(["Hello"], SamplingParams(max_tokens=8))
"""

from ._pagoda import LLM, CompletionOutput, Logprob, RequestOutput, SamplingParams

__all__ = ["LLM", "SamplingParams", "RequestOutput", "CompletionOutput", "Logprob"]
