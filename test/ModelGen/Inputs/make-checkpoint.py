#!/usr/bin/env python3
"""Writes small FP8 checkpoints (safetensors) for the checkpoint tests.

Standard library only (struct + json). Subcommands:

  model CONFIG DIR [--shards N] [--layers N] [--drop NAME] [--dtype NAME=DT]
        [--shape NAME=D0,D1] [--extra NAME=DT:D0,D1] [--truncate] [--zeros]
      The tensors of an MLA (deepseek_v3/v32) or GQA config.json as the
      Hugging Face checkpoint names them: FP8 e4m3 weights [N, K] with f32
      block scales weight_scale_inv [ceil(N/128), ceil(K/128)], bf16 norms,
      and a few bf16 tensors fp8q does not model (embeddings, router).
      The mutations break it for the error tests.

  gemm DIR EXPECTED [--zeros] [--m 16] [--n 128] [--k 256]
      One linear layer for test/Runner/Inputs/named-gemm.mlir: input bf16
      [M, K] (each 1x128 group's amax 448, so its quantization scale is 1),
      model.layers.0.mlp.down_proj.weight e4m3 [N, K] and its scale, and
      EXPECTED: the step's output as raw little-endian f32 [M, N], computed
      here independently (every product and sum exact in f32, one bf16
      rounding at the end).

  compare A B
      Compares two raw f32 files; prints "equal N", or the first difference.

  zero A
      Prints "all zero N" if the raw f32 file holds only zeros.

  cosine A B MIN
      Prints "cosine above MIN" if the cosine similarity of two raw f32
      files is at least MIN, else the cosine (and exits 1).
"""

import argparse
import json
import math
import os
import struct
import sys

BLOCK = 128
DTYPE_BYTES = {"F8_E4M3": 1, "F8_E5M2": 1, "U8": 1, "BF16": 2, "F16": 2,
               "F32": 4, "I64": 8}
# e4m3fn codes of 0, +-0.5, +-1, +-2.
E4M3 = {0.0: 0x00, 0.5: 0x30, 1.0: 0x38, 2.0: 0x40,
        -0.5: 0xB0, -1.0: 0xB8, -2.0: 0xC0}


class Lcg:
    """A small deterministic generator (no `random` module state)."""

    def __init__(self, seed):
        self.state = seed

    def next(self, n):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) \
            % (1 << 64)
        return (self.state >> 33) % n


def bf16_bits(x):
    """fp32 -> bf16 bits, round to nearest even."""
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF


def bf16_value(x):
    return struct.unpack("<f", struct.pack("<I", bf16_bits(x) << 16))[0]


def tensor_bytes(dtype, shape, rng, zeros, kind):
    n = math.prod(shape)
    if zeros:
        return bytes(n * DTYPE_BYTES[dtype])
    if dtype in ("F8_E4M3", "F8_E5M2", "U8"):
        codes = list(E4M3.values())
        return bytes(codes[rng.next(len(codes))] for _ in range(n))
    if dtype == "F32":
        # Block scales: small powers of two.
        return b"".join(struct.pack("<f", 2.0 ** -(5 + rng.next(3)))
                        for _ in range(n))
    if dtype == "BF16":
        one = 1.0 if kind == "norm" else 0.0
        return b"".join(struct.pack("<H", bf16_bits(one + 0.01 * rng.next(8)))
                        for _ in range(n))
    return bytes(n * DTYPE_BYTES[dtype])


