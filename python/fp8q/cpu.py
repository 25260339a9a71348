"""quantize / materialize / preshuffle / gemm on NumPy arrays.

/// Thin wrappers over libfp8q_runtime_cpu.so's plain C API (fp8q_*, which
/// return a status instead of exiting). Shapes and dtypes are validated
/// here first, so bad input is a ValueError naming the argument, never a
/// crash; the runtime's own checks still run and their status becomes an
/// Fp8qRuntimeError / ContractError.
"""

import numpy as np

from . import _lib, _memref, bf16, codes
from ._memref import I32, I64, P0, P2
from .layouts import as_layout
from .scale import Scale, empty_scale


def _act_suffix(x, act):
    """/// The activation entry-point suffix for x's dtype."""
    if not isinstance(x, np.ndarray) or x.ndim != 2:
        raise ValueError("x must be a 2-D numpy array [M, K]")
    if act == "bf16" or (act is None and x.dtype == np.uint16):
        if x.dtype != np.uint16:
            raise ValueError("act='bf16' needs x as uint16 bf16 bits "
                             "(fp8q.bf16.from_f32)")
        return "bf16"
    if act is not None and act not in ("f16", "f32"):
        raise ValueError(f"act must be 'bf16', 'f16' or 'f32', got {act!r}")
    if x.dtype == np.float32:
        return "f32"
    if x.dtype == np.float16:
        return "f16"
    raise ValueError(f"x must be float32, float16 or uint16 (bf16 bits), "
                     f"got {x.dtype}")


def _check_2d(a, name, dtype, shape=None):
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D numpy array")
    if a.dtype != dtype:
        raise ValueError(f"{name} must have dtype {np.dtype(dtype).name}, "
                         f"got {a.dtype}")
    if shape is not None and a.shape != tuple(shape):
        raise ValueError(f"{name} has shape {a.shape}, expected "
                         f"{tuple(shape)}")


def _group(K, group_size):
    if not isinstance(group_size, (int, np.integer)) or group_size < 1 or \
            K % group_size:
        raise ValueError(f"group_size {group_size!r} must be a positive "
                         f"divisor of K = {K}")
    return K // int(group_size)


def _nonempty(M, K):
    if M < 1 or K < 1:
        raise ValueError(f"empty operand [{M}, {K}] (M and K must be >= 1)")


def quantize(x, group_size=128, layout="row_major", align=None,
             fp8_type="f8E4M3FN", act=None):
    """/// FP8 1x128-style quantize of x [M, K]: returns (q uint8 [M, K],
    /// scale float32 [M, K/group]) with the scale written straight into
    /// `layout` (row_major, or col_major [align]: a transposed view, the
    /// fused column-major write)."""
    suffix = _act_suffix(x, act)
    lay = as_layout(layout, align)
    if lay.padded:
        raise ValueError(f"{lay} holds 1-byte scales; use quantize_v2 with "
                         f"an e8m0 / e4m3 format")
    M, K = x.shape
    _nonempty(M, K)
    G = _group(K, group_size)
    fp8 = codes.lookup(codes.Q_TYPES, fp8_type, "fp8 type")
    if fp8 > 1:
        raise ValueError("fp8_type must be f8E4M3FN or f8E4M3FNUZ "
                         "(quantize_v2 has the others)")
    q = np.zeros((M, K), dtype=np.uint8)
    scale = empty_scale(M, G, lay, 0)
    dx, dq, ds = (_memref.of_array(x, "x"), _memref.of_array(q, "q"),
                  _memref.of_array(scale, "scale"))
    _lib.call(_lib.cpu(), f"fp8q_quantize_{suffix}", [P2, P2, P2, I64, I32],
              dx, dq, ds, int(group_size), fp8)
    return q, scale


def materialize(scale, layout, align=None):
    """/// A copy of the f32 scale [M, G] (any strides) in `layout`."""
    _check_2d(scale, "scale", np.float32)
    lay = as_layout(layout, align)
    if lay.padded:
        raise ValueError(f"{lay} holds 1-byte scales; use materialize_v2")
    M, G = scale.shape
    _nonempty(M, G)
    dst = empty_scale(M, G, lay, 0)
    _lib.call(_lib.cpu(), "fp8q_materialize", [P2, P2],
              _memref.of_array(scale, "scale"), _memref.of_array(dst, "dst"))
    return dst


def preshuffle(w):
    """/// SPEC's preshuffle_16x16 of a plain fp8 weight [N, K] (uint8), as
    /// the dense bytes ck_bpreshuffle reads. N % 16 == 0, K % 32 == 0."""
    _check_2d(w, "w", np.uint8)
    N, K = w.shape
    if N % 16 or K % 32 or N == 0 or K == 0:
        raise ValueError(f"preshuffle needs N % 16 == 0 and K % 32 == 0, "
                         f"got [{N}, {K}]")
    dst = np.zeros((N, K), dtype=np.uint8)
    _lib.call(_lib.cpu(), "fp8q_preshuffle", [P2, P2],
              _memref.of_array(w, "w"), _memref.of_array(dst, "dst"))
    return dst


