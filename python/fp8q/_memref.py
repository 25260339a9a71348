"""MLIR strided memref descriptors (fp8q_memref_0d/1d/2d) for ctypes.

/// The runtime reads every operand through a descriptor {allocated, aligned,
/// offset, sizes, strides}; building it from an array's own strides is what
/// lets a transposed NumPy view *be* a column-major scale, with no copy.
"""

import ctypes

import numpy as np


class Memref2d(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 2),
                ("strides", ctypes.c_int64 * 2)]


class Memref0d(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64)]


P2 = ctypes.POINTER(Memref2d)
P0 = ctypes.POINTER(Memref0d)
I32, I64, F32, VP = ctypes.c_int32, ctypes.c_int64, ctypes.c_float, \
    ctypes.c_void_p


def raw2d(ptr, sizes, strides):
    """/// A descriptor of `sizes` elements at `ptr` with element `strides`."""
    d = Memref2d()
    d.allocated = d.aligned = ptr
    d.offset = 0
    d.sizes[0], d.sizes[1] = int(sizes[0]), int(sizes[1])
    d.strides[0], d.strides[1] = int(strides[0]), int(strides[1])
    return d


def element_strides(shape, byte_strides, itemsize, name):
    """/// Byte strides -> element strides; negative or misaligned ones are
    /// refused here (the runtime would refuse them too, less clearly)."""
    out = []
    for n, s in zip(shape, byte_strides):
        if n == 1:
            out.append(0 if s % itemsize else s // itemsize)
            continue
        if s < 0 or s % itemsize:
            raise ValueError(f"{name}: byte strides {tuple(byte_strides)} "
                             f"are not non-negative multiples of the "
                             f"{itemsize}-byte element")
        out.append(s // itemsize)
    return out


def of_array(a, name):
    """/// The descriptor of a 2-D NumPy array (any strides, no copy)."""
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D numpy array, got "
                         f"{_describe(a)}")
    return raw2d(a.ctypes.data, a.shape,
                 element_strides(a.shape, a.strides, a.itemsize, name))


def padded(buf, m, g):
    """/// A padded layout's descriptor: logical sizes, strides (0, 0), the
    /// whole flat allocation at `buf` (docs/RuntimeABI.md, v2)."""
    return raw2d(buf.ctypes.data, (m, g), (0, 0))


def scalar(value):
    """/// A rank-0 f32 memref holding `value`; returns (descriptor, keepalive)."""
    box = np.array([value], dtype=np.float32)
    d = Memref0d()
    d.allocated = d.aligned = box.ctypes.data
    d.offset = 0
    return d, box


def _describe(a):
    if isinstance(a, np.ndarray):
        return f"an array of shape {a.shape} and dtype {a.dtype}"
    return f"a {type(a).__name__}"
