"""The `pagoda` Python package (vLLM's offline API) on the default model."""

import os
import re
import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT

PROMPT = "The capital of France is"


@pytest.fixture(scope="module")
def pagoda(python_dir):
    import pagoda

    return pagoda


@pytest.fixture(scope="module")
def llm(pagoda):
    return pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024)


def greedy(pagoda, **kwargs):
    return pagoda.SamplingParams(temperature=0, **kwargs)


def test_readme_example_runs(python_dir):
    readme = (ROOT / "README.md").read_text()
    example = re.search(r"## Python\n.*?```python\n(.*?)```", readme, re.S).group(1)
    env = dict(os.environ, PYTHONPATH=str(python_dir))
    proc = subprocess.run([sys.executable, "-c", example], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stdout.splitlines() if l.startswith("'")]  # not the engine's log
    assert len(lines) == 4  # two prompts, n=2
    assert lines[0].startswith("'Hello, my name is' 0 ")
    assert lines[3].startswith(f"'{PROMPT}' 1 ")


def test_greedy_matches_the_cli(pagoda, llm, pagoda_bin):
    cli = subprocess.run(
        [str(pagoda_bin), "generate", "--temperature", "0", "--max-tokens", "32", "--prompt", PROMPT],
        capture_output=True, text=True, timeout=600, check=True,
    )
    [out] = llm.generate(PROMPT, greedy(pagoda, max_tokens=32))
    assert out.finished and out.prompt == PROMPT and out.prompt_token_ids
    completion = out.outputs[0]
    assert cli.stdout == completion.text + "\n"  # the CLI ends its stream with a newline
    assert completion.finish_reason in ("length", "stop")
    assert len(completion.token_ids) == 32 or completion.finish_reason == "stop"


def test_seeded_n2_is_reproducible(pagoda, llm):
    params = pagoda.SamplingParams(n=2, temperature=0.8, seed=1234, max_tokens=24)
    first = llm.generate(["Once upon a time", PROMPT], params)
    second = llm.generate(["Once upon a time", PROMPT], [params, params])
    for a, b in zip(first, second):
        assert [c.index for c in a.outputs] == [0, 1]
        assert [c.token_ids for c in a.outputs] == [c.token_ids for c in b.outputs]
        assert [c.text for c in a.outputs] == [c.text for c in b.outputs]
    # The two children draw from different streams.
    assert first[0].outputs[0].token_ids != first[0].outputs[1].token_ids


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"temperature": -1.0}, "temperature"),
        ({"top_p": 0.0}, "top_p"),
        ({"n": 0}, "n"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"presence_penalty": 3.0}, "presence_penalty"),
        ({"temperature": 0.0, "n": 2}, "n"),
    ],
)
def test_invalid_sampling_params_raise_value_error(pagoda, kwargs, field):
    with pytest.raises(ValueError, match=field):
        pagoda.SamplingParams(**kwargs)


def test_refused_requests_raise_value_error(pagoda, llm):
    with pytest.raises(ValueError):
        llm.generate(PROMPT, pagoda.SamplingParams(logit_bias={10**9: 1.0}))
    with pytest.raises(ValueError):
        llm.generate([PROMPT, PROMPT], [pagoda.SamplingParams()])
    with pytest.raises(ValueError, match="kv_cache_memory|size"):
        pagoda.LLM(kv_cache_memory="lots")


def test_kv_cache_dtype_is_vllms_argument(pagoda, pagoda_bin):
    # vLLM's fp8 types are refused by name; an unknown type too.
    with pytest.raises(ValueError, match="kv_cache_dtype fp8 is not supported"):
        pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024, kv_cache_dtype="fp8")
    with pytest.raises(ValueError, match="kv_cache_dtype 'int8'"):
        pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024, kv_cache_dtype="int8")
    # A type given is the type used: the same greedy text as the CLI's with it.
    cli = subprocess.run(
        [str(pagoda_bin), "generate", "--temperature", "0", "--max-tokens", "24", "--kv-cache-dtype", "float32",
         "--prompt", PROMPT],
        capture_output=True, text=True, timeout=600, check=True,
    )
    llm = pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024, kv_cache_dtype="float32")
    [out] = llm.generate(PROMPT, greedy(pagoda, max_tokens=24))
    assert cli.stdout == out.outputs[0].text + "\n"


def test_engine_limits_are_checked_at_construction(pagoda):
    with pytest.raises(RuntimeError, match="max_long_partial_prefills"):
        pagoda.LLM(kv_cache_memory="256MiB", max_model_len=1024, max_num_partial_prefills=2,
                   max_long_partial_prefills=3)
    # 64 MiB holds 2,912 tokens of KV cache, not one request of the model's 8,192.
    with pytest.raises(RuntimeError, match=r"max seq len \(8192\).*estimated maximum model length is 2912"):
        pagoda.LLM(kv_cache_memory="64MiB")


