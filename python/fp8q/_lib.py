"""Locating and loading the fp8q runtime libraries.

/// Pure ctypes: the package builds nothing, so it has to find a built
/// runtime. The search order is explicit and the error names every place
/// it looked and the variables that choose the library.
"""

import ctypes
import os

from . import codes
from .errors import ContractError, Fp8qRuntimeError, LibraryNotFoundError

CPU_NAME = "libfp8q_runtime_cpu.so"
GPU_NAMES = ("libfp8q_runtime_cuda.so", "libfp8q_runtime_hip.so")

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _candidates(file_var, names):
    """/// (path, why) pairs in search order."""
    out = []
    if os.environ.get(file_var):
        out.append((os.environ[file_var], f"${file_var}"))
    if os.environ.get("FP8Q_LIB_DIR"):
        out += [(os.path.join(os.environ["FP8Q_LIB_DIR"], n), "$FP8Q_LIB_DIR")
                for n in names]
    for d in (os.path.join(_PKG_DIR, "lib"), _PKG_DIR):
        out += [(os.path.join(d, n), "next to the package") for n in names]
    # A source-tree checkout: python/fp8q -> build/lib.
    root = os.path.dirname(os.path.dirname(_PKG_DIR))
    for d in (os.path.join(root, "build", "lib"),
              os.path.join(os.getcwd(), "build", "lib")):
        out += [(os.path.join(d, n), "the build directory") for n in names]
    return out


def _load(file_var, names, what):
    tried = []
    for path, why in _candidates(file_var, names):
        if not os.path.isfile(path):
            tried.append(f"{path} ({why}: absent)")
            if why == f"${file_var}":
                break  # An explicit choice is never silently replaced.
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"{path} ({why}: {e})")
            if why == f"${file_var}":
                break
    raise LibraryNotFoundError(
        f"cannot find the fp8q {what} runtime ({' or '.join(names)}). Set "
        f"{file_var}=/path/to/{names[0]} or FP8Q_LIB_DIR=<dir holding it> "
        f"(a CMake build puts it in build/lib). Tried: " + "; ".join(tried))


_cpu = None
_gpu = None


def cpu():
    """/// The CPU runtime, loaded once, with the prototypes of its C API."""
    global _cpu
    if _cpu is None:
        lib = _load("FP8Q_RUNTIME_LIB", (CPU_NAME,), "CPU")
        _declare_common(lib)
        _cpu = lib
    return _cpu


def gpu():
    """/// The GPU runtime (CUDA or HIP build), loaded once."""
    global _gpu
    if _gpu is None:
        lib = _load("FP8Q_GPU_RUNTIME_LIB", GPU_NAMES, "GPU")
        _declare_common(lib)
        lib.fp8q_device_status.restype = ctypes.c_int32
        lib.fp8q_device_last_error.restype = ctypes.c_char_p
        lib.fp8q_device_clear_error.restype = None
        _gpu = lib
    return _gpu


def _declare_common(lib):
    lib.fp8q_last_error.restype = ctypes.c_char_p
    lib.fp8q_status_name.restype = ctypes.c_char_p
    lib.fp8q_status_name.argtypes = [ctypes.c_int32]


def call(lib, name, argtypes, *args):
    """/// Calls `name` with explicit argument types (ctypes would otherwise
    /// pass Python ints as C int and truncate int64 arguments) and turns a
    /// failure status into an exception carrying the runtime's message."""
    fn = getattr(lib, name)
    fn.argtypes = argtypes
    fn.restype = ctypes.c_int32
    status = fn(*args)
    if status != 0:
        raise_status(lib, status, lib.fp8q_last_error())
    return status


def raise_status(lib, status, message):
    msg = (message or b"").decode(errors="replace")
    name = codes.STATUS_NAMES.get(status, f"status {status}")
    cls = ContractError if status == codes.FP8Q_ERR_CONTRACT else \
        Fp8qRuntimeError
    raise cls(status, name, msg)
