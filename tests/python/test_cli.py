"""The `pagoda` command line against reference data from llama.cpp and
Hugging Face tokenizers (tests/fixtures)."""

import json
import re
import subprocess

import httpx
import numpy as np
import pytest

from conftest import serving

GPL3 = "/usr/share/common-licenses/GPL-3"


def run(pagoda_bin, *args, input=None, check=True):
    proc = subprocess.run(
        [str(pagoda_bin), *args], input=input, capture_output=True, timeout=600
    )
    if check:
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc


def test_tokenize_matches_hugging_face_and_detokenize_round_trips(pagoda_bin, fixtures):
    # split("\n"), not splitlines(): JSON strings may hold raw U+2028 and the like.
    corpus = (fixtures / "tokenizer/corpus.jsonl").read_text(encoding="utf-8").rstrip("\n").split("\n")
    expected = (fixtures / "tokenizer/expected_ids.jsonl").read_text().rstrip("\n").split("\n")
    assert len(corpus) == len(expected)
    # A spread of lines across the corpus's categories, through stdin.
    for i in range(0, len(corpus), len(corpus) // 25):
        text = json.loads(corpus[i])
        ids = json.loads(run(pagoda_bin, "tokenize", input=text.encode()).stdout)
        assert ids == json.loads(expected[i]), f"line {i}: {text!r}"
        back = run(pagoda_bin, "detokenize", "--ids", json.dumps(ids)).stdout.decode()
        assert back == text


def test_tokenize_text_flag_and_special_tokens(pagoda_bin):
    ids = json.loads(run(pagoda_bin, "tokenize", "--text", "<|im_start|>user").stdout)
    plain = json.loads(run(pagoda_bin, "tokenize", "--no-special", "--text", "<|im_start|>user").stdout)
    assert ids[0] == 1 and len(ids) == 2  # <|im_start|> is token 1 in SmolLM2
    assert 1 not in plain and len(plain) > 2


def test_inspect_shows_the_kv_cache_bytes_per_token(pagoda_bin):
    out = run(pagoda_bin, "inspect").stdout.decode()
    meta = {k: int(v) for k, v in re.findall(r"(llama\.[a-z_.]+): u?int\d+ = (\d+)", out)}
    head_dim = meta["llama.embedding_length"] // meta["llama.attention.head_count"]
    # K and V for every layer and KV head, 2 bytes per f16 element (4 per f32).
    per_element = 2 * meta["llama.block_count"] * meta["llama.attention.head_count_kv"] * head_dim
    assert f"KV cache bytes per token: {2 * per_element} (f16), {4 * per_element} (f32)" in out


# Every KV cache type: float32 (the command's default, llama.cpp's
# reference context), auto (what the engine picks: bfloat16 where the AMX
# kernels attend on it) and bfloat16 and float16 named.
@pytest.mark.parametrize("kv_cache_dtype", ["float32", "auto", "bfloat16", "float16"])
def test_perplexity_within_one_percent_of_llama_cpp(pagoda_bin, fixtures, kv_cache_dtype):
    ref = json.loads((fixtures / "llama_cpp/perplexity.json").read_text())
    out = run(pagoda_bin, "perplexity", "--file", GPL3, "--ctx", "512", "--max-tokens", "4096",
              "--kv-cache-dtype", kv_cache_dtype)
    ppl = float(re.search(r"perplexity: ([0-9.]+)", out.stdout.decode()).group(1))
    assert ppl == pytest.approx(ref["ppl"], rel=0.01)


# The parity rule of tests/runner/llama_cpp_parity_test.cc: greedy text must
# match llama.cpp's up to the first step whose top-2 margin is below this
# (twice the mean logit deviation of a kernel set with its own summation order).
NEAR_TIE = 0.3


# float32 is llama.cpp's reference context; auto is the engine's default
# (bfloat16 where the AMX kernels attend on it, else float16).
@pytest.mark.parametrize("kv_cache_dtype", ["f32", "auto"])
def test_greedy_generate_matches_llama_cpp_until_a_near_tie(pagoda_bin, fixtures, kv_cache_dtype):
    ref = json.loads((fixtures / "llama_cpp/greedy.json").read_text())
    checked = 0
    for p in ref["prompts"]:
        steps = p["steps"]
        firm = next((k for k, s in enumerate(steps) if s["margin"] < NEAR_TIE), len(steps))
        if firm < 4:
            continue
        want = run(pagoda_bin, "detokenize", "--skip-special-tokens",
                   "--ids", json.dumps(p["generated_token_ids"][:firm])).stdout.decode()
        out = run(pagoda_bin, "generate", "--prompt", p["prompt"], "--max-tokens", str(len(steps)),
                  "--temperature", "0", "--ignore-eos", "--kv-cache-dtype", kv_cache_dtype)
        assert out.stdout.decode().startswith(want), (p["prompt"], want)
        assert re.search(r"prompt: \d+ tokens .* generation: 64 tokens", out.stderr.decode())
        checked += 1
    # The fixture's margins alone decide this: 4 of its 8 prompts have 4+
    # steps before the first near-tie.
    assert checked >= 4


def test_seeded_sampling_is_reproducible(pagoda_bin):
    args = ["generate", "--prompt", "Once upon a time", "--max-tokens", "16",
            "--temperature", "0.8", "--seed", "7"]
    assert run(pagoda_bin, *args).stdout == run(pagoda_bin, *args).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["generate", "--model", "/nonexistent.gguf", "--prompt", "x"], "nonexistent.gguf"),
        (["generate", "--prompt", "x", "--bogus-flag"], "bogus-flag"),
        (["generate"], "prompt"),
        (["generate", "--prompt", "x", "--temperature", "-1"], "temperature"),
        (["detokenize", "--ids", "[1, 99999999]"], "99999999"),
        (["detokenize", "--ids", "not json"], "JSON"),
        (["perplexity", "--file", "/nonexistent.txt"], "nonexistent.txt"),
        (["bench", "throughput", "--max-long-partial-prefills", "5"], "--max-long-partial-prefills"),
        (["serve", "--long-prefill-token-threshold", "-1"], "--long-prefill-token-threshold"),
        (["serve", "--max-num-waiting-requests", "-1"], "--max-num-waiting-requests"),
        (["bench", "throughput", "--kv-cache-memory", "64MiB"], "--kv-cache-memory"),
        (["bench", "latency", "--output-len", "1"], "--output-len"),
        (["bench", "latency", "--kv-cache-dtype", "fp8_e4m3"], "--kv-cache-dtype fp8_e4m3"),
        (["serve", "--kv-cache-dtype", "int4"], "--kv-cache-dtype 'int4'"),
        (["bench", "latency", "--kv-cache-dtype", "bfloat16", "--block-size", "8"], "kv_cache_dtype bfloat16"),
        (["bench", "serve", "--goodput", "ttft:100", "tpot:50"], "--goodput"),
        (["bench", "serve", "--use-beam-search"], "--use-beam-search"),
        (["bench", "serve", "--backend", "tgi"], "--backend tgi"),
        (["bench", "serve", "--dataset-name", "sharegpt"], "sharegpt"),
        (["bench", "serve", "--request-rate", "0"], "--request-rate"),
    ],
)
def test_errors_are_one_clear_line(pagoda_bin, args, message):
    proc = run(pagoda_bin, *args, check=False)
    assert proc.returncode != 0
    err = proc.stderr.decode().strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_corrupt_model_file_is_a_clear_error(pagoda_bin, tmp_path, default_model):
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(default_model.read_bytes()[: 5_000_000])
    proc = run(pagoda_bin, "generate", "--model", str(truncated), "--prompt", "x", check=False)
    assert proc.returncode != 0
    err = proc.stderr.decode().strip()
    assert len(err.splitlines()) == 1 and "end of file" in err, err



