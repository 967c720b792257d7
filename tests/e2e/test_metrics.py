"""/metrics in Prometheus' text format under vLLM's names, parsed with
prometheus_client, moving as requests complete."""

import time

import httpx
from prometheus_client.parser import text_string_to_metric_families

from conftest import MODEL_NAME

GAUGES = ["vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
          "vllm:gpu_cache_usage_perc"]
COUNTERS = ["vllm:prefix_cache_queries", "vllm:prefix_cache_hits", "vllm:num_preemptions", "vllm:prompt_tokens",
            "vllm:generation_tokens", "vllm:request_success"]
HISTOGRAMS = ["vllm:time_to_first_token_seconds", "vllm:inter_token_latency_seconds",
              "vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
              "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds",
              "vllm:request_prompt_tokens", "vllm:request_generation_tokens", "vllm:iteration_tokens_total"]


def scrape(server):
    r = httpx.get(server.url + "/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {f.name: f for f in text_string_to_metric_families(r.text)}


def value(families, name, suffix="", **labels):
    total = 0.0
    for s in families[name].samples:
        if s.name == name + suffix and all(s.labels.get(k) == v for k, v in labels.items()):
            assert s.labels["model_name"] == MODEL_NAME
            total += s.value
    return total


def test_every_metric_is_there_with_its_type(server):
    families = scrape(server)
    for name in GAUGES:
        assert families[name].type == "gauge", name
    for name in COUNTERS:
        assert families[name].type == "counter", name
    for name in HISTOGRAMS:
        assert families[name].type == "histogram", name
    assert "vllm:cache_config_info" in families


def test_counters_and_histograms_move_with_requests(server, client):
    before = scrape(server)
    r = client.completions.create(model=MODEL_NAME, prompt="Count with me: one, two,", max_tokens=7, temperature=0,
                                  extra_body={"ignore_eos": True})
    client.completions.create(model=MODEL_NAME, prompt="Count with me: one, two,", max_tokens=1, temperature=0)
    after = scrape(server)
    assert value(after, "vllm:prompt_tokens", "_total") - value(before, "vllm:prompt_tokens", "_total") == \
        2 * r.usage.prompt_tokens
    assert value(after, "vllm:generation_tokens", "_total") - value(before, "vllm:generation_tokens", "_total") == 8
    assert value(after, "vllm:request_success", "_total", finished_reason="length") - \
        value(before, "vllm:request_success", "_total", finished_reason="length") == 2
    assert value(after, "vllm:e2e_request_latency_seconds", "_count") - \
        value(before, "vllm:e2e_request_latency_seconds", "_count") == 2
    assert value(after, "vllm:request_generation_tokens", "_sum") - \
        value(before, "vllm:request_generation_tokens", "_sum") == 8
    # The second request's prompt was cached by the first (all full blocks but the last).
    assert value(after, "vllm:prefix_cache_hits", "_total") >= value(before, "vllm:prefix_cache_hits", "_total")
    assert value(after, "vllm:num_requests_running") == 0


def test_periodic_stats_line(server, client):
    # The session server logs every 2 s; after traffic the line is at info level.
    client.completions.create(model=MODEL_NAME, prompt="Hello there", max_tokens=4, temperature=0)
    deadline = time.time() + 15
    while time.time() < deadline and "Avg prompt throughput" not in server.log():
        time.sleep(0.2)
    line = next(l for l in server.log().splitlines() if "Avg prompt throughput" in l)
    assert "Avg generation throughput" in line and "Running:" in line and "KV cache usage" in line
