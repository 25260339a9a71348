"""The README's Python example is examples/readme_example.py, and it runs."""

import contextlib
import io
import os
import runpy
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "readme_example.py")
README = os.path.join(HERE, "..", "..", "README.md")


class ReadmeTest(unittest.TestCase):
    @unittest.skipUnless(os.path.isfile(README), "needs the source tree")
    def test_readme_holds_the_example_verbatim(self):
        with open(EXAMPLE) as f:
            example = f.read()
        with open(README) as f:
            readme = f.read()
        self.assertIn("```python\n" + example + "```\n", readme)

    def test_example_runs_and_shows_the_contract_error(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            runpy.run_path(EXAMPLE, run_name="__main__")
        text = out.getvalue()
        self.assertIn("kernel ck_bpreshuffle reads x_scale col_major "
                      "(strides (1, 16))", text)
        self.assertIn("fix: quantize with fp8q.quantize(x, "
                      "layout='col_major')", text)


if __name__ == "__main__":
    unittest.main()
