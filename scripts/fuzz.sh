#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, ASan and UBSan in
# build-fuzz and runs each for SECONDS (default 60), one after another,
# starting from its committed seed corpus (fuzz/corpus/TARGET; the GGUF and
# safetensors readers' are their test fixtures). Each target's corpus grows
# in build-fuzz/corpus/TARGET and its output goes to build-fuzz/TARGET.log.
# Exits non-zero if any target finds a crash, leak or hang; the input that
# caused it is left as build-fuzz/TARGET-crash-<hash> (or -leak-, -timeout-).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     (default: all targets)
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${1:-60}
shift || true
all_targets=(gguf_fuzz safetensors_fuzz http_fuzz sampling_request_fuzz chat_template_fuzz tokenizer_fuzz hf_tokenizer_fuzz stop_string_fuzz ebnf_fuzz regex_fuzz lark_fuzz json_schema_fuzz)
targets=("$@")
((${#targets[@]} > 0)) || targets=("${all_targets[@]}")
build=build-fuzz
jobs=${JOBS:-2}

for target in "${targets[@]}"; do
  if [[ ! " ${all_targets[*]} " == *" $target "* ]]; then
    echo "fuzz.sh: unknown target '$target' (targets: ${all_targets[*]})" >&2
    exit 2
  fi
done

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPAGODA_FUZZ=ON -DPAGODA_BUILD_TESTS=OFF -DPAGODA_BUILD_BENCH=OFF >/dev/null
# Only the fuzzers and what they link: other modules need not build under clang.
cmake --build "$build" --target "${targets[@]}" -j"$jobs"

max_len() {
  case $1 in
    gguf_fuzz | safetensors_fuzz | chat_template_fuzz | hf_tokenizer_fuzz) echo 16384 ;;
    sampling_request_fuzz) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

failed=()
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  mkdir -p "$corpus"
  if [[ $target == gguf_fuzz ]]; then
    cp tests/fixtures/gguf/*.gguf "$corpus/"
  elif [[ $target == safetensors_fuzz ]]; then
    # Flattened: the checkpoints' files share names (model.safetensors).
    for seed in tests/fixtures/safetensors/*.safetensors tests/fixtures/safetensors/*/*.safetensors; do
      cp "$seed" "$corpus/$(basename "$(dirname "$seed")")-$(basename "$seed")"
    done
  elif [[ $target == hf_tokenizer_fuzz ]]; then
    # Each tiny checkpoint's tokenizer.json, a NUL, its tokenizer_config.json.
    for dir in tests/fixtures/hf_models/*/; do
      [[ -f $dir/tokenizer.json ]] || continue
      { cat "$dir/tokenizer.json"; printf '\0'; cat "$dir/tokenizer_config.json"; } >"$corpus/$(basename "$dir")"
    done
  else
    cp fuzz/corpus/"$target"/* "$corpus/"
  fi
  log=$build/$target.log
  echo "fuzz.sh: $target for ${duration}s (log: $log)"
  # -timeout: a hang is a finding; the targets' own time bounds are tighter.
  if "$build/fuzz/$target" -max_total_time="$duration" -max_len="$(max_len "$target")" -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$build/$target-" "$corpus" >"$log" 2>&1; then
    grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" | sed "s/^/  /"
    echo "  corpus: $(find "$corpus" -type f | wc -l) inputs"
  else
    tail -n 40 "$log" >&2
    failed+=("$target")
  fi
done

if ((${#failed[@]} > 0)); then
  echo "fuzz.sh: findings in: ${failed[*]} (inputs under $build/)" >&2
  exit 1
fi
