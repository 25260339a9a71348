"""fp8q.layouts: hand-computed offsets, and the C runtime's own bytes."""

import unittest

import numpy as np

import fp8q
from fp8q.layouts import Layout


class HandComputedTest(unittest.TestCase):
    def test_strided(self):
        self.assertEqual(fp8q.row_major.offset(3, 5, 1, 2), 7)
        self.assertEqual(fp8q.row_major.alloc(3, 5), 15)
        self.assertEqual(fp8q.row_major.strides(3, 5), (5, 1))
        c4 = fp8q.col_major_aligned(4)
        self.assertEqual(c4.offset(3, 5, 1, 2), 9)  # 2 * roundup(3, 4) + 1
        self.assertEqual(c4.alloc(3, 5), 20)
        self.assertEqual(c4.strides(3, 5), (1, 4))
        self.assertEqual(fp8q.col_major.strides(3, 5), (1, 3))

    def test_pack4(self):
        p = fp8q.pack4(4)
        self.assertEqual(p.offset(3, 5, 1, 2), 6)   # word 1, byte 2
        self.assertEqual(p.offset(3, 5, 1, 4), 20)  # ((1 * 4 + 1) * 4 + 0)
        self.assertEqual(p.alloc(3, 5), 32)
        self.assertIsNone(p.strides(3, 5))

    def test_swizzle_32_4_4(self):
        s = fp8q.swizzle_32_4_4
        self.assertEqual(s.offset(130, 5, 129, 4), 3 * 512 + 16)
        self.assertEqual(s.offset(130, 5, 33, 1), 16 + 4 + 1)
        self.assertEqual(s.alloc(130, 5), 256 * 8)

    def test_cdna4_mx(self):
        c = fp8q.cdna4_mx
        self.assertEqual(c.offset(40, 10, 33, 9), 836)
        self.assertEqual(c.offset(40, 10, 17, 4), 7)
        self.assertEqual(c.alloc(40, 10), 256 * 16)

    def test_spelling_and_validation(self):
        self.assertEqual(fp8q.pack4(4).spec(),
                         "#fp8q.layout<col_major, align = 4, pack = 4>")
        self.assertEqual(fp8q.col_major_aligned(4), Layout("col_major", 4))
        for bad in (("row_major", 4), ("tiled", 1), ("col_major", 0),
                    ("col_major", 1.5)):
            with self.assertRaises(ValueError):
                Layout(*bad)


class AgainstRuntimeTest(unittest.TestCase):
    """/// materialize_v2 writes each element where fp8_scale_offset says:
    /// tag every element with its row (then its column) and find it."""

    LAYOUTS = [fp8q.pack4(1), fp8q.pack4(4), fp8q.swizzle_32_4_4,
               fp8q.cdna4_mx, fp8q.col_major, fp8q.col_major_aligned(8)]

    def check(self, lay, M, G):
        m, g = np.meshgrid(np.arange(M), np.arange(G), indexing="ij")
        for tag in (m + 1, g + 1):
            src = fp8q.Scale(tag.astype(np.uint8), fp8q.row_major, (M, G),
                             "f8E8M0FNU", group_size=32)
            dst = fp8q.materialize_v2(src, lay)
            if lay.padded:
                flat = dst.data
                self.assertEqual(flat.size, lay.alloc(M, G))
                off = lay.offsets(M, G)
                np.testing.assert_array_equal(flat[off], tag, str(lay))
                rest = np.ones(flat.size, bool)
                rest[off] = False
                self.assertFalse(flat[rest].any(), str(lay))
            else:
                np.testing.assert_array_equal(dst.data, tag)
                if M > 1 and G > 1:  # 1-byte elements: strides in bytes
                    self.assertEqual(dst.data.strides, lay.strides(M, G))

    def test_every_layout(self):
        for lay in self.LAYOUTS:
            for M in (1, 5, 33, 130, 200):
                for G in (1, 3, 9, 17):
                    with self.subTest(layout=str(lay), M=M, G=G):
                        self.check(lay, M, G)


if __name__ == "__main__":
    unittest.main()
