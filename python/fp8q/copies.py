"""fp8q.analyze (fp8q.copies): scale copies per decode step of a model config.

/// The counting is bench/copies_per_step.py's (fp8q-model-gen, then
/// fp8q-opt under each layout policy, then the copying materializations
/// counted); this module only finds the tools and calls that script's
/// policy_rows, so the package and the benchmark cannot disagree. The
/// package carries the script as fp8q/_copies_per_step.py, a symlink to
/// bench/ that setuptools resolves into the installed package.
"""

import importlib.util
import os
import shutil

from . import _lib
from .errors import Fp8qError

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _bench():
    """/// bench/copies_per_step.py as a module (packaged copy, else the
    /// source tree's, else $FP8Q_SOURCE_DIR's)."""
    try:
        from . import _copies_per_step
        return _copies_per_step
    except ImportError:
        pass
    roots = [os.environ.get("FP8Q_SOURCE_DIR"),
             os.path.dirname(os.path.dirname(_PKG_DIR))]
    for root in filter(None, roots):
        path = os.path.join(root, "bench", "copies_per_step.py")
        if os.path.isfile(path):
            spec = importlib.util.spec_from_file_location("fp8q_cps", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
    raise Fp8qError("cannot find bench/copies_per_step.py: set "
                    "FP8Q_SOURCE_DIR to the fp8q source tree")


def _tool(name):
    """/// An fp8q tool: $FP8Q_TOOLS_DIR, $FP8Q_BUILD_DIR/bin, the bin/ beside
    /// a found runtime library's lib/, the source tree's build/bin, $PATH."""
    dirs = [os.environ.get("FP8Q_TOOLS_DIR")]
    if os.environ.get("FP8Q_BUILD_DIR"):
        dirs.append(os.path.join(os.environ["FP8Q_BUILD_DIR"], "bin"))
    for path, _ in _lib._candidates("FP8Q_RUNTIME_LIB", (_lib.CPU_NAME,)):
        if os.path.isfile(path):
            dirs.append(os.path.join(os.path.dirname(os.path.dirname(
                os.path.abspath(path))), "bin"))
    dirs.append(os.path.join(os.path.dirname(os.path.dirname(_PKG_DIR)),
                             "build", "bin"))
    for d in filter(None, dirs):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    found = shutil.which(name)
    if found:
        return found
    raise Fp8qError(f"cannot find {name}: set FP8Q_TOOLS_DIR to the "
                    f"directory holding it (a CMake build's build/bin) or "
                    f"FP8Q_BUILD_DIR to the build directory")


class Row(tuple):
    """/// One policy's line of the copies-per-step table."""
    __slots__ = ()
    fields = ("policy", "gemms", "copies", "bytes_moved", "launches_saved",
              "weight_relayouts")

    def __getattr__(self, name):
        try:
            return self[Row.fields.index(name)]
        except ValueError:
            raise AttributeError(name) from None


def analyze(config, target="gfx950", tp=8, ep=1, tokens=16, rocm=None,
            format="fp8", layers=None):
    """/// Copies per decode step of the model `config` (a Hugging Face
    /// config.json path) on `target` at TP `tp` / EP `ep`, for the
    /// hand-placed fix, fp8q without fusion and fp8q with fusion: a list of
    /// Rows (policy, gemms, copies, bytes_moved, launches_saved,
    /// weight_relayouts; the last is None for format "fp8")."""
    if not isinstance(config, (str, os.PathLike)) or \
            not os.path.isfile(config):
        raise ValueError(f"config must be the path of a config.json file, "
                         f"got {config!r}")
    for name, v in (("tp", tp), ("ep", ep)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if not (tokens == "?" or (isinstance(tokens, int) and tokens >= 1)):
        raise ValueError(f"tokens must be a positive int or '?', got "
                         f"{tokens!r}")
    if rocm is None:
        rocm = "7.2" if target.startswith("gfx") else ""
    flags = []
    if ep != 1:
        flags.append(f"--ep={ep}")
    if format != "fp8":
        flags.append(f"--format={format}")
    bench = _bench()
    try:
        rows = bench.policy_rows(_tool("fp8q-model-gen"), _tool("fp8q-opt"),
                                 os.path.abspath(config), target, rocm,
                                 str(tokens), str(tp), flags, layers,
                                 v2=format != "fp8")
    except SystemExit as e:  # the script's run() reports a failed tool so
        raise Fp8qError(str(e.code)) from None
    return [Row(r) for r in rows]


def format_table(rows):
    """/// The rows as the Markdown table bench/copies_per_step.py prints."""
    head = "| policy | GEMMs | copies | bytes moved | launches saved |"
    lines = [head, "|---|---|---|---|---|"]
    lines += [f"| {r.policy} | {r.gemms} | {r.copies} | {r.bytes_moved} | "
              f"{r.launches_saved} |" for r in rows]
    return "\n".join(lines)
