"""Many streaming clients at once, and clients that go away mid-stream."""

import asyncio
import socket
import time

import httpx
from prometheus_client.parser import text_string_to_metric_families

from conftest import MODEL_NAME


def metric(server, name, sample=None, **labels):
    for family in text_string_to_metric_families(httpx.get(server.url + "/metrics").text):
        if family.name == name:
            return sum(s.value for s in family.samples if s.name == (sample or name)
                       and all(s.labels.get(k) == v for k, v in labels.items()))
    raise AssertionError(f"no {name}")


def kv_usage(server):
    return metric(server, "vllm:kv_cache_usage_perc")


def finished_requests(server):
    return metric(server, "vllm:e2e_request_latency_seconds", "vllm:e2e_request_latency_seconds_count")


def test_128_concurrent_streams_all_finish_correctly(client, async_client):
    prompts = [f"Story {i}: once upon a time" for i in range(128)]
    # What each prompt gives alone (greedy is batch-invariant), for 4 of them.
    alone = {i: client.completions.create(model=MODEL_NAME, prompt=prompts[i], max_tokens=12, temperature=0,
                                          extra_body={"ignore_eos": True}).choices[0].text for i in (0, 41, 77, 127)}

    async def one(i):
        text, finish = "", None
        stream = await async_client.completions.create(model=MODEL_NAME, prompt=prompts[i], max_tokens=12,
                                                       temperature=0, stream=True, extra_body={"ignore_eos": True})
        async for chunk in stream:
            text += chunk.choices[0].text
            finish = chunk.choices[0].finish_reason or finish
        return text, finish

    async def all_of_them():
        return await asyncio.gather(*(one(i) for i in range(128)))

    results = asyncio.run(all_of_them())
    assert all(finish == "length" for _, finish in results)
    for i, text in alone.items():
        assert results[i][0] == text


def test_disconnect_mid_stream_frees_the_kv_cache(server):
    body = (b'{"model": "%s", "prompt": "Write a very long essay about the sea.", "max_tokens": 900, '
            b'"stream": true, "ignore_eos": true}' % MODEL_NAME.encode())
    finished_before = finished_requests(server)
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body)
    received = b""
    while received.count(b"data: ") < 5:
        received += sock.recv(65536)
    assert kv_usage(server) > 0
    sock.close()
    deadline = time.time() + 30
    while kv_usage(server) > 0 and time.time() < deadline:
        time.sleep(0.05)
    assert kv_usage(server) == 0
    assert metric(server, "vllm:num_requests_running") == 0
    # As vLLM, a request the client abandoned is left out of the request metrics.
    assert finished_requests(server) == finished_before
