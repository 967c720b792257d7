#!/usr/bin/env python3
"""Online serving benchmark against a running `pagoda serve` (or any
OpenAI-compatible server), like `vllm bench serve` at fixed concurrency:
streaming completions of random token-id prompts, reporting request and token
throughput and TTFT, TPOT, ITL and end-to-end latency (mean, median, p99).
Superseded by `pagoda bench serve`, which follows vLLM's flags and metrics.

    .venv/bin/python bench/serve_bench.py --base-url http://127.0.0.1:8000 \\
        --num-prompts 200 --concurrency 32 --input-len-range 64 512 --output-len 128
"""

import argparse
import asyncio
import json
import random
import statistics
import time

import httpx
import openai


def percentile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summary(values, scale=1000.0):
    return {"mean": statistics.fmean(values) * scale, "median": percentile(values, 50) * scale,
            "p99": percentile(values, 99) * scale}


async def one_request(client, model, prompt, output_len):
    start = time.perf_counter()
    ttft, times, tokens = None, [], 0
    stream = await client.completions.create(model=model, prompt=prompt, max_tokens=output_len, temperature=0,
                                             stream=True, stream_options={"include_usage": True},
                                             extra_body={"ignore_eos": True})
    async for chunk in stream:
        now = time.perf_counter()
        if chunk.usage is not None:
            tokens = chunk.usage.completion_tokens
        if chunk.choices and chunk.choices[0].text:
            if ttft is None:
                ttft = now - start
            times.append(now)
    end = time.perf_counter()
    itl = [b - a for a, b in zip(times, times[1:])]
    return {"ttft": ttft, "e2e": end - start, "itl": itl, "output_tokens": tokens, "prompt_tokens": len(prompt),
            "tpot": (end - start - ttft) / max(tokens - 1, 1) if ttft is not None else None}


async def run(args):
    vocab = httpx.post(args.base_url + "/tokenize", json={"prompt": "x"}).status_code  # fails fast if not up
    assert vocab == 200, "server not ready"
    model = httpx.get(args.base_url + "/v1/models").json()["data"][0]["id"]
    rng = random.Random(args.seed)
    # Token ids from the ordinary vocabulary (SmolLM2's specials are below 17).
    prompts = [[rng.randrange(100, 40000) for _ in range(rng.randint(*args.input_len_range))]
               for _ in range(args.num_prompts)]
    client = openai.AsyncOpenAI(base_url=args.base_url + "/v1", api_key="bench", max_retries=0, timeout=3600)
    semaphore = asyncio.Semaphore(args.concurrency)

    async def limited(prompt):
        async with semaphore:
            return await one_request(client, model, prompt, args.output_len)

    start = time.perf_counter()
    results = await asyncio.gather(*(limited(p) for p in prompts))
    duration = time.perf_counter() - start
    out_tokens = sum(r["output_tokens"] for r in results)
    in_tokens = sum(r["prompt_tokens"] for r in results)
    report = {
        "num_prompts": args.num_prompts, "concurrency": args.concurrency, "duration_s": duration,
        "request_throughput": args.num_prompts / duration, "output_throughput": out_tokens / duration,
        "total_token_throughput": (in_tokens + out_tokens) / duration,
        "total_input_tokens": in_tokens, "total_output_tokens": out_tokens,
        "ttft_ms": summary([r["ttft"] for r in results]),
        "tpot_ms": summary([r["tpot"] for r in results]),
        "itl_ms": summary([x for r in results for x in r["itl"]]),
        "e2el_ms": summary([r["e2e"] for r in results]),
    }
    print(json.dumps(report, indent=2))
    if args.output_json:
        with open(args.output_json, "w") as f:
            json.dump(report, f, indent=2)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base-url", default="http://127.0.0.1:8000")
    p.add_argument("--num-prompts", type=int, default=200)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--input-len-range", type=int, nargs=2, default=[64, 512])
    p.add_argument("--output-len", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output-json")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
