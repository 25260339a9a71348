"""fp8q on GPU tensors (libfp8q_runtime_cuda.so / _hip.so).

/// The device entry points (`_mlir_ciface_fp8q_rt_device_*`) take the host
/// ABI's descriptors over device pointers plus a stream, enqueue, and
/// never synchronize or exit; errors are sticky per thread. Tensors come
/// in through `__cuda_array_interface__` or DLPack (any framework), outputs
/// are caller-allocated device tensors, so this module allocates nothing.
/// It is not exercised without a GPU: tests/test_gpu.py skips then.
"""

import ctypes

from . import _lib, codes
from ._memref import I32, I64, P2, VP, raw2d
from .layouts import as_layout

# DLPack (device_type) values of device memory this runtime can read:
# kDLCUDA, kDLCUDAManaged, kDLROCM.
_DL_DEVICE = {2, 13, 10}
# (DLPack type code, bits) -> NumPy-style typestr kind + size.
_DL_TYPES = {(2, 32): "f4", (2, 16): "f2", (4, 16): "bf16", (1, 8): "u1",
             (0, 8): "i1", (1, 16): "u2"}


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DeviceView:
    """/// A 2-D device tensor as the runtime needs it: pointer, sizes, element
    /// strides and element kind. `owner` keeps the source (and a DLPack
    /// capsule, whose destructor releases it) alive."""

    def __init__(self, ptr, shape, strides, kind, owner):
        self.ptr, self.shape, self.strides = ptr, shape, strides
        self.kind, self.owner = kind, owner

    def memref(self):
        return raw2d(self.ptr, self.shape, self.strides)


def _itemsize(kind):
    return 2 if kind == "bf16" else int(kind[1:])


