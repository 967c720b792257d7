"""A live `pagoda serve` on 127.0.0.1 for the end-to-end tests, driven with
the official `openai` SDK. The server's log goes to a file (tests read the
access log and the chosen port from it)."""

import os
import pathlib
import re
import signal
import subprocess
import time

import httpx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGODA_BIN = pathlib.Path(os.environ.get("PAGODA_BIN", ROOT / "build/src/pagoda/apps/pagoda"))
if not PAGODA_BIN.is_absolute():
    PAGODA_BIN = ROOT / PAGODA_BIN
MODEL_NAME = "SmolLM2-135M-Instruct"


class Server:
    """One `pagoda serve` process on a port it picks itself."""

    def __init__(self, tmp: pathlib.Path, *args: str, env: dict | None = None):
        self.log_path = tmp / "server.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [str(PAGODA_BIN), "serve", "--port", "0", *args],
            stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
        )
        self.port = self._wait_for_port()
        self.url = f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text()

    def _wait_for_port(self) -> int:
        deadline = time.time() + 60
        while time.time() < deadline:
            m = re.search(r"listening on http://[\d.]+:(\d+)", self.log())
            if m:
                return int(m.group(1))
            assert self.proc.poll() is None, f"server exited early:\n{self.log()}"
            time.sleep(0.02)
        raise TimeoutError(f"server did not start listening:\n{self.log()}")

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if httpx.get(self.url + "/health", timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.proc.poll() is None, f"server exited:\n{self.log()}"
            time.sleep(0.05)
        raise TimeoutError(f"server not ready:\n{self.log()}")

    def stop(self, timeout: float = 60) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._log.close()


# Small enough to start fast, big enough for 128 concurrent short requests.
SERVER_ARGS = ("--kv-cache-memory", "256MiB", "--max-model-len", "1024", "--log-stats-interval", "2")


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("server"), *SERVER_ARGS)
    s.wait_ready()
    yield s
    assert s.stop() == 0, s.log()


@pytest.fixture(scope="session")
def client(server):
    import openai

    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=300)


@pytest.fixture(scope="session")
def async_client(server):
    import openai

    return openai.AsyncOpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0, timeout=600)
