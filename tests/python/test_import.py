"""After `make build`, the project's own .venv imports the package with no
environment variables (the .pth file that `make build` writes)."""

import os
import pathlib
import subprocess

from conftest import PYTHON_DIR, ROOT


def test_the_venv_imports_pagoda_without_pythonpath(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    out = subprocess.run(
        [str(ROOT / ".venv/bin/python"), "-c", "import pagoda; from pagoda import LLM, SamplingParams; print(pagoda.__file__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert pathlib.Path(out.stdout.strip()).resolve().parent == (PYTHON_DIR / "pagoda").resolve()
