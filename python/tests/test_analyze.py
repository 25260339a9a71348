"""fp8q.analyze: the copies-per-step table through the tools."""

import os
import unittest

import fp8q
from fp8q import copies as analyze_mod

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
GLM5 = os.path.join(ROOT, "examples", "glm5", "config.json")


def tools_found():
    try:
        analyze_mod._tool("fp8q-model-gen")
        analyze_mod._tool("fp8q-opt")
        return os.path.isfile(GLM5)
    except fp8q.Fp8qError:
        return False


@unittest.skipUnless(tools_found(), "needs fp8q-model-gen, fp8q-opt and the "
                     "bundled examples")
class AnalyzeTest(unittest.TestCase):
    def test_glm5_two_layers(self):
        rows = fp8q.analyze(GLM5, "gfx950", tp=8, ep=1, layers=2)
        self.assertEqual([r.policy for r in rows],
                         ["hand-placed", "fp8q, no fusion", "fp8q, fusion"])
        hand, nofuse, fuse = rows
        self.assertEqual(hand.gemms, 16)
        self.assertGreater(hand.copies, nofuse.copies)
        self.assertGreater(nofuse.copies, 0)
        self.assertEqual((fuse.copies, fuse.bytes_moved), (0, 0))
        self.assertEqual(fuse.launches_saved, hand.copies)
        self.assertIn("| fp8q, fusion | 16 | 0 | 0 |",
                      fp8q.format_table(rows))

    def test_v2_format(self):
        rows = fp8q.analyze(GLM5, "sm100", tp=8, layers=1, format="mxfp8")
        self.assertEqual(rows[-1].copies, 0)
        self.assertIsNotNone(rows[-1].weight_relayouts)

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            fp8q.analyze("/nonexistent/config.json")
        with self.assertRaises(ValueError):
            fp8q.analyze(GLM5, tp=0)
        with self.assertRaises(fp8q.Fp8qError):
            fp8q.analyze(GLM5, target="gfx1")


if __name__ == "__main__":
    unittest.main()
