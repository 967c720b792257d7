#!/usr/bin/env python3
"""Structured outputs against free decoding: output tokens/s with and without
a JSON schema (issue 11: within 10% at 1 and at 32 concurrent requests on
the default model), the time a new schema adds before the first token, and
(with --mask-bench) the token mask's cost per generated token.

Fairness. Both sides run the same prompts, seeds, temperature and
max_tokens through the offline API (LLM.generate with N prompts is N
concurrent requests), and both produce exactly max_tokens tokens per
request, so batches have the same shape from the first step to the last:
the free side ignores end-of-sequence, and the schema asks for at least
64 records, which no request can finish within max_tokens. What is
compared is output tokens per second of wall time.

Runs alternate (free, schema cold, schema warm; then schema cold, schema
warm, free; and so on) so that drift on a shared machine spreads over all three;
each round's ratios are taken against that round's free run, and the
median over rounds is reported.
  cold  the schema's text is new (a fresh "title"): the run includes
        compiling it and filling its mask cache from empty;
  warm  the same schema again: compiled, masks cached.

--replay FILE writes the schema runs' outputs (schema text and token ids,
one JSON object a line) and, with --corpus, one output per schema of
tests/fixtures/structured/generation_schemas; --mask-bench BIN then runs
the C++ bench (bench/grammar_mask_bench.cc, target
pagoda_bench_grammar_mask) on them: compile times and mask time per token
(mean and p99) on the model's real vocabulary.

Usage:
  .venv/bin/python bench/structured_output_bench.py [--rounds 3]
      [--concurrency 1 32] [--max-tokens 128] [--corpus]
      [--replay /tmp/replay.jsonl --mask-bench build/bench/pagoda_bench_grammar_mask]
      [--json results.json]
"""

import argparse
import copy
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests/fixtures/structured/generation_schemas/schemas.json"

try:
    import pagoda
except ImportError:  # not installed: the build tree's package
    sys.path.insert(0, str(ROOT / "build/python"))
    import pagoda

# Warehouse stock records: strings with and without bounds, a pattern, an
# enum, bounded and free integers, a number, a boolean, a date-time and a
# nullable field, so that the masks cover the states real JSON goes through.
RECORD = {
    "type": "object",
    "properties": {
        "sku": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$"},
        "name": {"type": "string", "maxLength": 40},
        "category": {"enum": ["tools", "garden", "kitchen", "toys", "books"]},
        "quantity": {"type": "integer", "minimum": 0, "maximum": 100000},
        "price": {"type": "number"},
        "active": {"type": "boolean"},
        "updated": {"type": "string", "format": "date-time"},
        "note": {"type": ["string", "null"], "maxLength": 60},
    },
    "required": ["sku", "name", "category", "quantity", "price", "active", "updated", "note"],
}
SCHEMA = {
    "type": "object",
    "properties": {
        "warehouse": {"type": "string", "maxLength": 30},
        "records": {"type": "array", "items": RECORD, "minItems": 64},
    },
    "required": ["warehouse", "records"],
}


def hundred_property_schema(tag):
    kinds = [
        {"type": "string", "maxLength": 40},
        {"type": "integer", "minimum": 0, "maximum": 10000},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "format": "date-time"},
        {"enum": ["pending", "active", "suspended", "closed"]},
        {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 5},
        {"type": ["string", "null"]},
        {"type": "string", "format": "uuid"},
        {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]},
    ]
    props = {f"property_{i}": kinds[i % len(kinds)] for i in range(100)}
    return {"title": tag, "type": "object", "properties": props, "required": [k for i, k in enumerate(props) if i % 3 != 2]}


def prompts(n):
    return [f"Produce a JSON object for: the stock records of warehouse number {i + 1}\n" for i in range(n)]


def params(n, max_tokens, schema):
    so = None if schema is None else pagoda.StructuredOutputsParams(json=schema)
    return [pagoda.SamplingParams(temperature=0.8, seed=i, max_tokens=max_tokens, ignore_eos=True,
                                  structured_outputs=so) for i in range(n)]


def timed_generate(llm, n, max_tokens, schema):
    ps = prompts(n)
    sp = params(n, max_tokens, schema)
    start = time.perf_counter()
    outs = llm.generate(ps, sp)
    seconds = time.perf_counter() - start
    tokens = sum(len(o.outputs[0].token_ids) for o in outs)
    return tokens, seconds, outs


