"""A quantized tensor's scale with its layout and format attached.

/// A strided scale could travel as a bare NumPy view (its strides say its
/// layout), but a padded one (pack = 4, swizzle_32_4_4, cdna4_mx) is a flat
/// byte buffer whose meaning lives nowhere else: Scale keeps layout, logical
/// shape and scale type with the bytes so that check() and gemm_v2() can
/// never read it as something it is not.
"""

import numpy as np

from . import codes
from .layouts import Layout

_SCALE_DTYPES = {0: np.float32, 1: np.uint8, 2: np.uint8}


class Scale:
    """/// `data` is the [M, G] view (strided layouts) or the whole flat
    /// allocation (padded layouts); `shape` is always the logical [M, G]."""

    def __init__(self, data, layout, shape, scale_type="f32",
                 q_type="f8E4M3FN", group_size=128, global_scale=None):
        if not isinstance(layout, Layout):
            raise ValueError(f"layout must be an fp8q Layout, got {layout!r}")
        self.scale_type = scale_type
        self.scale_type_code = codes.lookup(codes.SCALE_TYPES, scale_type,
                                            "scale type")
        self.q_type = q_type
        self.q_type_code = codes.lookup(codes.Q_TYPES, q_type, "q type")
        M, G = (int(shape[0]), int(shape[1]))
        dtype = _SCALE_DTYPES[self.scale_type_code]
        if not isinstance(data, np.ndarray) or data.dtype != dtype:
            raise ValueError(f"a {scale_type} scale's data must be a numpy "
                             f"{np.dtype(dtype).name} array")
        if layout.padded:
            if self.scale_type_code == 0:
                raise ValueError(f"{layout} holds 1-byte scales only, not f32")
            if data.ndim != 1 or data.size != layout.alloc(M, G):
                raise ValueError(f"a [{M}, {G}] scale in {layout} is a flat "
                                 f"array of {layout.alloc(M, G)} bytes")
        elif data.shape != (M, G):
            raise ValueError(f"scale data has shape {data.shape}, expected "
                             f"{(M, G)}")
        self.data = data
        self.layout = layout
        self.shape = (M, G)
        self.group_size = int(group_size)
        self.global_scale = global_scale

    def logical(self):
        """/// The [M, G] scale values (f32) or codes (uint8), dense row-major."""
        if self.layout.padded:
            return self.layout.to_logical(self.data, *self.shape)
        return np.ascontiguousarray(self.data)

    def __repr__(self):
        return (f"Scale({self.shape[0]}x{self.shape[1]}x{self.scale_type}, "
                f"{self.layout}, q={self.q_type}, group={self.group_size})")


def empty_scale(M, G, layout, scale_type_code):
    """/// Zeroed storage for an [M, G] scale in `layout`: the [M, G] view
    /// (a transposed one for col_major) or the flat padded allocation."""
    dtype = _SCALE_DTYPES[scale_type_code]
    if layout.padded:
        return np.zeros(layout.alloc(M, G), dtype=dtype)
    if layout.kind == "col_major":
        ld = layout.strides(M, G)[1]
        return np.zeros((G, ld), dtype=dtype)[:, :M].T
    return np.zeros((M, G), dtype=dtype)
