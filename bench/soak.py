#!/usr/bin/env python3
"""Soak test for `pagoda serve`: many concurrent clients for a long time, a
mix of streaming and plain chat and completions with short outputs, clients
that hang up at random points, and a few malformed requests. Every report
interval it prints one line (requests done, errors by kind, p50/p99 latency,
the server's RSS, KV cache usage, running and waiting requests); at the end it
stops the clients, waits for the server to go idle and checks that the KV
cache is empty, nothing is running or waiting, the RSS outside the KV cache
arena (whose pages are backed as blocks are first used) is within 5% of its
value after warm-up, no response was a 5xx and every request got what it
should. The exit status is 1 if any check fails.

    .venv/bin/python bench/soak.py --duration 600 --clients 1000 --warmup 60

It starts `pagoda serve --port 0` itself (--pagoda-bin, $PAGODA_BIN, or the
build tree's) with its log in a file, or attaches to a running server with
--url and --pid. Traffic goes only to this machine's loopback address.
"""

import argparse
import asyncio
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
from collections import Counter, deque
from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BIN = os.path.join(ROOT, "build/src/pagoda/apps/pagoda")
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
MAX_BODY_BYTES = 16 << 20  # far above any response to a short request
MAX_CHUNKS = 100_000
MAX_HEADER_LINES = 100
EXPECTED_KINDS = ("ok", "rejected", "disconnected", "cancelled_at_end")
WORDS = ("the sea paged memory cache block token stream server client river mountain story robot garden "
         "window cat tea night star engine paper light").split()


class ProtocolError(Exception):
    """The server's bytes broke HTTP/1.1, SSE or the API's response shape; the message names how."""


# ---------------------------------------------------------------- requests


@dataclass
class Plan:
    """One request and how the client behaves while it runs."""
    kind: str                  # label, e.g. "stream:chat", "malformed:invalid_json"
    path: str
    body: bytes
    stream: bool
    malformed: bool = False
    n: int = 1
    max_tokens: int = 0
    hang_up_after_events: int | None = None  # close after this many SSE events
    hang_up_after_s: float | None = None     # close after this long, whatever has arrived
    hang_up_mid_body: bool = False           # send half the body, then close
    reset_on_hang_up: bool = False           # hang up with a TCP reset rather than a FIN


def random_prompt(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 24)))


def valid_body(rng, model, chat, stream):
    max_tokens = rng.randint(1, 16)
    n = 2 if rng.random() < 0.05 else 1
    # As vLLM, n > 1 needs random sampling.
    body = {"model": model, "max_tokens": max_tokens, "stream": stream,
            "temperature": rng.choice([0.7, 1.0] if n > 1 else [0, 0.7, 1.0])}
    if n > 1:
        body["n"] = n
    if rng.random() < 0.3:
        body["ignore_eos"] = True
    if stream and rng.random() < 0.5:
        body["stream_options"] = {"include_usage": True}
    if chat:
        body["messages"] = [{"role": "user", "content": random_prompt(rng)}]
    elif rng.random() < 0.2:
        body["prompt"] = [rng.randrange(100, 40000) for _ in range(rng.randint(1, 32))]
    else:
        body["prompt"] = random_prompt(rng)
    return body, n, max_tokens


def malformed_plan(rng, model, max_model_len):
    """A request the API must refuse with a 4xx, of one of several kinds."""
    stream = rng.random() < 0.5
    completion = {"model": model, "prompt": "Hello", "max_tokens": 4, "stream": stream}
    chat = {"model": model, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 4, "stream": stream}
    cases = {
        "invalid_json": ("/v1/completions", json.dumps(completion).encode()[:-7]),
        "body_not_object": ("/v1/chat/completions", b"[1, 2, 3]"),
        "wrong_field_type": ("/v1/completions", {**completion, "max_tokens": "ten"}),
        "unknown_model": ("/v1/chat/completions", {**chat, "model": "no-such-model"}),
        "negative_max_tokens": ("/v1/completions", {**completion, "max_tokens": -rng.randint(1, 100)}),
        "prompt_too_long": ("/v1/completions", {**completion, "prompt": [1000] * (max_model_len + 1)}),
        "bad_token_id": ("/v1/completions", {**completion, "prompt": [rng.choice([-1, 10 ** 9])]}),
        "bad_role": ("/v1/chat/completions", {**chat, "messages": [{"role": "wizard", "content": "x"}]}),
        "no_messages": ("/v1/chat/completions", {k: v for k, v in chat.items() if k != "messages"}),
    }
    what = rng.choice(sorted(cases))
    path, body = cases[what]
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    return Plan(f"malformed:{what}", path, body, stream, malformed=True)


