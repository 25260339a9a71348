"""fp8q.check: the contract table's scale requirements."""

import unittest

import numpy as np

import fp8q


def row_major_scale(M=64, G=8):
    return np.ones((M, G), dtype=np.float32)  # C-contiguous: row-major


def col_major_scale(M=64, G=8, ld=None):
    return np.ones((G, ld or M), dtype=np.float32)[:, :M].T


class CheckTest(unittest.TestCase):
    def test_ck_bpreshuffle_rejects_row_major(self):
        with self.assertRaises(fp8q.ContractError) as cm:
            fp8q.check("ck_bpreshuffle", row_major_scale())
        msg = str(cm.exception)
        self.assertIn("ck_bpreshuffle reads x_scale col_major (strides "
                      "(1, 64))", msg)
        self.assertIn("strides (8, 1)", msg)
        self.assertIn("layout='col_major'", msg)  # how to fix it
        self.assertIsInstance(cm.exception, ValueError)

    def test_ck_bpreshuffle_accepts_col_major(self):
        self.assertIsNone(fp8q.check("ck_bpreshuffle", col_major_scale()))
        _, s = fp8q.quantize(np.ones((64, 1024), np.float32),
                             layout="col_major")
        self.assertIsNone(fp8q.check("ck_bpreshuffle", s))

    def test_ck_reads_row_major(self):
        fp8q.check("ck", row_major_scale())
        with self.assertRaises(fp8q.ContractError):
            fp8q.check("ck", col_major_scale())

    def test_deepgemm_needs_align_4(self):
        fp8q.check("deepgemm", col_major_scale(M=6, ld=8))
        with self.assertRaises(fp8q.ContractError) as cm:
            fp8q.check("deepgemm", col_major_scale(M=6))
        self.assertIn("align=4", str(cm.exception))

    def test_degenerate_extents(self):
        # M == 1: row- and column-major are the same bytes.
        fp8q.check("ck_bpreshuffle", row_major_scale(M=1))

    def test_strided_and_any(self):
        for s in (row_major_scale(), col_major_scale(), col_major_scale()[::2]):
            fp8q.check("triton", s)
            fp8q.check("reference", s)

    def test_v2_layouts(self):
        x = np.ones((4, 256), np.float32)
        _, sw = fp8q.quantize_v2(x, "mxfp8", layout="swizzle_32_4_4")
        fp8q.check("cublas_mx", sw)
        with self.assertRaises(fp8q.ContractError):
            fp8q.check("triton", sw)  # strided scales only
        _, cd = fp8q.quantize_v2(x, "mxfp4", layout="cdna4_mx")
        fp8q.check("aiter_mxfp4", cd)
        fp8q.check("aiter_mxfp4", cd, operand="w_scale")
        with self.assertRaises(fp8q.ContractError):
            fp8q.check("cublas_mx", cd)
        _, p4 = fp8q.quantize_v2(x, "ue8m0", layout="pack4", align=4)
        fp8q.check("deepgemm_sm100", p4)

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            fp8q.check("cutlass", row_major_scale())
        with self.assertRaises(ValueError):
            fp8q.check("ck", row_major_scale(), operand="y_scale")
        with self.assertRaises(ValueError):
            fp8q.check("ck", np.ones(8, np.float32))
        with self.assertRaises(ValueError):
            fp8q.check("ck", np.ones((2, 2), np.float64))
        with self.assertRaises(ValueError):
            fp8q.check("ck", "row_major")

    def test_gemm_rejects_what_check_rejects(self):
        # The runtime's GEMM reads the same table: a row-major x_scale fed to
        # ck_bpreshuffle is refused before any read.
        M, K, N = 16, 256, 32
        q = np.full((M, K), 0x38, np.uint8)
        w = fp8q.preshuffle(np.full((N, K), 0x38, np.uint8))
        ws = np.ones((1, 2), np.float32)
        with self.assertRaises(fp8q.ContractError):
            fp8q.gemm(q, row_major_scale(M, 2), w, ws, kernel="ck_bpreshuffle",
                      weight_layout="preshuffle_16x16")


if __name__ == "__main__":
    unittest.main()