def test_defaults_are_vllms(pagoda):
    p = pagoda.SamplingParams()
    assert (p.n, p.best_of, p.temperature, p.top_p, p.top_k, p.min_p) == (1, None, 1.0, 1.0, 0, 0.0)
    assert (p.max_tokens, p.min_tokens, p.stop, p.stop_token_ids, p.ignore_eos) == (16, 0, [], [], False)
    assert p.logprobs is None and p.seed is None and p.skip_special_tokens
    assert "temperature=1.0" in repr(p)


def test_finish_reason_length_and_stop_strings(pagoda, llm):
    [full] = llm.generate(PROMPT, greedy(pagoda, max_tokens=16, ignore_eos=True))
    c = full.outputs[0]
    assert (c.finish_reason, c.stop_reason, len(c.token_ids)) == ("length", None, 16)

    # Stop at a word from the middle of the greedy text: same prefix, cut before it.
    word = c.text.split()[3]
    cut = c.text.index(word)
    [stopped] = llm.generate(PROMPT, greedy(pagoda, max_tokens=16, stop=word))
    s = stopped.outputs[0]
    assert (s.finish_reason, s.stop_reason, s.text) == ("stop", word, c.text[:cut])
    [kept] = llm.generate(PROMPT, greedy(pagoda, max_tokens=16, stop=[word], include_stop_str_in_output=True))
    assert kept.outputs[0].text.startswith(c.text[:cut] + word)

    # A stop token ends the output with it, and is the stop_reason.
    token = c.token_ids[2]
    [by_token] = llm.generate(PROMPT, greedy(pagoda, max_tokens=16, stop_token_ids=[token]))
    t = by_token.outputs[0]
    assert (t.finish_reason, t.stop_reason) == ("stop", token)
    assert t.token_ids == c.token_ids[: c.token_ids.index(token) + 1]


def test_logprobs_and_repr(pagoda, llm):
    [out] = llm.generate(PROMPT, greedy(pagoda, max_tokens=4, logprobs=2, prompt_logprobs=1))
    c = out.outputs[0]
    assert len(c.logprobs) == 4 and c.cumulative_logprob is not None
    for token, position in zip(c.token_ids, c.logprobs):
        assert next(iter(position)) == token and position[token].rank == 1  # greedy: the sampled one is top
    assert sum(p[t].logprob for t, p in zip(c.token_ids, c.logprobs)) == pytest.approx(c.cumulative_logprob, rel=1e-5)
    assert out.prompt_logprobs[0] is None and len(out.prompt_logprobs) == len(out.prompt_token_ids)
    assert repr(out).startswith("RequestOutput(request_id=") and "CompletionOutput(index=0" in repr(out)


def test_generate_releases_the_gil(pagoda, llm):
    # While another thread generates, this one keeps running: no long gap
    # between its loop iterations (holding the GIL would make one gap as long
    # as the whole generation).
    done = threading.Event()
    worker = threading.Thread(
        target=lambda: (llm.generate(PROMPT, greedy(pagoda, max_tokens=48, ignore_eos=True)), done.set())
    )
    start = last = time.monotonic()
    max_gap = 0.0
    worker.start()
    while not done.is_set():
        now = time.monotonic()
        max_gap, last = max(max_gap, now - last), now
    worker.join()
    elapsed = time.monotonic() - start
    assert max_gap < elapsed / 3, (max_gap, elapsed)


def test_beam_search_in_sampling_params_and_vllms_beam_search_api(pagoda, llm):
    params = pagoda.SamplingParams(
        use_beam_search=True, beam_width=3, n=2, temperature=0, max_tokens=8, ignore_eos=True
    )
    [out] = llm.generate(PROMPT, params)
    assert [c.index for c in out.outputs] == [0, 1]
    for c in out.outputs:
        assert len(c.token_ids) == 8 and c.finish_reason == "length"
    first, second = out.outputs
    assert first.cumulative_logprob >= second.cumulative_logprob
    # Greedy decoding is one path beam search weighs: the best beam is at
    # least as likely here (it is strictly better on this prompt).
    [greedy_out] = llm.generate(PROMPT, greedy(pagoda, max_tokens=8, ignore_eos=True, logprobs=0))
    assert first.cumulative_logprob >= greedy_out.outputs[0].cumulative_logprob

    [vllm_style] = llm.beam_search(
        [{"prompt": PROMPT}], pagoda.BeamSearchParams(beam_width=3, max_tokens=8, ignore_eos=True)
    )
    assert len(vllm_style.sequences) == 3
    best = vllm_style.sequences[0]
    assert best.tokens == out.prompt_token_ids + first.token_ids
    assert best.text == PROMPT + first.text
    assert best.cum_logprob == first.cumulative_logprob
    with pytest.raises(ValueError, match="stop strings"):
        pagoda.SamplingParams(use_beam_search=True, beam_width=2, temperature=0, stop=["."])
    with pytest.raises(ValueError, match="temperature"):
        llm.beam_search([PROMPT], pagoda.BeamSearchParams(beam_width=2, max_tokens=4, temperature=0.5))
