"""fp8q.codes agrees with the C headers (the values are ABI)."""

import os
import re
import unittest

from fp8q import codes

INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "include", "fp8q", "Runtime")


def enum_values(header, prefix):
    with open(os.path.join(INCLUDE, header)) as f:
        text = f.read()
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"\b%s(\w+) = (\d+)\b" % prefix, text)}


@unittest.skipUnless(os.path.isdir(INCLUDE), "needs the fp8q source tree")
class CodesTest(unittest.TestCase):
    def test_kernels(self):
        c = enum_values("fp8q_contracts.h", "FP8Q_KERNEL_")
        c.pop("COUNT")
        self.assertEqual({k.lower(): v for k, v in c.items()}, codes.KERNELS)

    def test_formats(self):
        q = enum_values("fp8q_formats.h", "FP8Q_Q_")
        q.pop("TYPE_COUNT")
        self.assertEqual(q, {k.upper(): v for k, v in codes.Q_TYPES.items()})
        s = enum_values("fp8q_formats.h", "FP8Q_SCALE_")
        self.assertEqual({k: s[k.upper()] for k in ("f32", "f8E8M0FNU",
                                                    "f8E4M3FN")},
                         codes.SCALE_TYPES)
        layouts = enum_values("fp8q_formats.h", "FP8Q_LAYOUT_")
        layouts.pop("COUNT")
        self.assertEqual({k.lower(): v for k, v in layouts.items()},
                         codes.LAYOUT_CODES)
        r = enum_values("fp8q_formats.h", "FP8Q_ROUND_")
        r.pop("COUNT")
        self.assertEqual({k.lower(): v for k, v in r.items()},
                         codes.ROUNDINGS)

    def test_statuses(self):
        s = enum_values("fp8q_runtime.h", "FP8Q_")
        self.assertEqual({v: "FP8Q_" + k for k, v in s.items()
                          if k == "OK" or k.startswith("ERR_")},
                         codes.STATUS_NAMES)


if __name__ == "__main__":
    unittest.main()