def test_bench_throughput_counts_and_json(pagoda_bin, tmp_path):
    result = tmp_path / "result.json"
    out = run(
        pagoda_bin, "bench", "throughput", "--num-prompts", "4", "--input-len", "32", "--output-len", "4",
        "--shared-prefix-len", "16", "--kv-cache-memory", "64MiB", "--max-model-len", "1024",
        "--output-json", str(result),
    ).stdout.decode()
    assert re.search(r"Throughput: [0-9.]+ requests/s, [0-9.]+ total tokens/s, [0-9.]+ output tokens/s", out)
    r = json.loads(result.read_text())
    assert (r["num_requests"], r["total_input_tokens"], r["total_output_tokens"]) == (4, 4 * 32, 4 * 4)
    assert r["total_num_tokens"] == 4 * 36
    assert r["requests_per_second"] == pytest.approx(4 / r["elapsed_time"])
    assert r["output_tokens_per_second"] == pytest.approx(16 / r["elapsed_time"])
    # Requests after the first find the shared 16-token block in the prefix cache.
    assert r["num_cached_tokens"] == 3 * 16
    assert r["prefix_cache_hit_rate"] == pytest.approx(3 * 16 / (4 * 32))
    assert r["config"]["ignore_eos"] and r["config"]["shared_prefix_len"] == 16

    # Without prefix caching nothing is shared; a random length range stays within its bounds.
    run(
        pagoda_bin, "bench", "throughput", "--num-prompts", "4", "--random-input-len-range", "8", "12",
        "--output-len", "2", "--no-enable-prefix-caching", "--kv-cache-memory", "64MiB", "--max-model-len", "1024",
        "--output-json", str(result),
    )
    r = json.loads(result.read_text())
    assert r["num_cached_tokens"] == 0 and r["prefix_cache_hit_rate"] == 0
    assert 4 * 8 <= r["total_input_tokens"] <= 4 * 12 and r["total_output_tokens"] == 8


