"""Hugging Face model directories through `pagoda serve`, on the tiny
checkpoints of tests/fixtures/hf_models (see the README there): greedy
completions give transformers' greedy tokens up to the first near-tie, chat
prompts render and tokenize as transformers' apply_chat_template and HF
tokenizers do, --dtype converts, and what cannot be loaded is refused by name."""

import json
import shutil
import subprocess

import httpx
import pytest

from conftest import PAGODA_BIN, ROOT, Server

HF = ROOT / "tests/fixtures/hf_models"
CASES = json.loads((HF / "tokenizer_cases.json").read_text())
# As tests/runner/hf_checkpoints_test.cc: Pagoda's logits are within 1e-3 of
# transformers', so a top-2 margin above 2e-3 cannot flip.
NEAR_TIE = 2e-3


def reference(checkpoint: str) -> dict:
    return json.loads((HF / "references" / checkpoint / "reference.json").read_text())


def agreed_steps(greedy: dict) -> int:
    for i, margin in enumerate(greedy["margins"]):
        if margin < NEAR_TIE:
            return i
    return len(greedy["margins"])


def serve(tmp_path, model: str, *flags: str) -> Server:
    return Server(tmp_path, model, "--served-model-name", "m", "--kv-cache-memory", "16MiB",
                  "--max-model-len", "256", *flags)


@pytest.mark.parametrize("checkpoint,flags", [("qwen2-bf16", ()), ("llama-bf16", ()), ("gemma2-bf16", ()),
                                              ("qwen2moe-bf16", ()), ("llama-f32", ("--dtype", "float32"))])
def test_greedy_completion_and_chat_prompt(tmp_path, checkpoint, flags):
    ref = reference(checkpoint)
    prompt = ref["sequences"][ref["greedy"]["from_seq"]]
    steps = agreed_steps(ref["greedy"])
    assert steps >= 1, "the fixture's first step is already a near-tie"
    s = serve(tmp_path, str(HF / checkpoint), *flags)
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", timeout=120,
                       json={"model": "m", "prompt": prompt, "max_tokens": steps, "temperature": 0,
                             "ignore_eos": True})
        assert r.status_code == 200, r.text
        want = httpx.post(s.url + "/detokenize", timeout=60,
                          json={"model": "m", "tokens": ref["greedy"]["tokens"][:steps]}).json()["prompt"]
        assert r.json()["choices"][0]["text"] == want

        chat = CASES["chat_templates"].get(checkpoint)
        if chat is not None:
            for conversation in chat["conversations"]:
                r = httpx.post(s.url + "/tokenize", timeout=60,
                               json={"model": "m", "messages": conversation["messages"],
                                     "add_generation_prompt": True, "add_special_tokens": False})
                assert r.status_code == 200, r.text
                assert r.json()["tokens"] == conversation["ids"]
        assert ("F32 matrices (as stored)" if flags else "BF16 matrices (as stored)") in s.log()
    finally:
        assert s.stop() == 0, s.log()


