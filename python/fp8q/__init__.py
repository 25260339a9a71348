"""fp8q: block-scaled FP8 / MX / NVFP4 quantization layouts from Python.

/// Pure Python over the fp8q runtime's C ABI (ctypes): NumPy arrays go
/// through libfp8q_runtime_cpu.so, GPU tensors (fp8q.gpu) through
/// libfp8q_runtime_cuda.so / _hip.so. A scale's layout is its strides (or,
/// for the padded layouts, an fp8q.Scale), and fp8q.check says before any
/// kernel runs whether a kernel reads it as it is stored.
"""

from . import bf16, gpu, layouts
from .copies import analyze, format_table
from .contracts import check
from .cpu import (dequantize_v2, gemm, gemm_v2, materialize, materialize_v2,
                  preshuffle, quantize, quantize_v2, unpreshuffle)
from .errors import (ContractError, Fp8qError, Fp8qRuntimeError,
                     LibraryNotFoundError)
from .layouts import (Layout, cdna4_mx, col_major, col_major_aligned, pack4,
                      row_major, swizzle_32_4_4)
from .scale import Scale

__version__ = "0.1.0"

__all__ = [
    "ContractError", "Fp8qError", "Fp8qRuntimeError", "Layout",
    "LibraryNotFoundError", "Scale", "analyze", "bf16", "cdna4_mx", "check",
    "col_major", "col_major_aligned", "dequantize_v2", "format_table", "gemm",
    "gemm_v2", "gpu", "layouts", "materialize", "materialize_v2", "pack4",
    "preshuffle", "quantize", "quantize_v2", "row_major", "swizzle_32_4_4",
    "unpreshuffle",
]