def make_plan(rng, mix, model, max_model_len, typical_latency):
    if rng.random() < mix.malformed:
        return malformed_plan(rng, model, max_model_len)
    chat = rng.random() < 0.5
    stream = rng.random() >= mix.non_streaming
    body, n, max_tokens = valid_body(rng, model, chat, stream)
    path = "/v1/chat/completions" if chat else "/v1/completions"
    plan = Plan(f"{'stream' if stream else 'plain'}:{'chat' if chat else 'completion'}", path,
                json.dumps(body).encode(), stream, n=n, max_tokens=max_tokens)
    draw = rng.random()
    if stream and draw < mix.hang_up_in_stream:
        plan.hang_up_after_events = rng.randint(0, max_tokens)
    elif draw < mix.hang_up_in_stream + mix.hang_up_on_timer:
        if rng.random() < 0.2:
            plan.hang_up_mid_body = True
        else:
            # Some before the response head can arrive, the rest anywhere in
            # the wait for a slot or in the stream.
            plan.hang_up_after_s = rng.uniform(0, 0.02) if rng.random() < 0.3 else rng.uniform(0, 1.5 * typical_latency)
    plan.reset_on_hang_up = rng.random() < 0.5
    return plan


# ---------------------------------------------------------------- HTTP/1.1 and SSE


def request_bytes(plan, host_header):
    head = (f"POST {plan.path} HTTP/1.1\r\nHost: {host_header}\r\nContent-Type: application/json\r\n"
            f"Accept: {'text/event-stream' if plan.stream else 'application/json'}\r\n"
            f"Content-Length: {len(plan.body)}\r\n\r\n").encode()
    return head + plan.body


async def read_head(reader):
    """The status code and the lower-cased headers of a response."""
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise ProtocolError("head_too_large")
    lines = raw.decode("latin-1").split("\r\n")
    match = re.fullmatch(r"HTTP/1\.[01] (\d{3})(?: .*)?", lines[0])
    if not match or len(lines) > MAX_HEADER_LINES:
        raise ProtocolError("bad_status_line")
    headers = {}
    for line in lines[1:]:
        if line:
            name, sep, value = line.partition(":")
            if not sep:
                raise ProtocolError("bad_header_line")
            headers[name.strip().lower()] = value.strip()
    return int(match.group(1)), headers


async def body_pieces(reader, headers):
    """Yields the body as it arrives: chunked, Content-Length, or up to EOF."""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        total = 0
        for _ in range(MAX_CHUNKS):
            try:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            except ValueError:
                raise ProtocolError("bad_chunk_size")
            if size == 0:
                for _ in range(MAX_HEADER_LINES):  # trailers, then the empty line
                    if await reader.readuntil(b"\r\n") == b"\r\n":
                        return
                raise ProtocolError("too_many_trailers")
            total += size
            if total > MAX_BODY_BYTES:
                raise ProtocolError("body_too_large")
            data = await reader.readexactly(size + 2)
            if data[-2:] != b"\r\n":
                raise ProtocolError("bad_chunk_end")
            yield data[:-2]
        raise ProtocolError("too_many_chunks")
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise ProtocolError("bad_content_length")
        if not 0 <= length <= MAX_BODY_BYTES:
            raise ProtocolError("body_too_large")
        yield await reader.readexactly(length)
    else:
        data = await reader.read(MAX_BODY_BYTES + 1)
        if len(data) > MAX_BODY_BYTES:
            raise ProtocolError("body_too_large")
        yield data


async def read_body(reader, headers):
    return b"".join([piece async for piece in body_pieces(reader, headers)])


class SseParser:
    """Splits a text/event-stream into the data of each event."""

    def __init__(self):
        self._buffer = b""

    def feed(self, data):
        self._buffer += data
        *blocks, self._buffer = re.split(rb"\r?\n\r?\n", self._buffer)
        events = []
        for block in blocks:
            lines = [line[5:].removeprefix(b" ") for line in block.splitlines() if line.startswith(b"data:")]
            if lines:
                events.append(b"\n".join(lines).decode())
        return events

    def leftover(self):
        return self._buffer.strip()


