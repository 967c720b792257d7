#!/usr/bin/env bash
# The `single` workload: one request, a 512-token prompt, 128 generated tokens
# (ignore EOS), greedy, on the default model. Prints pagoda generate's
# prompt and generation speed. Usage: bench/generate_bench.sh [THREADS] [RUNS] [MODEL] [FLAG...]
# (MODEL: a GGUF file or Hugging Face directory, default the default model;
# FLAGs go to pagoda generate, such as -q fp8).
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
runs=${2:-3}
model_args=()
if [[ $# -ge 3 ]]; then model_args=(--model "$3" "${@:4}"); fi
pagoda=build/src/pagoda/apps/pagoda
# The first 512 tokens of the GPL-3 text, as text.
ids=$($pagoda tokenize --no-special --text "$(cat /usr/share/common-licenses/GPL-3)" |
  .venv/bin/python -c 'import json,sys; print(json.dumps(json.load(sys.stdin)[:512]))')
prompt=$($pagoda detokenize --ids "$ids")
for _ in $(seq "$runs"); do
  $pagoda generate "${model_args[@]}" --prompt "$prompt" --max-tokens 128 --ignore-eos --temperature 0 --threads "$threads" 2>&1 >/dev/null |
    grep '^prompt:'
done