def test_bench_latency_json(pagoda_bin, tmp_path):
    result = tmp_path / "latency.json"
    out = run(
        pagoda_bin, "bench", "latency", "--batch-size", "2", "--input-len", "16", "--output-len", "4",
        "--num-iters-warmup", "0", "--num-iters", "3", "--kv-cache-memory", "64MiB", "--max-model-len", "1024",
        "--output-json", str(result),
    ).stdout.decode()
    assert re.search(r"Avg latency: [0-9.]+ seconds", out) and "99% percentile latency" in out
    r = json.loads(result.read_text())
    assert len(r["latencies"]) == 3 and r["avg_latency"] == pytest.approx(sum(r["latencies"]) / 3)
    p = r["percentiles"]
    assert min(r["latencies"]) <= p["10"] <= p["50"] <= p["99"] <= max(r["latencies"])
    assert p["50"] == pytest.approx(sorted(r["latencies"])[1])
    # Every iteration is a prompt phase then a decode phase, so each rate is
    # at least its tokens over the whole of the latencies.
    assert r["prompt_tokens_per_s"] >= 3 * 2 * 16 / sum(r["latencies"])
    assert r["decode_tokens_per_s"] >= 3 * 2 * 3 / sum(r["latencies"])
    assert (r["config"]["batch_size"], r["config"]["input_len"], r["config"]["output_len"]) == (2, 16, 4)


def test_bench_throughput_dataset(pagoda_bin, tmp_path):
    dataset = tmp_path / "prompts.jsonl"
    dataset.write_text('{"prompt": "Hello"}\n{"prompt": "The capital of France is"}\n')
    result = tmp_path / "result.json"
    run(pagoda_bin, "bench", "throughput", "--dataset", str(dataset), "--output-len", "3",
        "--kv-cache-memory", "64MiB", "--max-model-len", "1024", "--output-json", str(result))
    r = json.loads(result.read_text())
    assert r["num_requests"] == 2 and r["config"]["dataset"] == str(dataset)
    assert r["config"]["ignore_eos"] is False and 2 <= r["total_output_tokens"] <= 6
    bad = run(pagoda_bin, "bench", "throughput", "--dataset", str(tmp_path / "missing.jsonl"), check=False)
    assert bad.returncode == 1


@pytest.fixture(scope="module")
def served(pagoda_bin, tmp_path_factory):
    """`pagoda serve` with the default model on a port it picks, for `bench serve`."""
    log_path = tmp_path_factory.mktemp("bench_serve") / "server.log"
    with serving(pagoda_bin, log_path, "--kv-cache-memory", "64MiB", "--max-model-len", "1024") as url:
        yield url


