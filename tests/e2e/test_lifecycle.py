"""Start-up (503 until the model is loaded), API keys, and graceful shutdown."""

import signal
import threading
import time

import httpx
import openai
import pytest

from conftest import MODEL_NAME, ROOT, SERVER_ARGS, Server


def test_503_until_ready_then_200(tmp_path):
    # Quantizing the bf16 default model to FP8 at load takes over a second
    # (the KV cache no longer does): the server answers meanwhile.
    bf16 = ROOT / "models/SmolLM2-135M-Instruct-bf16"
    s = Server(tmp_path, str(bf16), "--quantization", "fp8", "--kv-cache-memory", "64MiB", "--max-model-len", "1024")
    try:
        seen = []
        deadline = time.time() + 120
        while time.time() < deadline and 200 not in seen:
            try:
                seen.append(httpx.get(s.url + "/health", timeout=5).status_code)
            except httpx.TransportError:
                pass
            time.sleep(0.01)
        assert seen[0] == 503 and seen[-1] == 200
        r = httpx.post(s.url + "/v1/completions", json={"prompt": "Hi", "max_tokens": 2})
        assert r.status_code == 200
    finally:
        assert s.stop() == 0


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("keyed"), *SERVER_ARGS, env={"PAGODA_API_KEY": "sesame"})
    s.wait_ready()
    yield s
    assert s.stop() == 0


def test_api_key_is_required_on_v1_only(keyed_server):
    good = openai.OpenAI(base_url=keyed_server.url + "/v1", api_key="sesame", max_retries=0)
    bad = openai.OpenAI(base_url=keyed_server.url + "/v1", api_key="wrong", max_retries=0)
    assert good.models.list().data[0].id == MODEL_NAME
    with pytest.raises(openai.AuthenticationError):
        bad.completions.create(model=MODEL_NAME, prompt="Hi", max_tokens=2)
    assert httpx.get(keyed_server.url + "/v1/models").status_code == 401
    assert httpx.get(keyed_server.url + "/health").status_code == 200
    assert httpx.get(keyed_server.url + "/metrics").status_code == 200


def test_sigterm_finishes_in_flight_requests_and_exits_0(tmp_path):
    # Room for the 200 tokens on a busy machine (test_shutdown.py covers the deadline).
    s = Server(tmp_path, *SERVER_ARGS, "--shutdown-timeout", "120")
    s.wait_ready()
    client = openai.OpenAI(base_url=s.url + "/v1", api_key="x", max_retries=0)
    result = {}

    def run():
        result["r"] = client.completions.create(model=MODEL_NAME, prompt="Tell me a story", max_tokens=200,
                                                temperature=0, extra_body={"ignore_eos": True})

    t = threading.Thread(target=run)
    t.start()
    time.sleep(0.5)
    s.proc.send_signal(signal.SIGTERM)
    t.join(timeout=60)
    assert s.stop() == 0
    assert result["r"].choices[0].finish_reason == "length"
    assert "shut down" in s.log()
    # One access-log line per request.
    assert s.log().count('"POST /v1/completions HTTP/1.1" 200') == 1
    with pytest.raises(httpx.TransportError):
        httpx.get(s.url + "/health", timeout=2)


def test_startup_log_describes_the_model(server):
    import re

    m = re.search(r"model: (.*?); (\S+) architecture, (\d+) weight bytes \((.*)\), (\d+) KV cache bytes per token",
                  server.log())
    assert m, server.log()
    source, arch, weight_bytes, mix, kv_per_token = m.group(1), m.group(2), int(m.group(3)), m.group(4), int(m.group(5))
    assert (source, arch) == ("GGUF file", "llama")
    # SmolLM2-135M's published config: 30 layers, 3 KV heads of 64 dimensions;
    # K and V, 2 bytes each in the default f16 cache.
    assert kv_per_token == 30 * 3 * 64 * 2 * 2
    # The mix names each type with its tensor count and bytes, which add up.
    shares = re.findall(r"(\w+) (\d+) tensors? (\d+) bytes", mix)
    assert {t for t, _, _ in shares} == {"Q4_1", "Q8_0", "F32"}, mix
    assert sum(int(b) for _, _, b in shares) == weight_bytes
    assert sum(int(n) for _, n, _ in shares) == 30 * 9 + 2  # 9 tensors a layer, the embeddings and the final norm
