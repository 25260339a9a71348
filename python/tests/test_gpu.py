"""fp8q.gpu: tensor interop without a GPU; the calls themselves with one."""

import ctypes
import os
import unittest

import numpy as np

import fp8q
from fp8q import gpu


class FakeDeviceArray:
    """/// An object with a __cuda_array_interface__ (no memory behind it)."""

    def __init__(self, shape, typestr, strides=None, ptr=0x7000_0000):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3}


class InteropTest(unittest.TestCase):
    def test_cuda_array_interface(self):
        v = gpu.view(FakeDeviceArray((4, 8), "<f4", (4, 16)), "s")
        self.assertEqual((v.shape, v.strides, v.kind), ((4, 8), (1, 4), "f4"))
        d = v.memref()
        self.assertEqual((d.sizes[0], d.sizes[1], d.strides[0], d.strides[1]),
                         (4, 8, 1, 4))
        self.assertEqual(gpu.view(FakeDeviceArray((2, 3), "|u1")).strides,
                         (3, 1))

    def test_refuses_host_and_odd_tensors(self):
        with self.assertRaises(ValueError):
            gpu.view(np.zeros((2, 2), np.float32))  # host memory
        with self.assertRaises(ValueError):
            gpu.view(FakeDeviceArray((2, 2, 2), "<f4"))
        with self.assertRaises(ValueError):
            gpu.view(FakeDeviceArray((2, 2), "<f8"))
        with self.assertRaises(ValueError):
            gpu.view(FakeDeviceArray((2, 2), "<f4", (-4, 4)))

    def test_host_dlpack_is_refused(self):
        if not hasattr(np.ndarray, "__dlpack__"):
            self.skipTest("numpy without DLPack")
        with self.assertRaises(ValueError) as cm:
            gpu.view(np.zeros((2, 2), np.float32))
        self.assertIn("not in GPU memory", str(cm.exception))


def _gpu_present():
    if not gpu.available():
        return False
    for name in ("libcuda.so.1", "libamdhip64.so"):
        try:
            ctypes.CDLL(name)
            return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/kfd")
        except OSError:
            pass
    return False


@unittest.skipUnless(_gpu_present(), "needs libfp8q_runtime_cuda/hip.so and a "
                     "GPU")
class DeviceTest(unittest.TestCase):
    def test_quantize_matches_cpu(self):
        try:
            import cupy
        except ImportError:
            self.skipTest("needs CuPy for device arrays")
        x = np.random.default_rng(0).standard_normal((8, 256)).astype(
            np.float32)
        q, s = fp8q.quantize(x, layout="col_major")
        dx = cupy.asarray(x)
        dq = cupy.zeros((8, 256), cupy.uint8)
        ds = cupy.zeros((2, 8), cupy.float32).T
        gpu.quantize(dx, dq, ds)
        cupy.cuda.Stream.null.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(dq), q)
        np.testing.assert_array_equal(cupy.asnumpy(ds), s)


if __name__ == "__main__":
    unittest.main()
