"""bfloat16 <-> float32 for NumPy, which has no bf16 dtype.

/// bf16 values travel as uint16 bits (what the runtime reads and writes);
/// rounding is round-to-nearest-even, as fp8q_numerics.h's fp8q_f32_to_bf16.
"""

import numpy as np


def from_f32(x):
    """/// float32 array -> uint16 bf16 bits (RNE; NaN stays a quiet NaN)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    rounded = np.where(nan, (bits >> 16) | 0x40, rounded)
    return rounded.astype(np.uint16)


def to_f32(bits):
    """/// uint16 bf16 bits -> float32 (exact)."""
    b = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return b.view(np.float32)
