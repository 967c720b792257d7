"""`pip install .` into a fresh virtual environment, then the README's and the
issue's examples there, from outside the checkout.

pip builds the package in an isolated environment with scikit-build-core from
PyPI (pyproject.toml), so this needs PyPI like scripts/setup.sh does. The CMake
build stays in build-pip/ between runs: the first run compiles the engine (a
few minutes on two cores), later ones only what changed.
"""

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import PAGODA_BIN, ROOT

PROMPTS = ["Hello, my name is", "The capital of France is"]

# The issue's example, then what the test checks, as one JSON line.
ISSUE_EXAMPLE = """\
from pagoda import LLM, SamplingParams
llm = LLM(model=None)
outs = llm.generate(["Hello, my name is", "The capital of France is"], SamplingParams(temperature=0.7, max_tokens=64, n=2))
print(outs[0].outputs[0].text, outs[0].outputs[0].finish_reason, outs[0].outputs[0].token_ids)

import json
import pagoda
[greedy] = llm.generate("The capital of France is", SamplingParams(temperature=0, max_tokens=16))
print("RESULT " + json.dumps({
    "file": pagoda.__file__,
    "extension": pagoda._pagoda.__file__,
    "outs": [{"prompt": o.prompt, "finished": o.finished,
              "outputs": [{"index": c.index, "text": c.text, "token_ids": list(c.token_ids),
                           "finish_reason": c.finish_reason} for c in o.outputs]} for o in outs],
    "greedy": greedy.outputs[0].text,
}))
"""


