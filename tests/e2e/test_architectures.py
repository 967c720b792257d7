"""Every architecture through `pagoda serve`, on the tiny random-weight models
of tests/fixtures/tiny_models (see the README there): greedy completions
from token-id prompts give llama.cpp's greedy tokens (compared as text, up to
the first near-tie), and with no chat template in the file a chat request
gets the 400 that names --chat-template."""

import json

import httpx
import pytest

from conftest import ROOT, Server

TINY = ROOT / "tests/fixtures/tiny_models"
MANIFEST = json.loads((TINY / "manifest.json").read_text())
# As tests/runner/tiny_models_test.cc: llama.cpp's choices after a step whose
# top-2 margin is below this may differ (Pagoda's F16 logits are within
# 0.0062 of llama.cpp's, so a margin above twice that cannot flip).
NEAR_TIE = 0.02
# mistral's file runs as a Llama without a window, as in llama.cpp; its
# windowed check is in tiny_models_test.cc.
ARCHS = sorted(name for name, arch in MANIFEST["archs"].items() if arch["committed"])


def agreed_steps(greedy: dict) -> int:
    """How many of llama.cpp's greedy tokens come before the first near-tie."""
    for i, margin in enumerate(greedy["margins"]):
        if margin < NEAR_TIE:
            return i
    return len(greedy["margins"])


@pytest.mark.parametrize("arch", ARCHS)
def test_greedy_completion_and_chat_without_a_template(tmp_path, arch):
    entry = MANIFEST["archs"][arch]
    prompt = entry["sequences"][MANIFEST["constants"]["greedy_from_seq"]]
    greedy = entry["files"]["F16"]["greedy"]
    steps = agreed_steps(greedy)
    assert steps >= 1, "the fixture's first step is already a near-tie"
    s = Server(tmp_path, str(TINY / arch / "model-f16.gguf"), "--served-model-name", "m",
               "--kv-cache-memory", "16MiB", "--max-model-len", "256")
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", timeout=120,
                       json={"model": "m", "prompt": prompt, "max_tokens": steps, "temperature": 0,
                             "ignore_eos": True})
        assert r.status_code == 200, r.text
        usage = r.json()["usage"]
        assert (usage["prompt_tokens"], usage["completion_tokens"]) == (len(prompt), steps)
        want = httpx.post(s.url + "/detokenize", timeout=60,
                          json={"model": "m", "tokens": greedy["tokens"][:steps]}).json()["prompt"]
        assert r.json()["choices"][0]["text"] == want

        r = httpx.post(s.url + "/v1/chat/completions", timeout=60,
                       json={"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2})
        assert r.status_code == 400, r.text
        assert "--chat-template" in r.json()["error"]["message"]
    finally:
        assert s.stop() == 0, s.log()