class StreamCheck:
    """Checks a stream of chunks: JSON objects with choices until [DONE], a
    finish reason for every choice, usage within max_tokens."""

    def __init__(self, plan):
        self.plan = plan
        self.events = 0
        self.done = False
        self.finished = set()
        self.usage = None

    def on_event(self, data):
        if self.done:
            raise ProtocolError("event_after_done")
        if data == "[DONE]":
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            raise ProtocolError("event_not_json")
        if not isinstance(chunk, dict) or "error" in chunk:
            raise ProtocolError("error_event")
        if not isinstance(chunk.get("choices"), list):
            raise ProtocolError("chunk_without_choices")
        for choice in chunk["choices"]:
            if choice.get("finish_reason") is not None:
                self.finished.add(choice.get("index"))
        if chunk.get("usage"):
            self.usage = chunk["usage"]
        self.events += 1

    def finish(self, parser):
        if parser.leftover():
            raise ProtocolError("partial_event_at_end")
        if not self.done:
            raise ProtocolError("stream_cut_without_done")
        check_choices_and_usage(self.plan, self.finished, self.usage)


def check_choices_and_usage(plan, finished_indices, usage):
    if finished_indices != set(range(plan.n)):
        raise ProtocolError("choice_without_finish_reason")
    if usage is not None and usage.get("completion_tokens", 0) > plan.n * plan.max_tokens:
        raise ProtocolError("more_tokens_than_max_tokens")


def check_plain_response(plan, body):
    try:
        response = json.loads(body)
    except ValueError:
        raise ProtocolError("body_not_json")
    choices = response.get("choices") if isinstance(response, dict) else None
    if not isinstance(choices, list):
        raise ProtocolError("response_without_choices")
    finished = {c.get("index") for c in choices if c.get("finish_reason") in ("stop", "length")}
    check_choices_and_usage(plan, finished, response.get("usage"))


# ---------------------------------------------------------------- one client


class Connection:
    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.requests = 0             # sent on it so far
        self.head_received = False    # for the latest request

    @classmethod
    async def open(cls, host, port):
        return cls(*await asyncio.open_connection(host, port))

    def close(self, reset=False):
        if reset:
            self.writer.transport.abort()  # RST instead of FIN
        else:
            self.writer.close()


@dataclass
class Answer:
    kind: str
    status: int | None
    keep_alive: bool = False
    excerpt: str | None = None  # the start of a response that should not have come