def view(t, name="tensor"):
    """/// A DeviceView of a 2-D tensor exposing __cuda_array_interface__ or
    /// __dlpack__ (device memory only)."""
    cai = getattr(t, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(cai["shape"])
        kind = cai["typestr"].lstrip("<|=")
        if cai["typestr"][0] == ">" or kind not in _DL_TYPES.values():
            raise ValueError(f"{name}: unsupported typestr {cai['typestr']}")
        size = _itemsize(kind)
        if len(shape) != 2:
            raise ValueError(f"{name} must be 2-D, got shape {shape}")
        bstrides = cai.get("strides") or (shape[1] * size, size)
        ptr = cai["data"][0]
        return DeviceView(ptr, shape, _elems(bstrides, size, name), kind, t)
    if hasattr(t, "__dlpack__"):
        return _from_dlpack(t, name)
    raise ValueError(f"{name} must expose __cuda_array_interface__ or "
                     f"__dlpack__ (a GPU tensor), got {type(t).__name__}")


def _elems(bstrides, size, name):
    if any(s < 0 or s % size for s in bstrides):
        raise ValueError(f"{name}: byte strides {tuple(bstrides)} are not "
                         f"non-negative multiples of {size}")
    return tuple(s // size for s in bstrides)


def _from_dlpack(t, name):
    capsule = t.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object,
                                                  ctypes.c_char_p]
    # DLManagedTensor starts with its DLTensor. The capsule is not renamed
    # "used_dltensor", so its destructor still releases the tensor.
    dl = _DLTensor.from_address(get(capsule, b"dltensor"))
    if dl.device_type not in _DL_DEVICE:
        raise ValueError(f"{name} is not in GPU memory (DLPack device type "
                         f"{dl.device_type})")
    kind = _DL_TYPES.get((dl.code, dl.bits))
    if dl.ndim != 2 or dl.lanes != 1 or kind is None:
        raise ValueError(f"{name} must be a 2-D tensor of a supported dtype")
    shape = (dl.shape[0], dl.shape[1])
    strides = (dl.strides[0], dl.strides[1]) if dl.strides else \
        (shape[1], 1)
    if strides[0] < 0 or strides[1] < 0:
        raise ValueError(f"{name}: negative strides {strides}")
    ptr = dl.data + dl.byte_offset
    return DeviceView(ptr, shape, strides, kind, (t, capsule))


def _stream(stream):
    """/// A stream handle: None (legacy default), an int, or an object with
    /// `cuda_stream` / `ptr` / `handle` (CuPy, PyTorch, Numba)."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    raise ValueError(f"cannot read a stream handle from {stream!r}")


def _device_call(name, argtypes, *args):
    lib = _lib.gpu()
    fn = getattr(lib, name)
    fn.argtypes, fn.restype = argtypes, ctypes.c_int32
    status = fn(*args)
    if status != 0:
        msg = lib.fp8q_device_last_error()
        lib.fp8q_device_clear_error()  # the next call may enqueue again
        _lib.raise_status(lib, status, msg)


def _want(v, name, kinds):
    if v.kind not in kinds:
        raise ValueError(f"{name} must be {' or '.join(kinds)}, got {v.kind}")


_ACT = {"f4": "f32", "f2": "f16", "bf16": "bf16", "u2": "bf16"}


def quantize(x, q, scale, group_size=128, fp8_type="f8E4M3FN", stream=None):
    """/// Per-group quantize of device x [M, K] into caller-allocated q
    /// [M, K] (1-byte) and f32 scale [M, K/group] (its strides are its
    /// layout: a transposed view is the fused column-major write)."""
    vx, vq, vs = view(x, "x"), view(q, "q"), view(scale, "scale")
    _want(vx, "x", _ACT)
    _want(vq, "q", ("u1", "i1"))
    _want(vs, "scale", ("f4",))
    fp8 = codes.lookup(codes.Q_TYPES, fp8_type, "fp8 type")
    _device_call(f"_mlir_ciface_fp8q_rt_device_quantize_{_ACT[vx.kind]}",
                 [P2, P2, P2, I64, I32, VP], vx.memref(), vq.memref(),
                 vs.memref(), int(group_size), fp8, _stream(stream))


def materialize(src, dst, stream=None):
    """/// Copies the f32 scale src into dst through their strides."""
    vs, vd = view(src, "src"), view(dst, "dst")
    _want(vs, "src", ("f4",))
    _want(vd, "dst", ("f4",))
    _device_call("_mlir_ciface_fp8q_rt_device_materialize", [P2, P2, VP],
                 vs.memref(), vd.memref(), _stream(stream))


def preshuffle(w, dst, stream=None):
    """/// SPEC's preshuffle_16x16 of the plain fp8 weight into dense dst."""
    vw, vd = view(w, "w"), view(dst, "dst")
    _want(vw, "w", ("u1", "i1"))
    _want(vd, "dst", ("u1", "i1"))
    _device_call("_mlir_ciface_fp8q_rt_device_preshuffle", [P2, P2, VP],
                 vw.memref(), vd.memref(), _stream(stream))


def gemm(q, x_scale, w, w_scale, out, kernel="reference",
         fp8_type="f8E4M3FN", weight_layout="plain", stream=None):
    """/// Block-scaled GEMM into caller-allocated bf16 out [M, N]."""
    views = [view(t, n) for t, n in ((q, "q"), (x_scale, "x_scale"), (w, "w"),
                                      (w_scale, "w_scale"), (out, "out"))]
    for v, n, k in zip(views, ("q", "x_scale", "w", "w_scale", "out"),
                       (("u1", "i1"), ("f4",), ("u1", "i1"), ("f4",),
                        ("bf16", "u2"))):
        _want(v, n, k)
    _device_call("_mlir_ciface_fp8q_rt_device_gemm",
                 [P2] * 5 + [I32, I32, I32, VP],
                 *[v.memref() for v in views],
                 codes.lookup(codes.KERNELS, kernel, "kernel"),
                 codes.lookup(codes.Q_TYPES, fp8_type, "fp8 type"),
                 codes.lookup(codes.WEIGHT_LAYOUTS, weight_layout,
                              "weight layout"), _stream(stream))


def materialize_v2(src, dst, src_layout, dst_layout, scale_type="f8E8M0FNU",
                   src_align=1, dst_align=1, stream=None):
    """/// Re-stores a v2 scale between layouts on the device. A padded
    /// layout's tensor is its flat allocation, passed as a [1, n] or [n, 1]
    /// byte tensor; its logical [M, G] comes from the strided side."""
    sl, dl = as_layout(src_layout, src_align), as_layout(dst_layout,
                                                         dst_align)
    if sl.padded and dl.padded:
        raise ValueError("one side must be strided (it gives [M, G])")
    vs, vd = view(src, "src"), view(dst, "dst")
    M, G = (vd if sl.padded else vs).shape

    def desc(v, lay):
        return raw2d(v.ptr, (M, G), (0, 0)) if lay.padded else v.memref()

    _device_call("_mlir_ciface_fp8q_rt_device_materialize_v2",
                 [P2, P2, I32, I32, I64, I32, I64, VP], desc(vs, sl),
                 desc(vd, dl), codes.lookup(codes.SCALE_TYPES, scale_type,
                                            "scale type"), sl.code, sl.align,
                 dl.code, dl.align, _stream(stream))


def available():
    """/// True when a GPU runtime library loads (not that a GPU is present)."""
    try:
        _lib.gpu()
        return True
    except OSError:
        return False
