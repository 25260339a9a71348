"""Finding the runtime: a missing library names what to set."""

import os
import unittest
from unittest import mock

import fp8q
from fp8q import _lib


class LibraryTest(unittest.TestCase):
    def test_explicit_path_that_is_absent(self):
        with mock.patch.dict(os.environ, {"FP8Q_RUNTIME_LIB": "/nonexistent/x.so"}):
            with self.assertRaises(fp8q.LibraryNotFoundError) as cm:
                _lib._load("FP8Q_RUNTIME_LIB", (_lib.CPU_NAME,), "CPU")
        msg = str(cm.exception)
        self.assertIn("FP8Q_RUNTIME_LIB=", msg)
        self.assertIn("FP8Q_LIB_DIR=", msg)
        self.assertIn("/nonexistent/x.so ($FP8Q_RUNTIME_LIB: absent)", msg)

    def test_nothing_found(self):
        with mock.patch.dict(os.environ, {"FP8Q_LIB_DIR": "/nonexistent"}):
            with self.assertRaises(OSError) as cm:
                _lib._load("FP8Q_X_LIB", ("libno_such_fp8q.so",), "test")
        self.assertIn("FP8Q_X_LIB=/path/to/libno_such_fp8q.so",
                      str(cm.exception))

    def test_cpu_runtime_loads(self):
        self.assertTrue(hasattr(_lib.cpu(), "fp8q_check_scale"))


if __name__ == "__main__":
    unittest.main()
