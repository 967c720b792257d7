"""vLLM's progress bar for LLM.generate and LLM.chat: one tqdm bar over the
batch, "Processed prompts", with the input and output token rates."""

from typing import Callable, Optional, Union


class ProgressBar:
    """Called with (prompt tokens, generated tokens) of each finished request."""

    def __init__(self, use_tqdm: Union[bool, Callable], total: int):
        if callable(use_tqdm):
            factory = use_tqdm  # vLLM also takes a tqdm-like factory
        else:
            from tqdm import tqdm as factory
        self._bar = factory(
            total=total,
            desc="Processed prompts",
            dynamic_ncols=True,
            postfix=f"est. speed input: {0:.2f} toks/s, output: {0:.2f} toks/s",
        )
        self._in_tokens = 0
        self._out_tokens = 0

    def __call__(self, prompt_tokens: int, output_tokens: int) -> None:
        self._in_tokens += prompt_tokens
        self._out_tokens += output_tokens
        elapsed = self._bar.format_dict["elapsed"] or 1e-9
        self._bar.postfix = (
            f"est. speed input: {self._in_tokens / elapsed:.2f} toks/s, "
            f"output: {self._out_tokens / elapsed:.2f} toks/s"
        )
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()


def progress_bar(use_tqdm, total: int) -> Optional[ProgressBar]:
    """A bar when use_tqdm is True (or a tqdm-like callable), else None."""
    if use_tqdm is False:
        return None
    if use_tqdm is not True and not callable(use_tqdm):
        raise TypeError(f"use_tqdm must be a bool or a tqdm-like callable, got {type(use_tqdm).__name__}")
    return ProgressBar(use_tqdm, total)