def unpreshuffle(w):
    """/// The inverse of preshuffle (dense permuted -> plain [N, K])."""
    _check_2d(w, "w", np.uint8)
    N, K = w.shape
    if N % 16 or K % 32 or N == 0 or K == 0 or not w.flags.c_contiguous:
        raise ValueError("unpreshuffle needs a dense [N, K] uint8 array, "
                         "N % 16 == 0, K % 32 == 0")
    dst = np.zeros((N, K), dtype=np.uint8)
    _lib.call(_lib.cpu(), "fp8q_unpreshuffle", [P2, P2],
              _memref.of_array(w, "w"), _memref.of_array(dst, "dst"))
    return dst


def gemm(q, x_scale, w, w_scale, kernel="reference", fp8_type="f8E4M3FN",
         weight_layout="plain", raw_bf16=False):
    """/// out [M, N] = block-scaled q @ w^T, read exactly as `kernel` reads
    /// its buffers (its x_scale contract is checked first). Returns float32
    /// (the bf16 result widened) or, with raw_bf16, the uint16 bf16 bits."""
    _check_2d(q, "q", np.uint8)
    M, K = q.shape
    _nonempty(M, K)
    _check_2d(x_scale, "x_scale", np.float32)
    if x_scale.shape[0] != M or x_scale.shape[1] < 1 or K % x_scale.shape[1]:
        raise ValueError(f"x_scale has shape {x_scale.shape}; expected [M = "
                         f"{M}, G] with G dividing K = {K}")
    G = x_scale.shape[1]
    _check_2d(w, "w", np.uint8)
    if w.shape[1] != K or w.shape[0] < 1:
        raise ValueError(f"w has shape {w.shape}, expected [N, K = {K}]")
    N = w.shape[0]
    _check_2d(w_scale, "w_scale", np.float32, ((N + 127) // 128, G))
    kid = codes.lookup(codes.KERNELS, kernel, "kernel")
    fp8 = codes.lookup(codes.Q_TYPES, fp8_type, "fp8 type")
    if fp8 > 1:
        raise ValueError("fp8_type must be f8E4M3FN or f8E4M3FNUZ")
    wl = codes.lookup(codes.WEIGHT_LAYOUTS, weight_layout, "weight layout")
    out = np.zeros((M, N), dtype=np.uint16)
    _lib.call(_lib.cpu(), "fp8q_gemm", [P2] * 5 + [I32, I32, I32],
              _memref.of_array(q, "q"), _memref.of_array(x_scale, "x_scale"),
              _memref.of_array(w, "w"), _memref.of_array(w_scale, "w_scale"),
              _memref.of_array(out, "out"), kid, fp8, wl)
    return out if raw_bf16 else bf16.to_f32(out)


#===--- block-scaled formats (v2) ----------------------------------------===#


def _scale_descriptor(s, name):
    if not isinstance(s, Scale):
        raise ValueError(f"{name} must be an fp8q.Scale (from quantize_v2 "
                         f"or materialize_v2)")
    if s.layout.padded:
        return _memref.padded(s.data, *s.shape)
    return _memref.of_array(s.data, name)


def _global(value, needed):
    """/// (descriptor pointer or None, keepalive) of NVFP4's global scale."""
    if not needed:
        return None, None
    if value is None:
        raise ValueError("NVFP4 (f8E4M3FN scales) needs global_scale, a "
                         "finite positive float")
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"global_scale must be finite and positive, got "
                         f"{value}")
    d, box = _memref.scalar(value)
    return d, box


def _q_cols(K, q_code):
    if q_code == codes.Q_TYPES["f4E2M1FN"]:
        if K % 2:
            raise ValueError(f"f4E2M1FN needs an even K, got {K}")
        return K // 2
    return K


def quantize_v2(x, format="mxfp8", layout="row_major", align=None,
                group_size=None, rounding=None, q_type=None, scale_type=None,
                global_scale=None, act=None):
    """/// Quantize x [M, K] into a SPEC v2 format ("fp8", "ue8m0", "mxfp8",
    /// "mxfp4", "nvfp4"; q_type / scale_type / rounding / group_size
    /// override its defaults) with the scale in any layout. Returns (q, Scale):
    /// q is uint8 [M, K] (fp8) or [M, K/2] (f4E2M1FN, low nibble first)."""
    suffix = _act_suffix(x, act)
    fq, fs, fr, fg = codes.lookup(codes.FORMATS, format, "format")
    q_type, scale_type = q_type or fq, scale_type or fs
    rounding, group_size = rounding or fr, group_size or fg
    qc = codes.lookup(codes.Q_TYPES, q_type, "q type")
    sc = codes.lookup(codes.SCALE_TYPES, scale_type, "scale type")
    rc = codes.lookup(codes.ROUNDINGS, rounding, "scale rounding")
    lay = as_layout(layout, align)
    M, K = x.shape
    _nonempty(M, K)
    G = _group(K, group_size)
    q = np.zeros((M, _q_cols(K, qc)), dtype=np.uint8)
    sdata = empty_scale(M, G, lay, sc)
    scale = Scale(sdata, lay, (M, G), scale_type, q_type, group_size,
                  global_scale)
    gd, keep = _global(global_scale, sc == codes.SCALE_TYPES["f8E4M3FN"])
    _lib.call(_lib.cpu(), f"fp8q_quantize_v2_{suffix}",
              [P2, P2, P2, P0, I64, I32, I32, I32, I32, I64],
              _memref.of_array(x, "x"), _memref.of_array(q, "q"),
              _scale_descriptor(scale, "scale"), gd, int(group_size), qc, sc,
              rc, lay.code, lay.align)
    del keep
    return q, scale


def dequantize_v2(q, scale):
    """/// decode(q) * scale (* global for NVFP4) as float32 [M, K]."""
    if not isinstance(scale, Scale):
        raise ValueError("scale must be an fp8q.Scale")
    M, G = scale.shape
    K = G * scale.group_size
    _check_2d(q, "q", np.uint8, (M, _q_cols(K, scale.q_type_code)))
    out = np.zeros((M, K), dtype=np.float32)
    gd, keep = _global(scale.global_scale,
                       scale.scale_type_code == codes.SCALE_TYPES["f8E4M3FN"])
    _lib.call(_lib.cpu(), "fp8q_dequantize_v2",
              [P2, P2, P0, P2, I64, I32, I32, I32, I64],
              _memref.of_array(q, "q"), _scale_descriptor(scale, "scale"), gd,
              _memref.of_array(out, "out"), scale.group_size,
              scale.q_type_code, scale.scale_type_code, scale.layout.code,
              scale.layout.align)
    del keep
    return out


def materialize_v2(scale, layout, align=None):
    """/// The same scale re-stored in another v2 layout (bytes unchanged,
    /// a padded destination's padding 0)."""
    if not isinstance(scale, Scale):
        raise ValueError("scale must be an fp8q.Scale")
    lay = as_layout(layout, align)
    M, G = scale.shape
    dst = Scale(empty_scale(M, G, lay, scale.scale_type_code), lay, (M, G),
                scale.scale_type, scale.q_type, scale.group_size,
                scale.global_scale)
    _lib.call(_lib.cpu(), "fp8q_materialize_v2",
              [P2, P2, I32, I32, I64, I32, I64],
              _scale_descriptor(scale, "src"), _scale_descriptor(dst, "dst"),
              scale.scale_type_code, scale.layout.code, scale.layout.align,
              lay.code, lay.align)
    return dst


def gemm_v2(q, x_scale, w, w_scale, kernel="reference", weight_layout="plain",
            global_scale=None, raw_bf16=False):
    """/// The v2 block-scaled GEMM (fp8q_gemm_v2): the format is x_scale's
    /// (q type, scale type, group size); NVFP4's global_scale is the product
    /// of both operands' global scales (default: taken from the Scales)."""
    if not isinstance(x_scale, Scale) or not isinstance(w_scale, Scale):
        raise ValueError("x_scale and w_scale must be fp8q.Scale objects")
    if (x_scale.q_type, x_scale.scale_type, x_scale.group_size) != \
            (w_scale.q_type, w_scale.scale_type, w_scale.group_size):
        raise ValueError(f"x_scale {x_scale} and w_scale {w_scale} are of "
                         f"different formats")
    M, G = x_scale.shape
    K = G * x_scale.group_size
    kc = _q_cols(K, x_scale.q_type_code)
    _check_2d(q, "q", np.uint8, (M, kc))
    _check_2d(w, "w", np.uint8)
    if w.shape[1] != kc or w.shape[0] < 1:
        raise ValueError(f"w has shape {w.shape}, expected [N, {kc}]")
    N = w.shape[0]
    kid = codes.lookup(codes.KERNELS, kernel, "kernel")
    wl = codes.lookup(codes.WEIGHT_LAYOUTS, weight_layout, "weight layout")
    nvfp4 = x_scale.scale_type_code == codes.SCALE_TYPES["f8E4M3FN"]
    if nvfp4 and global_scale is None and x_scale.global_scale is not None \
            and w_scale.global_scale is not None:
        global_scale = x_scale.global_scale * w_scale.global_scale
    gd, keep = _global(global_scale, nvfp4)
    out = np.zeros((M, N), dtype=np.uint16)
    _lib.call(_lib.cpu(), "fp8q_gemm_v2",
              [P2, P2, P2, P2, P0, P2, I64, I32, I32, I32, I32, I64, I32, I64,
               I32],
              _memref.of_array(q, "q"), _scale_descriptor(x_scale, "x_scale"),
              _memref.of_array(w, "w"), _scale_descriptor(w_scale, "w_scale"),
              gd, _memref.of_array(out, "out"), x_scale.group_size, kid,
              x_scale.q_type_code, x_scale.scale_type_code,
              x_scale.layout.code, x_scale.layout.align, w_scale.layout.code,
              w_scale.layout.align, wl)
    del keep
    return out if raw_bf16 else bf16.to_f32(out)