async def exchange(conn, plan, host_header):
    """Sends the request and reads the response."""
    data = request_bytes(plan, host_header)
    conn.requests += 1
    conn.head_received = False
    if plan.hang_up_mid_body:
        conn.writer.write(data[:len(data) - len(plan.body) // 2 - 1])
        await conn.writer.drain()
        await asyncio.sleep(0.01)
        return Answer("disconnected", None)
    conn.writer.write(data)
    await conn.writer.drain()
    status, headers = await read_head(conn.reader)
    conn.head_received = True
    keep_alive = headers.get("connection", "").lower() != "close"
    if plan.malformed:
        body = await read_body(conn.reader, headers)
        if 400 <= status < 500:
            return Answer("rejected", status, keep_alive)
        return Answer(f"malformed_got_{status}", status, excerpt=body[:300].decode(errors="replace"))
    if status != 200:
        body = await read_body(conn.reader, headers)
        return Answer(f"http_{status}", status, excerpt=body[:300].decode(errors="replace"))
    if not plan.stream:
        check_plain_response(plan, await read_body(conn.reader, headers))
        return Answer("ok", status, keep_alive)
    if not headers.get("content-type", "").startswith("text/event-stream"):
        raise ProtocolError("stream_not_event_stream")
    return Answer(await read_stream(conn, plan, headers), status, keep_alive)


async def read_stream(conn, plan, headers):
    parser, check = SseParser(), StreamCheck(plan)
    if plan.hang_up_after_events == 0:
        return "disconnected"
    async for piece in body_pieces(conn.reader, headers):
        for event in parser.feed(piece):
            check.on_event(event)
            if plan.hang_up_after_events is not None and check.events >= plan.hang_up_after_events \
                    and not check.done:
                return "disconnected"
    check.finish(parser)
    return "ok"


@dataclass
class Outcome:
    kind: str
    status: int | None
    latency: float
    excerpt: str | None = None


def closed_by_server(conn):
    """The error kind of a connection the server closed or reset."""
    if conn.head_received:
        return "conn_closed_mid_response"
    return "conn_closed_before_head" + ("_on_reused_connection" if conn.requests > 1 else "")


async def run_one(plan, conn, ctx):
    """One request on `conn` (or a fresh connection): its outcome and the connection to reuse, if any."""
    start = time.perf_counter()
    if conn is None:
        try:
            conn = await asyncio.wait_for(Connection.open(ctx.host, ctx.port), ctx.request_timeout)
        except (OSError, asyncio.TimeoutError) as e:
            return Outcome(f"connect_{type(e).__name__}", None, time.perf_counter() - start), None
    limit = ctx.request_timeout if plan.hang_up_after_s is None else min(plan.hang_up_after_s, ctx.request_timeout)
    answer = None
    try:
        answer = await asyncio.wait_for(exchange(conn, plan, ctx.host_header), limit)
    except asyncio.TimeoutError:
        hung_up = plan.hang_up_after_s is not None and plan.hang_up_after_s < ctx.request_timeout
        answer = Answer("disconnected" if hung_up else "timeout", None)
    except (asyncio.IncompleteReadError, ConnectionError):
        answer = Answer(closed_by_server(conn), None)
    except asyncio.LimitOverrunError:
        answer = Answer("protocol_line_too_long", None)
    except ProtocolError as e:
        answer = Answer(f"protocol_{e}", None)
    finally:  # also when cancelled at the end of the run
        if answer is None or answer.kind not in ("ok", "rejected") or not answer.keep_alive:
            conn.close(reset=plan.reset_on_hang_up and answer is not None and answer.kind == "disconnected")
            conn = None
    return Outcome(answer.kind, answer.status, time.perf_counter() - start, answer.excerpt), conn


async def run_client(index, ctx):
    rng = random.Random(ctx.seed * 1_000_003 + index)
    await asyncio.sleep(ctx.ramp_s * index / ctx.clients)
    conn = None
    for _ in range(ctx.max_requests_per_client):
        if time.monotonic() >= ctx.stop_at:
            break
        plan = make_plan(rng, ctx.mix, ctx.model, ctx.max_model_len, ctx.stats.typical_latency())
        if conn is not None and rng.random() >= ctx.mix.reuse_connection:
            conn.close()
            conn = None
        try:
            outcome, conn = await run_one(plan, conn, ctx)
        except asyncio.CancelledError:
            ctx.stats.record(plan, Outcome("cancelled_at_end", None, 0.0))
            raise
        except Exception as e:  # a bug in this script: counted, so the run fails visibly
            if not ctx.stats.totals[f"client_bug_{type(e).__name__}"]:
                traceback.print_exc()
            outcome, conn = Outcome(f"client_bug_{type(e).__name__}", None, 0.0), None
        ctx.stats.record(plan, outcome)
    if conn is not None:
        conn.close()


# ---------------------------------------------------------------- statistics


def percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    k = (len(values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


class Stats:
    def __init__(self):
        self.totals = Counter()
        self.window = Counter()
        self.by_plan = Counter()
        self.window_latencies = []
        self.latencies = []
        self.recent_latencies = deque(maxlen=256)
        self.num_5xx = 0
        self.examples = {}  # error kind -> the first request and response of that kind

    def record(self, plan, outcome):
        self.totals[outcome.kind] += 1
        self.window[outcome.kind] += 1
        self.by_plan[plan.kind] += 1
        if outcome.status is not None and outcome.status >= 500:
            self.num_5xx += 1
        if outcome.kind == "ok":
            self.window_latencies.append(outcome.latency)
            self.latencies.append(outcome.latency)
            self.recent_latencies.append(outcome.latency)
        elif outcome.kind not in EXPECTED_KINDS and outcome.kind not in self.examples:
            self.examples[outcome.kind] = {"plan": plan.kind, "request": plan.body[:300].decode(errors="replace"),
                                           "response": outcome.excerpt}

    def typical_latency(self):
        """The median latency of the last completed requests (5 s before any)."""
        return percentile(self.recent_latencies, 50) if self.recent_latencies else 5.0

    def errors(self, counter):
        return {k: v for k, v in sorted(counter.items()) if k not in EXPECTED_KINDS}

    def take_window(self):
        window, latencies = self.window, self.window_latencies
        self.window, self.window_latencies = Counter(), []
        return window, latencies


# ---------------------------------------------------------------- the server


def server_metrics(text):
    wanted = {"vllm:kv_cache_usage_perc": "kv", "vllm:num_requests_running": "running",
              "vllm:num_requests_waiting": "waiting"}
    values = {}
    for family in text_string_to_metric_families(text):
        if family.name in wanted:
            values[wanted[family.name]] = sum(s.value for s in family.samples if s.name == family.name)
        if family.name == "vllm:cache_config_info":
            for sample in family.samples:
                if "kv_cache_memory_bytes" in sample.labels and "num_gpu_blocks" in sample.labels:
                    values["kv_cache"] = (int(sample.labels["kv_cache_memory_bytes"]),
                                          int(sample.labels["num_gpu_blocks"]))
    missing = set(wanted.values()) - set(values)
    if missing:
        raise ProtocolError(f"metrics_missing_{'_'.join(sorted(missing))}")
    return values


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def kv_arena_rss_bytes(pid, kv_cache):
    """The resident bytes of the server's KV cache arena: one anonymous mapping
    of num_blocks whole blocks of the KV cache budget, so its size lies within
    one block (and a page) below the budget. Its pages are backed as blocks are
    first written, which is use, not a leak. 0 when no mapping matches."""
    if kv_cache is None:
        return 0
    budget, blocks = kv_cache
    low, high = budget - budget / (blocks + 1) - 4096, budget + 4096
    anonymous_in_range = False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping's header line
                start, end = (int(x, 16) for x in fields[0].split("-"))
                anonymous_in_range = len(fields) == 5 and low <= end - start <= high
            elif anonymous_in_range and fields[0] == "Rss:":
                return int(fields[1]) * 1024
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def process_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


class Probe:
    """Reads the server's metrics, RSS and CPU time."""

    def __init__(self, base_url, pid, http):
        self.base_url, self.pid, self.http = base_url, pid, http

    async def sample(self):
        """RSS, CPU time and the metrics, or None once the server's process is gone."""
        try:
            sample = {"rss": rss_bytes(self.pid), "cpu_s": cpu_seconds(self.pid), "time": time.monotonic()}
        except OSError:
            return None
        try:
            response = await self.http.get(self.base_url + "/metrics")
            response.raise_for_status()
            sample.update(server_metrics(response.text))
            # The leak check looks at the memory outside the KV cache arena,
            # whose pages are backed on first use up to its fixed size.
            sample["rss"] -= kv_arena_rss_bytes(self.pid, sample.get("kv_cache"))
        except (httpx.HTTPError, ProtocolError) as e:
            sample["metrics_error"] = f"{type(e).__name__}: {e}"
        except OSError:
            return None
        return sample


class LaunchedServer:
    """`pagoda serve --port 0` with its log in a file."""

    def __init__(self, binary, extra_args, log_path):
        self.log_path = log_path
        self._log = open(log_path, "w")
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", *extra_args],
                                     stdout=self._log, stderr=subprocess.STDOUT)

    def log_tail(self, lines=40):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def wait_for_port(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path, errors="replace") as f:
                match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", f.read())
            if match:
                return int(match.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError(f"pagoda serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            time.sleep(0.05)
        raise RuntimeError(f"pagoda serve did not say where it listens within {timeout} s:\n{self.log_tail()}")

    def stop(self, timeout):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            self._log.close()


def wait_healthy(base_url, alive, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(base_url + "/health", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if not alive():
            raise RuntimeError("the server exited before it was healthy")
        time.sleep(0.1)
    raise RuntimeError(f"the server was not healthy within {timeout} s")


def base_url_of(host, port):
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def loopback_url(url):
    """(host, port) of `url`, refusing any host but this machine's loopback."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or parts.hostname not in LOOPBACK_HOSTS or parts.port is None:
        raise SystemExit(f"--url must be http://127.0.0.1:PORT, http://localhost:PORT or http://[::1]:PORT, not {url}")
    return parts.hostname, parts.port


# ---------------------------------------------------------------- the run


@dataclass
class Mix:
    malformed: float
    non_streaming: float
    hang_up_in_stream: float
    hang_up_on_timer: float
    reuse_connection: float


@dataclass
class Context:
    host: str
    port: int
    host_header: str
    model: str
    max_model_len: int
    mix: Mix
    stats: Stats
    clients: int
    seed: int
    ramp_s: float
    request_timeout: float
    stop_at: float
    max_requests_per_client: int


def mib(n):
    return n / (1 << 20)


def format_line(label, stats, window, latencies, sample, cpu):
    p50, p99 = percentile(latencies, 50), percentile(latencies, 99)
    errors = stats.errors(window)
    lat = f"p50 {p50:.2f}s p99 {p99:.2f}s" if latencies else "p50 - p99 -"
    server = (f"kv {sample['kv'] * 100:.1f}% running {sample['running']:.0f} waiting {sample['waiting']:.0f}"
              if "kv" in sample else f"metrics unavailable ({sample.get('metrics_error')})")
    expected = ", ".join(f"{kind} {window[kind]}" for kind in EXPECTED_KINDS if window[kind] or kind == "ok")
    return (f"[{label}] done {sum(stats.totals.values())} (+{sum(window.values())}: {expected}) | errors "
            f"{json.dumps(errors) if errors else 'none'} | {lat} | rss {mib(sample['rss']):.1f} MiB | {server} | "
            f"cpu client {cpu[0]:.0f}% server {cpu[1]:.0f}%")


class Reporter:
    """Prints one line per interval and keeps what the final checks need."""

    def __init__(self, stats, first_sample, warmup_s, full_load):
        self.stats, self.start, self.warmup_s, self.full_load = stats, first_sample["time"], warmup_s, full_load
        self.lines, self.windows = [], []
        # The RSS reference: the first sample after warm-up once the server
        # has seen full load (before it, the server's working set still grows
        # with the number of requests it holds).
        self.reference = None
        self.peak_in_server = 0
        self._last_cpu = (time.process_time(), first_sample["cpu_s"], first_sample["time"])

    def observe(self, sample):
        if "kv" not in sample:
            return
        self.peak_in_server = max(self.peak_in_server, sample["running"] + sample["waiting"])
        if self.reference is None and sample["time"] - self.start >= self.warmup_s \
                and self.peak_in_server >= self.full_load:
            self.reference = sample

    def report(self, label, sample):
        client_cpu, server_cpu, then = self._last_cpu
        elapsed = max(sample["time"] - then, 1e-9)
        cpu = ((time.process_time() - client_cpu) / elapsed * 100, (sample["cpu_s"] - server_cpu) / elapsed * 100)
        self._last_cpu = (time.process_time(), sample["cpu_s"], sample["time"])
        window, latencies = self.stats.take_window()
        line = format_line(label, self.stats, window, latencies, sample, cpu)
        print(line, flush=True)
        self.lines.append(line)
        self.windows.append({"label": label, "counts": dict(window), "p50_s": percentile(latencies, 50),
                             "p99_s": percentile(latencies, 99), "client_cpu_pct": cpu[0],
                             "server_cpu_pct": cpu[1], **{k: v for k, v in sample.items() if k != "time"}})


async def drive(args, ctx, probe, reporter):
    """Runs the clients until the deadline, reporting; then lets them finish their requests (bounded)."""
    clients = [asyncio.create_task(run_client(i, ctx)) for i in range(ctx.clients)]
    sample_s = min(5.0, args.report_interval)
    next_report = reporter.start + args.report_interval
    for _ in range(int(args.duration / sample_s) * 2 + 10):
        await asyncio.sleep(max(0.0, min(sample_s, ctx.stop_at - time.monotonic())))
        sample = await probe.sample()
        if sample is None:
            print("soak: the server is gone; stopping the clients", flush=True)
            ctx.stop_at = time.monotonic()
            break
        reporter.observe(sample)
        if sample["time"] >= next_report:
            reporter.report(f"{sample['time'] - reporter.start:5.0f}s", sample)
            next_report += args.report_interval
        if time.monotonic() >= ctx.stop_at:
            break
    _, pending = await asyncio.wait(clients, timeout=args.drain_timeout)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    return len(pending)


async def wait_idle(probe, timeout):
    """The first sample with nothing in the KV cache, running or waiting, or the last one after `timeout`."""
    sample = None
    for _ in range(int(timeout / 0.5) + 1):
        sample = await probe.sample()
        if sample is None or sample.get("kv") == 0 and sample.get("running") == 0 and sample.get("waiting") == 0:
            return sample
        await asyncio.sleep(0.5)
    return sample


def final_checks(stats, reporter, idle, rss_tolerance):
    ref = reporter.reference
    checks = []
    if idle is None or "kv" not in idle:
        checks.append(("server answers /metrics at the end", False, "no metrics" if idle else "server gone"))
        return checks
    checks.append(("KV cache usage is 0", idle["kv"] == 0, f"{idle['kv'] * 100:.2f}%"))
    checks.append(("no request running", idle["running"] == 0, f"{idle['running']:.0f}"))
    checks.append(("no request waiting", idle["waiting"] == 0, f"{idle['waiting']:.0f}"))
    if ref is None:
        checks.append(("RSS within tolerance of its value after warm-up", False,
                       f"the server never held {reporter.full_load:.0f} requests at once "
                       f"(peak {reporter.peak_in_server:.0f}; see --full-load-fraction)"))
    else:
        change = (idle["rss"] - ref["rss"]) / ref["rss"]
        checks.append((f"RSS within {rss_tolerance * 100:.0f}% of its value after warm-up",
                       abs(change) <= rss_tolerance,
                       f"{mib(ref['rss']):.1f} MiB at {ref['time'] - reporter.start:.0f}s "
                       f"({ref.get('running', float('nan')):.0f} running, {ref.get('waiting', float('nan')):.0f} waiting) -> "
                       f"{mib(idle['rss']):.1f} MiB ({change * 100:+.2f}%)"))
    checks.append(("no 5xx", stats.num_5xx == 0, f"{stats.num_5xx}"))
    errors = stats.errors(stats.totals)
    checks.append(("every other request got what it should", not errors, json.dumps(errors) if errors else "none"))
    return checks


async def soak(args, host, port, pid):
    async with httpx.AsyncClient(timeout=30) as http:
        probe = Probe(base_url_of(host, port), pid, http)
        return await soak_with(args, host, port, probe)


async def soak_with(args, host, port, probe):
    card = (await probe.http.get(probe.base_url + "/v1/models")).json()["data"][0]
    mix = Mix(args.malformed_fraction, args.non_streaming_fraction, args.hang_up_in_stream_fraction,
              args.hang_up_on_timer_fraction, args.reuse_connection_fraction)
    first_sample = await probe.sample()
    if first_sample is None:
        raise RuntimeError("the server exited before the soak began")
    start = first_sample["time"]
    ctx = Context(host, port, f"{host}:{port}", card["id"], card["max_model_len"], mix, Stats(), args.clients,
                  args.seed, ramp_s=min(5.0, args.warmup / 4),
                  request_timeout=args.request_timeout or args.duration + args.drain_timeout + 30,
                  stop_at=start + args.duration, max_requests_per_client=max(1, int(args.duration * 20)))
    reporter = Reporter(ctx.stats, first_sample, args.warmup, args.full_load_fraction * args.clients)
    print(f"soak: {args.clients} clients for {args.duration:.0f} s against {probe.base_url} (model {ctx.model}, "
          f"max_model_len {ctx.max_model_len}), warm-up {args.warmup:.0f} s", flush=True)
    cancelled = await drive(args, ctx, probe, reporter)
    idle = await wait_idle(probe, args.idle_timeout)
    if idle is not None:
        reporter.report("  end", idle)
    return ctx.stats, reporter, idle, cancelled, time.monotonic() - start


def print_summary(stats, reporter, checks, cancelled, wall_s):
    lat = stats.latencies
    print(f"totals: {sum(stats.totals.values())} requests in {wall_s:.0f} s: {json.dumps(dict(sorted(stats.totals.items())))}")
    print(f"request mix: {json.dumps(dict(sorted(stats.by_plan.items())))}")
    if lat:
        print(f"latency of completed requests: p50 {percentile(lat, 50):.2f} s, p99 {percentile(lat, 99):.2f} s, "
              f"max {max(lat):.2f} s")
    print(f"peak running + waiting in the server: {reporter.peak_in_server:.0f}; "
          f"requests still in flight after the drain, cancelled: {cancelled}")
    for kind, example in stats.examples.items():
        print(f"first {kind}: {json.dumps(example)}")
    for name, ok, detail in checks:
        print(f"  {'PASS' if ok else 'FAIL'}  {name}: {detail}")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=600, help="seconds of traffic")
    p.add_argument("--clients", type=int, default=1000, help="concurrent clients")
    p.add_argument("--warmup", type=float, default=60,
                   help="seconds before the reference RSS is taken (and not before the server has seen full load)")
    p.add_argument("--full-load-fraction", type=float, default=0.9,
                   help="full load: the server holds (running + waiting) this fraction of the clients' requests "
                        "at once")
    p.add_argument("--report-interval", type=float, default=30, help="seconds between report lines")
    p.add_argument("--drain-timeout", type=float, default=60,
                   help="seconds the clients get after --duration to finish their requests before they are cancelled")
    p.add_argument("--idle-timeout", type=float, default=60, help="seconds to wait for the server to go idle")
    p.add_argument("--request-timeout", type=float,
                   help="seconds one request may take (default: until after the drain, which cancels it first; "
                        "a 1000-client queue on a small CPU is minutes long)")
    p.add_argument("--rss-tolerance", type=float, default=0.05, help="allowed RSS change after warm-up (fraction)")
    p.add_argument("--malformed-fraction", type=float, default=0.01)
    p.add_argument("--non-streaming-fraction", type=float, default=0.1)
    p.add_argument("--hang-up-in-stream-fraction", type=float, default=0.05,
                   help="streams the client closes after a random number of events")
    p.add_argument("--hang-up-on-timer-fraction", type=float, default=0.05,
                   help="requests the client closes after a random time (also before the response head)")
    p.add_argument("--reuse-connection-fraction", type=float, default=0.5,
                   help="requests sent on the previous request's keep-alive connection")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--url", help="attach to this running server (loopback only) instead of starting one")
    p.add_argument("--pid", type=int, help="the attached server's process id (for its RSS)")
    p.add_argument("--pagoda-bin", default=os.environ.get("PAGODA_BIN", DEFAULT_BIN))
    p.add_argument("--server-arg", action="append", default=[],
                   help="extra `pagoda serve` flag (repeatable), e.g. --server-arg=--max-model-len=2048")
    p.add_argument("--server-log", help="the started server's log file (default: a temporary file)")
    p.add_argument("--json", help="write every number here")
    args = p.parse_args(argv)
    if (args.url is None) != (args.pid is None):
        p.error("--url and --pid go together")
    fractions = [args.malformed_fraction, args.non_streaming_fraction, args.hang_up_in_stream_fraction,
                 args.hang_up_on_timer_fraction, args.reuse_connection_fraction, args.rss_tolerance,
                 args.full_load_fraction]
    if any(not 0 <= f <= 1 for f in fractions) or args.hang_up_in_stream_fraction + args.hang_up_on_timer_fraction > 1:
        p.error("fractions must be in [0, 1] (the two hang-up fractions together too)")
    if args.clients < 1 or args.duration <= 0 or args.warmup >= args.duration or args.report_interval <= 0:
        p.error("need --clients >= 1, --duration > 0, --warmup < --duration, --report-interval > 0")
    return args


def raise_open_file_limit(clients):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = clients + 256
    if soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise SystemExit(f"{clients} clients need {needed} open files; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


def main(argv=None):
    args = parse_args(argv)
    raise_open_file_limit(args.clients)
    server = None
    if args.url:
        host, port = loopback_url(args.url)
        pid = args.pid
    else:
        log_path = args.server_log or tempfile.mkstemp(prefix="soak-server-", suffix=".log")[1]
        server = LaunchedServer(args.pagoda_bin, args.server_arg, log_path)
        print(f"soak: server log in {log_path}", flush=True)
        host, pid = "127.0.0.1", server.proc.pid
        port = server.wait_for_port(120)
    try:
        wait_healthy(base_url_of(host, port), lambda: process_alive(pid), 600)
        stats, reporter, idle, cancelled, wall_s = asyncio.run(soak(args, host, port, pid))
        checks = final_checks(stats, reporter, idle, args.rss_tolerance)
    except BaseException:
        if server:
            server.stop(timeout=60)
            print(f"--- tail of the server log ({server.log_path}):\n{server.log_tail()}", file=sys.stderr)
        raise
    exit_code = server.stop(timeout=60) if server else None
    if server:
        checks.append(("server exits 0 on SIGTERM", exit_code == 0, f"{exit_code}"))
    print_summary(stats, reporter, checks, cancelled, wall_s)
    passed = all(ok for _, ok, _ in checks)
    if not passed and server:
        print(f"--- tail of the server log ({server.log_path}):\n{server.log_tail()}", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "report_lines": reporter.lines, "windows": reporter.windows,
                       "totals": dict(stats.totals), "error_examples": stats.examples, "request_mix": dict(stats.by_plan), "num_5xx": stats.num_5xx,
                       "latency_p50_s": percentile(stats.latencies, 50),
                       "latency_p99_s": percentile(stats.latencies, 99),
                       "peak_running_plus_waiting": reporter.peak_in_server, "cancelled_at_end": cancelled,
                       "reference_sample": reporter.reference, "idle_sample": idle, "wall_s": wall_s,
                       "checks": [{"name": n, "passed": ok, "detail": d} for n, ok, d in checks]}, f, indent=2)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
