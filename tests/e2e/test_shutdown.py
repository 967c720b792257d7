"""SIGTERM and SIGINT: the drain (503 to new requests and /health while the
requests in flight run on), then every unfinished response ended cleanly:
streams with a final finish_reason "abort" chunk, [DONE] and the chunked
terminator; other requests with a 503 in OpenAI's shape."""

import json
import signal
import threading
import time

import httpx

from conftest import MODEL_NAME, SERVER_ARGS, Server
from test_errors import error_of

LONG = {"model": MODEL_NAME, "prompt": "Tell me a very long story.", "max_tokens": 900, "temperature": 0,
        "ignore_eos": True}


class StreamReader(threading.Thread):
    """Reads one streamed completion with httpx, which raises on a cut body."""

    def __init__(self, url: str, body: dict):
        super().__init__()
        self.url, self.body = url, body
        self.events, self.error, self.first_event = [], None, threading.Event()

    def run(self):
        try:
            with httpx.stream("POST", self.url + "/v1/completions", json={**self.body, "stream": True},
                              timeout=120) as r:
                assert r.status_code == 200
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        self.events.append(line[len("data: "):])
                        self.first_event.set()
        except Exception as e:  # noqa: BLE001 - the test inspects it
            self.error = e
        self.first_event.set()


class PlainRequest(threading.Thread):
    def __init__(self, url: str, body: dict):
        super().__init__()
        self.url, self.body, self.response = url, body, None

    def run(self):
        self.response = httpx.post(self.url + "/v1/completions", json=self.body, timeout=120)


def assert_ended_as_aborted(stream: StreamReader):
    assert stream.error is None, repr(stream.error)
    assert stream.events[-1] == "[DONE]"
    last = json.loads(stream.events[-2])
    assert [c["finish_reason"] for c in last["choices"]] == ["abort"]
    assert all(json.loads(e)["choices"][0]["finish_reason"] is None for e in stream.events[:-2])


def test_sigterm_drains_then_ends_every_response_cleanly(tmp_path):
    s = Server(tmp_path, *SERVER_ARGS, "--shutdown-timeout", "3")
    s.wait_ready()
    stream = StreamReader(s.url, LONG)
    plain = PlainRequest(s.url, LONG)
    stream.start()
    plain.start()
    assert stream.first_event.wait(60) and stream.error is None
    signaled = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    # Draining: the listener is open, but nothing new is taken on.
    health = httpx.get(s.url + "/health", timeout=10)
    assert health.status_code == 503 and "shutting down" in error_of(health)["message"]
    late = httpx.post(s.url + "/v1/completions", json={"prompt": "Hi", "max_tokens": 2}, timeout=10)
    assert late.status_code == 503 and error_of(late)["type"] == "ServiceUnavailableError"
    stream.join(60)
    plain.join(60)
    assert time.monotonic() - signaled >= 3  # they had their grace period
    assert_ended_as_aborted(stream)
    assert plain.response.status_code == 503 and "shutting down" in error_of(plain.response)["message"]
    assert s.proc.wait(30) == 0
    assert "aborting 2 requests still in flight" in s.log()


def test_a_second_signal_ends_the_requests_at_once(tmp_path):
    s = Server(tmp_path, *SERVER_ARGS, "--shutdown-timeout", "600")
    s.wait_ready()
    stream = StreamReader(s.url, LONG)
    stream.start()
    assert stream.first_event.wait(60) and stream.error is None
    s.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    assert stream.is_alive()  # still running within its 600 s
    signaled = time.monotonic()
    s.proc.send_signal(signal.SIGINT)
    stream.join(30)
    assert s.proc.wait(30) == 0
    assert time.monotonic() - signaled < 10
    assert_ended_as_aborted(stream)


def test_a_drain_with_nothing_in_flight_exits_at_once(tmp_path):
    s = Server(tmp_path, *SERVER_ARGS, "--shutdown-timeout", "600")
    s.wait_ready()
    signaled = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(30) == 0
    assert time.monotonic() - signaled < 10