def throughput(llm, n, max_tokens, rounds, replay):
    """Tokens/s of free, schema-cold and schema-warm runs, alternated."""
    rows = []
    for r in range(rounds):
        schema = copy.deepcopy(SCHEMA)
        schema["title"] = f"bench round {r} n={n} {time.time_ns()}"  # a new text: compiled afresh
        # Warm reuses cold's schema, so it follows cold; free goes first or last.
        order = ["free", "cold", "warm"] if r % 2 == 0 else ["cold", "warm", "free"]
        row = {}
        for kind in order:
            tokens, seconds, outs = timed_generate(llm, n, max_tokens, None if kind == "free" else schema)
            expected = n * max_tokens
            if tokens != expected:
                sys.exit(f"{kind}: {tokens} tokens, expected {expected}: the comparison would not be fair")
            row[kind] = tokens / seconds
            if kind == "cold" and replay is not None:
                text = json.dumps(schema)
                for o in outs:
                    replay.append({"schema": text, "token_ids": list(o.outputs[0].token_ids)})
        row["cold_ratio"] = row["cold"] / row["free"]
        row["warm_ratio"] = row["warm"] / row["free"]
        print(f"  n={n:<3} round {r}: free {row['free']:7.1f} tok/s  schema cold {row['cold']:7.1f} "
              f"({row['cold_ratio']:.3f})  warm {row['warm']:7.1f} ({row['warm_ratio']:.3f})  order {order}",
              flush=True)
        rows.append(row)
    return {
        "concurrency": n,
        "max_tokens": max_tokens,
        "rounds": rows,
        "median_cold_ratio": statistics.median(r["cold_ratio"] for r in rows),
        "median_warm_ratio": statistics.median(r["warm_ratio"] for r in rows),
        "median_free_tok_s": statistics.median(r["free"] for r in rows),
    }


def first_token_overhead(llm, repeats):
    """Wall time of one-token requests: free, and with a 100-property schema never seen before."""
    free, schema = [], []
    for i in range(repeats):
        for kind in ("free", "schema"):
            s = hundred_property_schema(f"first token {i} {time.time_ns()}") if kind == "schema" else None
            sp = pagoda.SamplingParams(temperature=0.8, seed=i, max_tokens=1,
                                       structured_outputs=None if s is None else pagoda.StructuredOutputsParams(json=s))
            start = time.perf_counter()
            llm.generate(["Produce a JSON object for: a customer record\n"], sp)
            (free if kind == "free" else schema).append(time.perf_counter() - start)
    return {"free_ms": 1000 * statistics.median(free), "new_100_property_schema_ms": 1000 * statistics.median(schema)}


def corpus_replay(llm, replay):
    entries = json.loads(CORPUS.read_text())
    ps = [f"Produce a JSON object for: {e['title']}\n" for e in entries]
    sp = [pagoda.SamplingParams(temperature=0.8, seed=0, max_tokens=512,
                                structured_outputs=pagoda.StructuredOutputsParams(json=e["schema"])) for e in entries]
    for e, o in zip(entries, llm.generate(ps, sp)):
        replay.append({"schema": json.dumps(e["schema"]), "token_ids": list(o.outputs[0].token_ids)})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="GGUF file (default: the default model)")
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="compute threads (0: one per physical core)")
    ap.add_argument("--corpus", action="store_true", help="also replay one output per corpus schema")
    ap.add_argument("--replay", default=None, help="write the schema runs' outputs here (JSONL)")
    ap.add_argument("--mask-bench", default=None, help="pagoda_bench_grammar_mask binary, run on --replay")
    ap.add_argument("--json", default=None, help="write all results here")
    args = ap.parse_args()

    llm = pagoda.LLM(args.model, kv_cache_memory="1GiB", max_model_len=2048, threads=args.threads,
                     max_num_seqs=max(64, max(args.concurrency)))
    results = {"max_tokens": args.max_tokens, "throughput": []}
    replay = [] if args.replay else None
    timed_generate(llm, 4, 8, None)  # warm-up
    for n in args.concurrency:
        print(f"concurrency {n}: {args.rounds} rounds of free / schema cold / schema warm", flush=True)
        results["throughput"].append(throughput(llm, n, args.max_tokens, args.rounds, replay))
    results["first_token"] = first_token_overhead(llm, 5)
    print(f"one-token request: free {results['first_token']['free_ms']:.1f} ms, new 100-property schema "
          f"{results['first_token']['new_100_property_schema_ms']:.1f} ms (medians of 5)")
    if args.corpus and replay is not None:
        corpus_replay(llm, replay)
    print("\nsummary (median over rounds; ratio = schema tok/s / free tok/s; the bar is >= 0.90)")
    for t in results["throughput"]:
        print(f"  {t['concurrency']:>3} concurrent: free {t['median_free_tok_s']:7.1f} tok/s, "
              f"cold {t['median_cold_ratio']:.3f}, warm {t['median_warm_ratio']:.3f}")
    if replay is not None:
        with open(args.replay, "w") as f:
            for doc in replay:
                f.write(json.dumps(doc) + "\n")
        print(f"wrote {len(replay)} outputs to {args.replay}")
        if args.mask_bench:
            del llm  # the C++ bench gets the cores to itself
            out = pathlib.Path(args.replay).with_suffix(".mask.json")
            cmd = [args.mask_bench, "--replay", args.replay, "--json", str(out)]
            if args.model:
                cmd += ["--model", args.model]
            subprocess.run(cmd, check=True)
            results["mask"] = json.loads(out.read_text())
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
