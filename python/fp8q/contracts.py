"""fp8q.check: does a scale array meet a kernel's contract?

/// The historical failure was a row-major scale handed to a kernel that
/// reads column-major: right values, scrambled reads, no error. check()
/// asks the C runtime's contract table (fp8q_check_scale, the same table
/// the compiler and the GEMM entry points read) before any kernel runs, and
/// says what the kernel reads and how to produce it.
"""

import ctypes

import numpy as np

from . import _lib, codes
from ._memref import element_strides
from .errors import ContractError
from .layouts import Layout
from .scale import Scale

_OPERANDS = {"x_scale": 0, "w_scale": 1}


def _strided_layout(M, G, s0, s1):
    """/// The SPEC layout a strided [M, G] array is in (for messages and the
    /// layout code passed to C), from its element strides."""
    if (M == 1 or s0 == G) and (G == 1 or s1 == 1):
        return Layout("row_major")
    if (M == 1 or s0 == 1) and (G == 1 or s1 >= M):
        # ld = s1: col_major with align = ld is the layout whose ld it is.
        ld = s1 if G > 1 else M
        return Layout("col_major", ld if ld != M and ld <= 1 << 20 else 1)
    return None


def _fix_hint(kernel, operand, want):
    if operand != "x_scale":
        return (f"store w_scale as {want} (fp8q.materialize_v2(scale, "
                f"layout=...)) once at load time")
    layout = want.split(" (")[0]
    if layout.startswith("in a strided"):
        arg = "layout='row_major'"
    elif layout.startswith("col_major align"):
        arg = f"layout='col_major', align={layout.split()[-1]}"
    elif layout == "col_major pack = 4":
        arg = "layout='pack4', align=4"
    else:
        arg = f"layout='{layout.split()[0]}'"
    return (f"quantize with fp8q.quantize(x, {arg}) (or quantize_v2(..., "
            f"{arg})), or copy it once with fp8q.materialize(scale, {arg})")


def check(kernel, scale, operand="x_scale"):
    """/// Raises ContractError when `scale` (a 2-D float32 / uint8 NumPy array,
    /// whose strides are its layout, or an fp8q.Scale, which names its
    /// layout) is not in the layout `kernel` reads for `operand` ("x_scale"
    /// or "w_scale"); returns None when it is."""
    kid = codes.lookup(codes.KERNELS, kernel, "kernel")
    op = codes.lookup(_OPERANDS, operand, "operand")
    if isinstance(scale, Scale):
        lay, (M, G) = scale.layout, scale.shape
        data = scale.data
    elif isinstance(scale, np.ndarray):
        if scale.ndim != 2:
            raise ValueError(f"scale must be a 2-D [M, G] array (or an "
                             f"fp8q.Scale), got shape {scale.shape}")
        if scale.dtype not in (np.float32, np.uint8):
            raise ValueError(f"scale must be float32 or uint8 (1-byte e8m0 / "
                             f"e4m3 codes), got {scale.dtype}")
        M, G = scale.shape
        lay, data = None, scale
    else:
        raise ValueError(f"scale must be a numpy array or an fp8q.Scale, got "
                         f"{type(scale).__name__}")
    if M < 1 or G < 1:
        raise ValueError(f"scale is empty ([{M}, {G}])")
    s0 = s1 = 0
    if lay is None or not lay.padded:
        s0, s1 = element_strides(data.shape, data.strides, data.itemsize,
                                 "scale")
        if lay is None:
            lay = _strided_layout(M, G, s0, s1) or Layout("row_major")
    lib = _lib.cpu()
    fn = lib.fp8q_check_scale
    fn.argtypes = [ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                   ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                   ctypes.c_int64, ctypes.c_int64]
    fn.restype = ctypes.c_int32
    status = fn(kid, op, lay.code, lay.align, M, G, s0, s1)
    if status == 0:
        return None
    msg = lib.fp8q_last_error().decode(errors="replace")
    if status != codes.FP8Q_ERR_CONTRACT:
        _lib.raise_status(lib, status, msg.encode())
    reads = msg.split(" reads ", 1)[1].split(" but ", 1)[0]
    want = reads.split(" ", 1)[1] if " " in reads else reads
    raise ContractError(status, codes.STATUS_NAMES[status],
                        f"{msg}. The array is {_describe(lay, s0, s1, data)}"
                        f"; fix: {_fix_hint(kernel, operand, want)}")


def _describe(lay, s0, s1, data):
    if lay.padded:
        return f"a {lay} buffer"
    c = " (C-contiguous)" if data.flags.c_contiguous else ""
    return f"{lay}{c} with element strides ({s0}, {s1})"
