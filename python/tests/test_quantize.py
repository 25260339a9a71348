"""quantize / materialize against an independent NumPy implementation."""

import unittest

import numpy as np

import fp8q
import fp8_reference as ref


def sample(M, K, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((M, K)).astype(np.float32)
    x *= rng.uniform(0.01, 100.0, (M, 1)).astype(np.float32)
    return x


class QuantizeTest(unittest.TestCase):
    def test_reference_encoder_sanity(self):
        # The test's own codec: 448 is 0x7E, 1.0 is 0x38, ties go even.
        self.assertEqual(ref.encode(np.float32([448.0, 1.0, -1.0]))
                         .tolist(), [0x7E, 0x38, 0xB8])
        self.assertEqual(ref.encode(np.float32([1.0625]))[0], 0x38)  # tie
        self.assertEqual(ref.encode(np.float32([1.1875]))[0], 0x3A)  # tie
        self.assertEqual(ref.encode(np.float32([1e6]))[0], 0x7E)

    def test_row_major_bytes(self):
        x = sample(5, 384)
        q, s = fp8q.quantize(x, group_size=128)
        rq, rs = ref.quantize(x, 128)
        np.testing.assert_array_equal(s, rs)
        np.testing.assert_array_equal(q, rq)
        self.assertEqual(s.strides, (3 * 4, 4))

    def test_col_major_is_a_transposed_write(self):
        x = sample(6, 512, seed=1)
        q, s = fp8q.quantize(x, layout="col_major", align=4)
        rq, rs = ref.quantize(x, 128)
        np.testing.assert_array_equal(q, rq)
        np.testing.assert_array_equal(s, rs)
        self.assertEqual(s.strides, (4, 8 * 4))  # ld = roundup(6, 4) = 8

    def test_fnuz_and_f16(self):
        x = sample(3, 256, seed=2)
        q, s = fp8q.quantize(x, fp8_type="f8E4M3FNUZ")
        rq, rs = ref.quantize(x, 128, fnuz=True)
        np.testing.assert_array_equal(q, rq)
        x16 = x.astype(np.float16)
        q16, s16 = fp8q.quantize(x16, group_size=64)
        rq16, rs16 = ref.quantize(x16.astype(np.float32), 64)
        np.testing.assert_array_equal(q16, rq16)
        np.testing.assert_array_equal(s16, rs16)

    def test_bf16_bits(self):
        x = sample(2, 128, seed=3)
        bits = fp8q.bf16.from_f32(x)
        q, s = fp8q.quantize(bits, act="bf16")
        rq, _ = ref.quantize(fp8q.bf16.to_f32(bits), 128)
        np.testing.assert_array_equal(q, rq)

    def test_materialize_between_layouts(self):
        x = sample(7, 256, seed=4)
        _, s = fp8q.quantize(x)
        c = fp8q.materialize(s, "col_major")
        np.testing.assert_array_equal(c, s)
        self.assertEqual(c.strides, (4, 7 * 4))

    def test_strided_input_and_negative_strides(self):
        x = sample(4, 512, seed=7)
        q, s = fp8q.quantize(x[:, ::2])  # read through its strides
        rq, rs = ref.quantize(np.ascontiguousarray(x[:, ::2]), 128)
        np.testing.assert_array_equal(q, rq)
        np.testing.assert_array_equal(s, rs)
        with self.assertRaises(ValueError):
            fp8q.quantize(x[::-1])

    def test_bad_input_is_a_value_error(self):
        x = sample(2, 256)
        for bad in (dict(group_size=100), dict(group_size=0),
                    dict(layout="diagonal"), dict(layout="cdna4_mx"),
                    dict(fp8_type="f8E5M2")):
            with self.assertRaises(ValueError, msg=str(bad)):
                fp8q.quantize(x, **bad)
        with self.assertRaises(ValueError):
            fp8q.quantize(x.astype(np.float64))
        with self.assertRaises(ValueError):
            fp8q.quantize(x[0])
        with self.assertRaises(ValueError):
            fp8q.quantize(np.zeros((0, 128), np.float32))
        with self.assertRaises(ValueError):
            fp8q.quantize([[1.0] * 128])


class QuantizeV2Test(unittest.TestCase):
    def test_formats_round_trip(self):
        x = sample(4, 256, seed=5)
        for fmt, tol in (("mxfp8", 0.13), ("ue8m0", 0.13), ("mxfp4", 0.6),
                         ("nvfp4", 0.6)):
            g = 1.0 if fmt == "nvfp4" else None
            q, s = fp8q.quantize_v2(x, fmt, global_scale=g)
            back = fp8q.dequantize_v2(q, s)
            err = np.abs(back - x) / np.abs(x).max(axis=1, keepdims=True)
            self.assertLess(err.max(), tol, fmt)

    def test_padded_scale_bytes_match_row_major(self):
        x = sample(33, 512, seed=6)
        _, rm = fp8q.quantize_v2(x, "mxfp8")
        for lay in (fp8q.swizzle_32_4_4, fp8q.cdna4_mx, fp8q.pack4(4)):
            q, s = fp8q.quantize_v2(x, "mxfp8", layout=lay)
            self.assertEqual(s.data.size, lay.alloc(33, 16))
            np.testing.assert_array_equal(s.logical(), rm.data)
            # Padding is written 0.
            mask = np.ones(s.data.size, bool)
            mask[lay.offsets(33, 16)] = False
            self.assertFalse(s.data[mask].any())

    def test_nvfp4_needs_global_scale(self):
        with self.assertRaises(ValueError):
            fp8q.quantize_v2(sample(1, 64), "nvfp4")
        with self.assertRaises(ValueError):
            fp8q.quantize_v2(sample(1, 64), "nvfp4", global_scale=-1.0)

    def test_runtime_rejection_is_an_exception(self):
        # f32 scales in a padded layout: the runtime says no, Python raises.
        with self.assertRaises(ValueError):
            fp8q.quantize_v2(sample(1, 64), "fp8", layout="cdna4_mx")
        with self.assertRaises(fp8q.Fp8qRuntimeError):
            fp8q.quantize_v2(sample(1, 256), "mxfp8", rounding="exact")


if __name__ == "__main__":
    unittest.main()