def fp8_linear(tensors, name, n, k):
    tensors[name + ".weight"] = ("F8_E4M3", [n, k], "weight")
    tensors[name + ".weight_scale_inv"] = (
        "F32", [-(-n // BLOCK), -(-k // BLOCK)], "scale")


def model_tensors(config, layers):
    """Name -> (dtype, shape, kind) of an MLA or GQA checkpoint."""
    c = config
    t = {}
    hidden = c["hidden_size"]
    t["model.embed_tokens.weight"] = ("BF16", [64, hidden], "bf16")
    t["model.norm.weight"] = ("BF16", [hidden], "norm")
    t["lm_head.weight"] = ("BF16", [64, hidden], "bf16")
    heads = c["num_attention_heads"]
    mla = "kv_lora_rank" in c
    routed = c.get("n_routed_experts", c.get("num_experts", 0))
    for l in range(layers):
        p = "model.layers.%d." % l
        t[p + "input_layernorm.weight"] = ("BF16", [hidden], "norm")
        t[p + "post_attention_layernorm.weight"] = ("BF16", [hidden], "norm")
        a = p + "self_attn."
        if mla:
            qk = c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
            kvl, rope = c["kv_lora_rank"], c["qk_rope_head_dim"]
            qlora = c.get("q_lora_rank")
            fp8_linear(t, a + "kv_a_proj_with_mqa", kvl + rope, hidden)
            t[a + "kv_a_layernorm.weight"] = ("BF16", [kvl], "norm")
            fp8_linear(t, a + "kv_b_proj",
                       heads * (c["qk_nope_head_dim"] + c["v_head_dim"]), kvl)
            if qlora:
                fp8_linear(t, a + "q_a_proj", qlora, hidden)
                t[a + "q_a_layernorm.weight"] = ("BF16", [qlora], "norm")
                fp8_linear(t, a + "q_b_proj", heads * qk, qlora)
            else:
                fp8_linear(t, a + "q_proj", heads * qk, hidden)
            if "index_n_heads" in c:
                ih, ihd = c["index_n_heads"], c["index_head_dim"]
                fp8_linear(t, a + "indexer.wq_b" if qlora else a +
                           "indexer.wq", ih * ihd, qlora or hidden)
                fp8_linear(t, a + "indexer.wk", ihd, hidden)
                t[a + "indexer.k_norm.weight"] = ("BF16", [ihd], "norm")
                t[a + "indexer.weights_proj.weight"] = ("BF16", [ih, hidden],
                                                        "bf16")
            fp8_linear(t, a + "o_proj", hidden, heads * c["v_head_dim"])
        else:
            hd = c.get("head_dim", hidden // heads)
            kv = c["num_key_value_heads"]
            fp8_linear(t, a + "q_proj", heads * hd, hidden)
            fp8_linear(t, a + "k_proj", kv * hd, hidden)
            fp8_linear(t, a + "v_proj", kv * hd, hidden)
            fp8_linear(t, a + "o_proj", hidden, heads * hd)
            if c.get("model_type") in ("qwen3", "qwen3_moe"):
                t[a + "q_norm.weight"] = ("BF16", [hd], "norm")
                t[a + "k_norm.weight"] = ("BF16", [hd], "norm")
        dense = routed == 0 or l < c.get("first_k_dense_replace", 0)

        def mlp(prefix, width):
            fp8_linear(t, prefix + "gate_proj", width, hidden)
            fp8_linear(t, prefix + "up_proj", width, hidden)
            fp8_linear(t, prefix + "down_proj", hidden, width)

        if dense:
            mlp(p + "mlp.", c["intermediate_size"])
        else:
            moe = c["moe_intermediate_size"]
            t[p + "mlp.gate.weight"] = ("BF16", [routed, hidden], "bf16")
            if c.get("n_shared_experts", 0):
                mlp(p + "mlp.shared_experts.", c["n_shared_experts"] * moe)
            for e in range(routed):
                mlp(p + "mlp.experts.%d." % e, moe)
    # modules_to_not_convert stay bf16, without a scale.
    keep = c.get("quantization_config", {}).get("modules_to_not_convert", [])
    for name in list(t):
        stem = name[:-len(".weight")] if name.endswith(".weight") else None
        if stem and any(stem == "model." + m or stem.endswith("." + m)
                        for m in keep):
            t[name] = ("BF16", t[name][1], "bf16")
            t.pop(stem + ".weight_scale_inv", None)
    return t


def write_safetensors(path, entries):
    """entries: list of (name, dtype, shape, bytes)."""
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, blob in entries:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_checkpoint(out, tensors, shards, rng, zeros):
    os.makedirs(out, exist_ok=True)
    names = sorted(tensors)
    entries = []
    for name in names:
        dtype, shape, kind = tensors[name]
        entries.append((name, dtype, shape,
                        tensor_bytes(dtype, shape, rng, zeros, kind)))
    if shards <= 1:
        write_safetensors(os.path.join(out, "model.safetensors"), entries)
        return [os.path.join(out, "model.safetensors")]
    per = -(-len(entries) // shards)
    weight_map, files = {}, []
    for s in range(shards):
        file = "model-%05d-of-%05d.safetensors" % (s + 1, shards)
        chunk = entries[s * per:(s + 1) * per]
        write_safetensors(os.path.join(out, file), chunk)
        files.append(os.path.join(out, file))
        for e in chunk:
            weight_map[e[0]] = file
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map},
                  f, indent=1, sort_keys=True)
    return files


def cmd_model(args):
    with open(args.config) as f:
        config = json.load(f)
    layers = args.layers or config["num_hidden_layers"]
    tensors = model_tensors(config, layers)
    for name in args.drop:
        del tensors[name]
    for spec in args.dtype:
        name, dtype = spec.split("=")
        tensors[name] = (dtype,) + tensors[name][1:]
    for spec in args.shape:
        name, dims = spec.split("=")
        old = tensors[name]
        tensors[name] = (old[0], [int(d) for d in dims.split(",")], old[2])
    for spec in args.extra:
        name, rest = spec.split("=")
        dtype, dims = rest.split(":")
        tensors[name] = (dtype, [int(d) for d in dims.split(",")], "weight")
    files = write_checkpoint(args.dir, tensors, args.shards, Lcg(7),
                             args.zeros)
    with open(os.path.join(args.dir, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    if args.truncate:
        with open(files[-1], "r+b") as f:
            f.truncate(os.path.getsize(files[-1]) - 3)


def cmd_gemm(args):
    m, n, k = args.m, args.n, args.k
    rng = Lcg(11)
    values = [0.0, 0.5, 1.0, 2.0, -0.5, -1.0, -2.0]
    # Activations: integers in [-3, 3], 448 at the start of every group so
    # the per-group scale is 448 / 448 = 1 and quantization is exact.
    x = [[448.0 if j % BLOCK == 0 else float(rng.next(7) - 3)
          for j in range(k)] for _ in range(m)]
    if args.zeros:
        w = [[0.0] * k for _ in range(n)]
        ws = [[1.0] * (k // BLOCK) for _ in range(-(-n // BLOCK))]
    else:
        w = [[values[rng.next(len(values))] for _ in range(k)]
             for _ in range(n)]
        ws = [[2.0 ** (rng.next(3) - 1) for _ in range(k // BLOCK)]
              for _ in range(-(-n // BLOCK))]
    entries = [
        ("input", "BF16", [m, k],
         b"".join(struct.pack("<H", bf16_bits(v)) for row in x for v in row)),
        ("model.layers.0.mlp.down_proj.weight", "F8_E4M3", [n, k],
         bytes(E4M3[v] for row in w for v in row)),
        ("model.layers.0.mlp.down_proj.weight_scale_inv", "F32",
         [len(ws), k // BLOCK],
         b"".join(struct.pack("<f", v) for row in ws for v in row)),
    ]
    os.makedirs(args.dir, exist_ok=True)
    write_safetensors(os.path.join(args.dir, "model.safetensors"), entries)
    out = []
    for i in range(m):
        for j in range(n):
            acc = 0.0
            for b in range(k // BLOCK):
                part = sum(x[i][c] * w[j][c]
                           for c in range(b * BLOCK, (b + 1) * BLOCK))
                acc += part * 1.0 * ws[j // BLOCK][b]
            out.append(bf16_value(acc))
    with open(args.expected, "wb") as f:
        f.write(struct.pack("<%df" % len(out), *out))


def read_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    return struct.unpack("<%df" % (len(data) // 4), data)


def cmd_compare(args):
    a, b = read_f32(args.a), read_f32(args.b)
    if len(a) != len(b):
        print("sizes differ: %d and %d" % (len(a), len(b)))
        return 1
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("differ at %d: %r and %r" % (i, x, y))
            return 1
    print("equal %d" % len(a))
    return 0


def cmd_zero(args):
    a = read_f32(args.a)
    nonzero = [v for v in a if v != 0.0]
    print("all zero %d" % len(a) if not nonzero else
          "%d nonzero of %d" % (len(nonzero), len(a)))
    return 0


def cmd_cosine(args):
    a, b = read_f32(args.a), read_f32(args.b)
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    cosine = dot / norm if norm else 0.0
    if len(a) == len(b) and cosine >= args.min:
        print("cosine above %s" % args.min)
        return 0
    print("cosine %f below %s" % (cosine, args.min))
    return 1


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("model")
    p.add_argument("config")
    p.add_argument("dir")
    p.add_argument("--shards", type=int, default=1)
    p.add_argument("--layers", type=int, default=0)
    p.add_argument("--drop", action="append", default=[])
    p.add_argument("--dtype", action="append", default=[])
    p.add_argument("--shape", action="append", default=[])
    p.add_argument("--extra", action="append", default=[])
    p.add_argument("--truncate", action="store_true")
    p.add_argument("--zeros", action="store_true")
    p = sub.add_parser("gemm")
    p.add_argument("dir")
    p.add_argument("expected")
    p.add_argument("--zeros", action="store_true")
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--n", type=int, default=128)
    p.add_argument("--k", type=int, default=256)
    p = sub.add_parser("compare")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("zero")
    p.add_argument("a")
    p = sub.add_parser("cosine")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("min", type=float)
    args = parser.parse_args()
    return {"model": cmd_model, "gemm": cmd_gemm, "compare": cmd_compare,
            "zero": cmd_zero, "cosine": cmd_cosine}[args.cmd](args) or 0


if __name__ == "__main__":
    sys.exit(main())
