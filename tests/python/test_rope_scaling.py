"""Llama 3.1's RoPE scaling (`rope_freqs.weight`) against llama.cpp: the
default model with frequency factors added (tests/fixtures/rope_freqs) must
score within 1% of llama-perplexity, and apart from the model without them
(the factors move its perplexity by about 5%)."""

import json
import subprocess
import sys

import pytest

from test_quantize import WINDOWS, perplexity, sha256


def test_rope_frequency_factors_match_llama_perplexity(pagoda_bin, default_model, fixtures, tmp_path):
    ref = json.loads((fixtures / "rope_freqs/reference.json").read_text())
    model = tmp_path / "rope_freqs.gguf"
    subprocess.run([sys.executable, str(fixtures / "rope_freqs/make_model.py"), str(default_model), str(model)],
                   check=True, capture_output=True)
    assert sha256(model) == ref["model_sha256"]
    got = perplexity(pagoda_bin, model)
    assert got == pytest.approx(ref["running_ppl"][WINDOWS - 1], rel=0.01)
    assert abs(got - perplexity(pagoda_bin, default_model)) / got > 0.03
