"""gemm / gemm_v2 against a NumPy float reference."""

import unittest

import numpy as np

import fp8q
import fp8_reference as ref


def weights(N, K, seed):
    """/// Random finite E4M3FN codes and 128x128 block scales."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 0x7F, (N, K)).astype(np.uint8)
    w |= (rng.integers(0, 2, (N, K)) << 7).astype(np.uint8)
    ws = rng.uniform(0.001, 0.01, ((N + 127) // 128, K // 128))
    return w, ws.astype(np.float32)


def reference(q, xs, w, ws):
    """/// sum_kb xs[m, kb] ws[n / 128, kb] sum_k dq[m, k] dw[n, k], float64."""
    table = ref.decode_table().astype(np.float64)
    dq, dw = table[q], table[w]
    M, K = q.shape
    N = w.shape[0]
    out = np.zeros((M, N))
    for kb in range(K // 128):
        part = dq[:, kb * 128:(kb + 1) * 128] @ dw[:, kb * 128:(kb + 1) * 128].T
        wsn = np.repeat(ws[:, kb], 128)[:N]
        out += part * xs[:, kb:kb + 1] * wsn[None, :]
    return out


class GemmTest(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(7)
        self.x = rng.standard_normal((8, 512)).astype(np.float32)
        self.w, self.ws = weights(160, 512, seed=8)

    def assert_close(self, got, want):
        scale = np.abs(want).max()
        self.assertLess(np.abs(got - want).max() / scale, 1e-2)

    def test_every_fp8_kernel_layout(self):
        q, s = fp8q.quantize(self.x)
        want = reference(q, s, self.w, self.ws)
        cases = [("reference", "row_major", 1, "plain"),
                 ("ck", "row_major", 1, "plain"),
                 ("triton", "col_major", 1, "plain"),
                 ("deepgemm", "col_major", 4, "plain"),
                 ("cublas", "col_major", 1, "plain"),
                 ("ck_bpreshuffle", "col_major", 1, "preshuffle_16x16")]
        for kernel, layout, align, wl in cases:
            with self.subTest(kernel=kernel):
                q2, s2 = fp8q.quantize(self.x, layout=layout, align=align)
                fp8q.check(kernel, s2)
                w = fp8q.preshuffle(self.w) if wl != "plain" else self.w
                out = fp8q.gemm(q2, s2, w, self.ws, kernel=kernel,
                                weight_layout=wl)
                self.assertEqual(out.shape, (8, 160))
                self.assert_close(out, want)

    def test_against_unquantized_matmul(self):
        q, s = fp8q.quantize(self.x)
        table = ref.decode_table()
        wf = table[self.w] * np.repeat(np.repeat(self.ws, 128, 0), 128, 1)[
            :160]
        out = fp8q.gemm(q, s, self.w, self.ws)
        want = self.x.astype(np.float64) @ wf.T.astype(np.float64)
        self.assertLess(np.abs(out - want).max() / np.abs(want).max(), 0.08)

    def test_preshuffle_round_trip(self):
        p = fp8q.preshuffle(self.w)
        self.assertFalse(np.array_equal(p, self.w))
        np.testing.assert_array_equal(fp8q.unpreshuffle(p), self.w)

    def test_shape_errors(self):
        q, s = fp8q.quantize(self.x)
        with self.assertRaises(ValueError):
            fp8q.gemm(q, s, self.w[:, :256], self.ws)
        with self.assertRaises(ValueError):
            fp8q.gemm(q, s, self.w, self.ws[:, :1])
        with self.assertRaises(ValueError):
            fp8q.gemm(q.astype(np.int8), s, self.w, self.ws)
        with self.assertRaises(ValueError):
            fp8q.gemm(q, s, self.w, self.ws, kernel="cutlass")
        with self.assertRaises(ValueError):
            fp8q.preshuffle(self.w[:10])


class GemmV2Test(unittest.TestCase):
    def test_formats(self):
        rng = np.random.default_rng(9)
        x = rng.standard_normal((4, 256)).astype(np.float32)
        w = rng.standard_normal((48, 256)).astype(np.float32)
        for fmt, lay in (("mxfp8", "row_major"), ("mxfp8", "swizzle_32_4_4"),
                         ("mxfp4", "cdna4_mx"), ("nvfp4", "col_major")):
            with self.subTest(format=fmt, layout=lay):
                g = 0.5 if fmt == "nvfp4" else None
                qx, sx = fp8q.quantize_v2(x, fmt, layout=lay, global_scale=g)
                qw, sw = fp8q.quantize_v2(w, fmt, global_scale=g)
                out = fp8q.gemm_v2(qx, sx, qw, sw)
                want = fp8q.dequantize_v2(qx, sx).astype(np.float64) @ \
                    fp8q.dequantize_v2(qw, sw).astype(np.float64).T
                err = np.abs(out - want).max() / np.abs(want).max()
                self.assertLess(err, 1e-2)

    def test_contract_of_v2_kernel(self):
        x = np.ones((4, 256), np.float32)
        qx, sx = fp8q.quantize_v2(x, "mxfp8")
        with self.assertRaises(fp8q.ContractError):
            fp8q.gemm_v2(qx, sx, qx, sx, kernel="ck")


if __name__ == "__main__":
    unittest.main()