def test_bench_serve_metrics_match_its_own_detailed_arrays(pagoda_bin, served, tmp_path):
    result = tmp_path / "serve.json"
    out = run(
        pagoda_bin, "bench", "serve", "--base-url", served, "--num-prompts", "8", "--max-concurrency", "4",
        "--random-input-len", "32", "--random-output-len", "8", "--ignore-eos", "--output-json", str(result),
        "--save-detailed", "--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,99",
    ).stdout.decode()
    assert "============ Serving Benchmark Result ============" in out
    assert re.search(r"Successful requests: +8 ", out) and re.search(r"Total generated tokens: +64 ", out)
    assert "Prompt token ids drawn from [1000, 30000) (no --tokenizer given)" in out
    for name in ["TTFT", "TPOT", "ITL", "E2EL"]:
        assert f"Mean {name} (ms):" in out and f"P99 {name} (ms):" in out
    r = json.loads(result.read_text())
    assert (r["completed"], r["failed"], r["total_output_tokens"], r["total_input_tokens"]) == (8, 0, 64, 8 * 32)
    assert r["output_lens"] == [8] * 8 and r["input_lens"] == [32] * 8 and r["errors"] == [""] * 8
    assert r["max_concurrency"] == 4 and r["request_rate"] == "inf" and r["burstiness"] == 1.0
    assert r["request_throughput"] == pytest.approx(8 / r["duration"])
    assert r["total_token_throughput"] == pytest.approx((64 + 256) / r["duration"])
    # One streamed chunk per token: 7 gaps after the first token.
    assert [len(itl) for itl in r["itls"]] == [7] * 8

    ttfts, e2els = np.array(r["ttfts"]), np.array(r["e2els"])
    itls = np.concatenate([np.array(x) for x in r["itls"]])
    tpots = (e2els - ttfts) / (np.array(r["output_lens"]) - 1)
    for key, values in [("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)]:
        assert r[f"mean_{key}_ms"] == pytest.approx(np.mean(values) * 1000), key
        assert r[f"median_{key}_ms"] == pytest.approx(np.median(values) * 1000), key
        assert r[f"std_{key}_ms"] == pytest.approx(np.std(values) * 1000), key
        assert r[f"p99_{key}_ms"] == pytest.approx(np.percentile(values, 99) * 1000), key
        assert r[f"p50_{key}_ms"] == pytest.approx(np.percentile(values, 50) * 1000), key
    # E2EL ends at the last token, which is after the first and all the gaps.
    assert np.allclose(e2els, ttfts + np.array([sum(x) for x in r["itls"]]))


def prefix_cache_hits(url):
    text = httpx.get(url + "/metrics", timeout=10).text
    return sum(float(m.group(1)) for m in re.finditer(r"^vllm:prefix_cache_hits_total(?:{[^}]*})? (\S+)$", text, re.M))


def test_bench_serve_shared_prefix_hits_the_prefix_cache(pagoda_bin, served, default_model, tmp_path):
    before = prefix_cache_hits(served)
    out = run(
        pagoda_bin, "bench", "serve", "--base-url", served, "--dataset", "shared-prefix", "--prefix-len", "64",
        "--suffix-len", "8", "--num-prompts", "4", "--random-output-len", "2", "--tokenizer", str(default_model),
        "--save-result", "--result-dir", str(tmp_path), "--result-filename", "prefix.json",
    ).stdout.decode()
    assert re.search(r"Successful requests: +4 ", out) and "non-special tokens of" in out
    r = json.loads((tmp_path / "prefix.json").read_text())
    assert r["completed"] == 4 and r["total_input_tokens"] == 4 * 72 and r["tokenizer_id"] == str(default_model)
    # The initial test run caches the 64-token prefix; each of the 4 requests then finds it.
    assert prefix_cache_hits(served) - before >= 4 * 64


def test_bench_serve_file_dataset_and_a_failing_server(pagoda_bin, served, tmp_path):
    dataset = tmp_path / "prompts.jsonl"
    dataset.write_text('{"prompt": "The capital of France is", "output_len": 3}\n{"prompt": [1000, 1001], "output_len": 2}\n')
    result = tmp_path / "file.json"
    run(pagoda_bin, "bench", "serve", "--base-url", served, "--dataset", "file", "--dataset-path", str(dataset),
        "--num-prompts", "3", "--ignore-eos", "--output-json", str(result), "--save-detailed")
    r = json.loads(result.read_text())
    assert r["completed"] == 3 and r["output_lens"] == [3, 2, 3]
    # The text prompt's length comes from the server's usage chunk.
    assert r["input_lens"][1] == 2 and r["input_lens"][0] == r["input_lens"][2] > 2

    bad = run(pagoda_bin, "bench", "serve", "--base-url", served, "--model", "no-such-model", "--num-prompts", "2",
              check=False)
    err = bad.stderr.decode().strip()
    assert bad.returncode == 1 and "initial test run failed" in err and "no-such-model" in err, err