def clean_env() -> dict:
    # Nothing may lead Python to another `pagoda` (PYTHONPATH=build/python) or
    # the engine to another model than the one the wheel was built with.
    env = dict(os.environ)
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PAGODA_MODEL"):
        env.pop(name, None)
    # The objects `make build` just compiled come from ccache when it is
    # there (scripts/setup.sh installs it): same sources, same flags, and the
    # same compiler path (ccache's hash includes it; CMake says c++ where
    # scikit-build-core would pick g++).
    if shutil.which("ccache"):
        args = [env.get("CMAKE_ARGS", ""), "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        compiler = build_cxx_compiler()
        if compiler:
            args.append(f"-DCMAKE_CXX_COMPILER={compiler}")
        env["CMAKE_ARGS"] = " ".join(a for a in args if a)
    return env


def build_cxx_compiler() -> str | None:
    """The C++ compiler of the CMake build under test, if it has a cache."""
    cache = PAGODA_BIN.parents[3] / "CMakeCache.txt"
    if cache.exists():
        for line in cache.read_text().splitlines():
            if line.startswith("CMAKE_CXX_COMPILER:"):
                return line.split("=", 1)[1]
    return None


@pytest.fixture(scope="module")
def outside(tmp_path_factory) -> pathlib.Path:
    """A working directory outside the checkout."""
    return tmp_path_factory.mktemp("elsewhere")


@pytest.fixture(scope="module")
def venv(tmp_path_factory, outside) -> pathlib.Path:
    """A fresh virtual environment with `pip install <checkout>` done in it."""
    venv = tmp_path_factory.mktemp("pip-install") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin/python"
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", str(ROOT)],
        cwd=outside, env=clean_env(), capture_output=True, text=True, timeout=1800,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    return venv


def run_python(venv, outside, code):
    proc = subprocess.run(
        [str(venv / "bin/python"), "-c", code],
        cwd=outside, env=clean_env(), capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    return proc.stdout


def readme_example() -> str:
    readme = (ROOT / "README.md").read_text()
    return re.search(r"## Python\n.*?```python\n(.*?)```", readme, re.S).group(1)


def test_package_is_installed_in_the_venv(venv, outside):
    out = run_python(venv, outside, "import pagoda, pagoda._pagoda as m; print(pagoda.__file__); print(m.__file__)")
    init, extension = (pathlib.Path(line).resolve() for line in out.splitlines())
    site_packages = next((venv / "lib").resolve().glob("python3*/site-packages"))
    assert init == site_packages / "pagoda/__init__.py"
    assert extension.parent == site_packages / "pagoda" and extension.name.startswith("_pagoda.")
    # The package's Python modules, the extension and the CLI (bin/pagoda),
    # nothing else (no tests or benchmarks), and nothing from the build tree.
    package = site_packages / "pagoda"
    installed = {p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file()}
    installed = {name for name in installed if "__pycache__" not in name}
    sources = {p.relative_to(ROOT / "python/pagoda").as_posix() for p in (ROOT / "python/pagoda").rglob("*.py")}
    assert installed == sources | {extension.name, "bin/pagoda"}


def test_console_script_and_api_server_module_run_the_cli(venv, outside, pagoda_bin):
    # The `pagoda` console script in the venv's bin/ is the CLI: same help.
    script = venv / "bin/pagoda"
    assert script.exists()
    proc = subprocess.run([str(script), "--help"], cwd=outside, env=clean_env(), capture_output=True, text=True,
                          timeout=120)
    direct = subprocess.run(["pagoda", "--help"], executable=pagoda_bin, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout == direct.stdout, proc.stderr[-3000:]
    # vLLM's `python -m vllm.entrypoints.openai.api_server --model ...` is `pagoda serve`.
    proc = subprocess.run([str(venv / "bin/python"), "-m", "pagoda.entrypoints.openai.api_server", "--help"],
                          cwd=outside, env=clean_env(), capture_output=True, text=True, timeout=120)
    direct = subprocess.run(["pagoda", "serve", "--help"], executable=pagoda_bin, capture_output=True, text=True,
                           timeout=120)
    assert proc.returncode == 0 and proc.stdout == direct.stdout, proc.stderr[-3000:]
    assert "--model" in proc.stdout


def test_readme_example_runs_in_the_venv(venv, outside):
    out = run_python(venv, outside, readme_example())
    lines = [l for l in out.splitlines() if l.startswith("'")]  # not the engine's log
    assert len(lines) == 4  # two prompts, n=2
    for line, (prompt, index) in zip(lines, [(p, i) for p in PROMPTS for i in (0, 1)]):
        assert line.startswith(f"{prompt!r} {index} ")
        assert re.search(r" (stop|length) \d+$", line), line


def test_issue_example_in_the_venv(venv, outside, pagoda_bin):
    out = run_python(venv, outside, ISSUE_EXAMPLE)
    [line] = [l for l in out.splitlines() if l.startswith("RESULT ")]
    r = json.loads(line.removeprefix("RESULT "))
    assert pathlib.Path(r["file"]).resolve().is_relative_to(venv.resolve())
    assert pathlib.Path(r["extension"]).resolve().is_relative_to(venv.resolve())

    assert [o["prompt"] for o in r["outs"]] == PROMPTS
    for o in r["outs"]:
        assert o["finished"]
        assert [c["index"] for c in o["outputs"]] == [0, 1]
        for c in o["outputs"]:
            assert c["finish_reason"] in ("stop", "length")
            assert 1 <= len(c["token_ids"]) <= 64
            assert c["finish_reason"] == "stop" or len(c["token_ids"]) == 64
            # The text is what the token ids decode to (the CLI's tokenizer).
            ids = subprocess.run(
                [str(pagoda_bin), "detokenize", "--skip-special-tokens", "--ids", json.dumps(c["token_ids"])],
                capture_output=True, text=True, timeout=600, check=True,
            )
            assert c["text"] == ids.stdout
    # The first print of the example is the first completion's text, reason and ids.
    first = r["outs"][0]["outputs"][0]
    assert f"{first['text']} {first['finish_reason']} {first['token_ids']}" in out

    # The installed engine is the CLI's engine: same greedy text.
    cli = subprocess.run(
        [str(pagoda_bin), "generate", "--temperature", "0", "--max-tokens", "16", "--prompt", PROMPTS[1]],
        capture_output=True, text=True, timeout=600, check=True, env=clean_env(),
    )
    assert cli.stdout == r["greedy"] + "\n"