def refusal(*args: str) -> str:
    """What `pagoda serve` says when it exits at start-up (it must exit non-zero)."""
    r = subprocess.run([str(PAGODA_BIN), "serve", "--port", "0", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0, r.stderr
    return r.stderr + r.stdout


def test_dtype_on_a_gguf_file_and_unknown_dtypes_are_refused_by_name():
    gguf = ROOT / "tests/fixtures/tiny_models/qwen2/model-f16.gguf"
    assert "--dtype bfloat16" in refusal(str(gguf), "--dtype", "bfloat16")
    assert "--dtype 'fp4'" in refusal(str(HF / "qwen2-bf16"), "--dtype", "fp4")


def test_an_unsupported_architecture_is_refused_by_name(tmp_path):
    model = tmp_path / "model"
    shutil.copytree(HF / "qwen2-bf16", model)
    config = json.loads((model / "config.json").read_text())
    config["architectures"] = ["MambaForCausalLM"]
    (model / "config.json").write_text(json.dumps(config))
    assert "'MambaForCausalLM' is not supported" in refusal(str(model))


def test_generation_config_defaults_and_eos_ids(tmp_path):
    """--generation-config auto logs the model's sampling values as vLLM
    does, vllm does not, and generation_config.json's extra eos_token_id ends
    a greedy completion at that token unless it ignores EOS."""
    ref = reference("qwen2-bf16")
    prompt = ref["sequences"][ref["greedy"]["from_seq"]]
    steps = agreed_steps(ref["greedy"])
    tokens = ref["greedy"]["tokens"][:steps]
    stop_at = next(i for i in range(1, steps) if tokens[i] not in tokens[:i])
    model = tmp_path / "model"
    shutil.copytree(HF / "qwen2-bf16", model)
    generation = json.loads((model / "generation_config.json").read_text())
    config_eos = json.loads((model / "config.json").read_text())["eos_token_id"]
    generation["eos_token_id"] = [config_eos, tokens[stop_at]]
    (model / "generation_config.json").write_text(json.dumps(generation))
    for mode in ("auto", "vllm"):
        s = serve(tmp_path, str(model), "--generation-config", mode)
        try:
            s.wait_ready()
            overridden = "Default sampling parameters have been overridden" in s.log()
            assert overridden == (mode == "auto"), s.log()
            if mode == "auto":
                assert "temperature=0.7, top_p=0.8, top_k=20, repetition_penalty=1.05" in s.log()
            for ignore_eos in (False, True):
                r = httpx.post(s.url + "/v1/completions", timeout=120,
                               json={"model": "m", "prompt": prompt, "max_tokens": steps, "temperature": 0,
                                     "top_k": -1, "top_p": 1, "repetition_penalty": 1, "ignore_eos": ignore_eos})
                assert r.status_code == 200, r.text
                choice, usage = r.json()["choices"][0], r.json()["usage"]
                if ignore_eos:
                    assert usage["completion_tokens"] == steps
                else:
                    assert (choice["finish_reason"], usage["completion_tokens"]) == ("stop", stop_at + 1)
        finally:
            assert s.stop() == 0, s.log()


@pytest.mark.parametrize("checkpoint,method", [("gptq-4bit-sym-g128", "gptq"), ("ct-w8a8-int8", "compressed-tensors"),
                                               ("awq-4bit-g128", "awq"), ("fp8-dynamic", "fp8"),
                                               ("gptq-4bit-asym-g64-actorder", "gptq"), ("fp8-static", "fp8"),
                                               ("fp8-block128", "fp8")])
def test_quantized_checkpoints_serve(tmp_path, checkpoint, method):
    """GPTQ and compressed-tensors checkpoints (tests/fixtures/hf_quantized)
    load repacked into GGML blocks, with --quantization naming their method
    or left out; another method is refused by name."""
    model = ROOT / "tests/fixtures/hf_quantized" / checkpoint
    s = serve(tmp_path, str(model), "--quantization", method)
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", timeout=120,
                       json={"model": "m", "prompt": [1, 2, 3], "max_tokens": 4, "temperature": 0})
        assert r.status_code == 200, r.text
        assert f"{method} " in s.log() and "repacked into" in s.log()
        if "actorder" in checkpoint:
            assert "in act-order: inputs gathered into group order" in s.log(), s.log()
        if "static" in checkpoint:
            assert "static input scales not applied" in s.log(), s.log()
        if "block" in checkpoint:
            assert "block-wise e4m3" in s.log(), s.log()
    finally:
        assert s.stop() == 0, s.log()
    other = "gptq" if method == "awq" else "awq"
    assert f"--quantization {other}" in refusal(str(model), "--quantization", other)


def test_quantization_fp8_quantizes_a_float_checkpoint_at_load(tmp_path):
    """`--quantization fp8` of a bf16 checkpoint serves it with its linear
    layers quantized to FP8 at load, as vLLM does; other methods cannot
    quantize at load and are refused by name."""
    s = serve(tmp_path, str(HF / "qwen2-bf16"), "--quantization", "fp8")
    try:
        s.wait_ready()
        r = httpx.post(s.url + "/v1/completions", timeout=120,
                       json={"model": "m", "prompt": [1, 2, 3], "max_tokens": 4, "temperature": 0})
        assert r.status_code == 200, r.text
        assert "layers quantized to FP8 at load (--quantization fp8)" in s.log(), s.log()
    finally:
        assert s.stop() == 0, s.log()
    assert "only fp8 quantizes a float checkpoint at load" in refusal(str(HF / "qwen2-bf16"), "--quantization", "gptq")
    # generate takes the flag too.
    r = subprocess.run([str(PAGODA_BIN), "generate", "--model", str(HF / "qwen2-bf16"), "-q", "fp8", "--prompt", "a",
                        "--max-tokens", "2", "--temperature", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "layers quantized to FP8 at load" in r.stderr
