"""SPEC's scale layouts as objects.

/// Where element (m, g) of a logical [M, G] scale lives and how many
/// elements a layout allocates: a port of include/fp8q/Runtime/
/// fp8q_scale_layouts.h (static inline there, so not exported by the
/// library). tests/test_layouts.py checks it against hand-computed cases
/// and against the bytes the C runtime's materialize_v2 writes.
"""

import numpy as np

from . import codes


def _roundup(x, a):
    return (x + a - 1) // a * a


class Layout:
    """/// One physical layout of an [M, G] scale (`align` for col_major and
    /// col_major pack = 4, else 1)."""

    __slots__ = ("kind", "align")

    def __init__(self, kind, align=1):
        codes.lookup(codes.LAYOUT_CODES, kind, "scale layout")
        if not isinstance(align, (int, np.integer)) or isinstance(align, bool):
            raise ValueError(f"align must be an int, got {align!r}")
        align = int(align)
        if align < 1 or align > 1 << 20:
            raise ValueError(f"align {align} is not in [1, 2^20]")
        if align != 1 and kind not in ("col_major", "col_major_pack4"):
            raise ValueError(f"{kind} takes no align (got {align})")
        self.kind = kind
        self.align = align

    @property
    def code(self):
        """/// The fp8q_scale_layout code (ABI)."""
        return codes.LAYOUT_CODES[self.kind]

    @property
    def padded(self):
        """/// True for the layouts no strides describe (1-byte scales only)."""
        return self.kind in ("col_major_pack4", "swizzle_32_4_4", "cdna4_mx")

    def strides(self, M, G):
        """/// Element strides (s0, s1) of a strided layout; None if padded."""
        if self.kind == "row_major":
            return (G, 1)
        if self.kind == "col_major":
            return (1, _roundup(M, self.align))
        return None

    def alloc(self, M, G):
        """/// Elements the layout allocates, padding included."""
        a = self.align
        if self.kind == "col_major":
            return _roundup(M, a) * G
        if self.kind == "col_major_pack4":
            return _roundup(G, 4) * _roundup(M, a)
        if self.kind == "swizzle_32_4_4":
            return _roundup(M, 128) * _roundup(G, 4)
        if self.kind == "cdna4_mx":
            return _roundup(M, 256) * _roundup(G, 8)
        return M * G

    def offset(self, M, G, m, g):
        """/// Element offset of (m, g); m and g may be NumPy integer arrays."""
        if self.kind == "col_major":
            return g * _roundup(M, self.align) + m
        if self.kind == "col_major_pack4":
            return ((g // 4) * _roundup(M, self.align) + m) * 4 + g % 4
        if self.kind == "swizzle_32_4_4":
            tile = (m // 128) * (_roundup(G, 4) // 4) + g // 4
            return tile * 512 + (m % 32) * 16 + ((m % 128) // 32) * 4 + g % 4
        if self.kind == "cdna4_mx":
            a, b, c = m // 32, (m // 16) % 2, m % 16
            d, e, f = g // 8, (g // 4) % 2, g % 4
            return ((((a * (_roundup(G, 8) // 8) + d) * 4 + f) * 16 + c) * 2
                    + e) * 2 + b
        return m * G + g

    def offsets(self, M, G):
        """/// The [M, G] array of every element's offset."""
        m, g = np.meshgrid(np.arange(M, dtype=np.int64),
                           np.arange(G, dtype=np.int64), indexing="ij")
        return self.offset(M, G, m, g)

    def to_logical(self, buf, M, G):
        """/// The [M, G] values of a flat buffer in this layout."""
        flat = np.asarray(buf).reshape(-1)
        if flat.size < self.alloc(M, G):
            raise ValueError(f"a [{M}, {G}] scale in {self} needs "
                             f"{self.alloc(M, G)} elements, got {flat.size}")
        return flat[self.offsets(M, G)]

    def from_logical(self, values):
        """/// A flat buffer in this layout holding `values` [M, G], padding 0."""
        values = np.asarray(values)
        if values.ndim != 2:
            raise ValueError("from_logical needs a 2-D [M, G] array")
        M, G = values.shape
        buf = np.zeros(self.alloc(M, G), dtype=values.dtype)
        buf[self.offsets(M, G)] = values
        return buf

    def spec(self):
        """/// The SPEC attribute spelling, e.g. #fp8q.layout<col_major, align = 4>."""
        if self.kind == "col_major_pack4":
            return f"#fp8q.layout<col_major, align = {self.align}, pack = 4>"
        if self.kind == "col_major" and self.align > 1:
            return f"#fp8q.layout<col_major, align = {self.align}>"
        return f"#fp8q.layout<{self.kind}>"

    def __eq__(self, other):
        return isinstance(other, Layout) and (self.kind, self.align) == \
            (other.kind, other.align)

    def __hash__(self):
        return hash((self.kind, self.align))

    def __repr__(self):
        if self.align > 1:
            return f"{self.kind}(align={self.align})"
        return self.kind


row_major = Layout("row_major")
col_major = Layout("col_major")
swizzle_32_4_4 = Layout("swizzle_32_4_4")
cdna4_mx = Layout("cdna4_mx")


def col_major_aligned(align):
    """/// col_major with leading dimension roundup(M, align) (DeepGEMM: 4)."""
    return Layout("col_major", align)


def pack4(align=1):
    """/// col_major, align = a, pack = 4 (DeepGEMM sm100 packed UE8M0)."""
    return Layout("col_major_pack4", align)


def as_layout(layout, align=None):
    """/// A Layout from a Layout or a name ("col_major", "pack4", ...)."""
    if isinstance(layout, Layout):
        if align is not None and align != layout.align:
            return Layout(layout.kind, align)
        return layout
    if layout == "pack4":
        layout = "col_major_pack4"
    return Layout(layout, 1 if align is None else align)
