"""Build hook: compile the engine's hot modules to C with mypyc.

The engine and the win/shanten tables are plain, strictly typed Python (``mypy --strict``);
mypyc turns the same source into C extension modules, about twice as fast, which is what the
RL environment and self-play spend their time in (``make bench`` prints both builds). Nothing
else changes: the same code, the same behaviour, the same errors (the test suite runs on the
compiled build).

``DUYUN_PURE_PYTHON=1 pip install ...`` skips compiling (pure Python everywhere). The
extensions are optional: where no C compiler or Python headers are available the install
still succeeds, in pure Python, with a warning; ``duyun.compiled_modules()`` tells which build
is running.
"""

from __future__ import annotations

import os
import runpy
import sys

from setuptools import setup

# The modules compiled and the digests of their sources (duyun/_build.py, which the package
# also uses at import). Read as a file, not imported: importing it would run the package's
# __init__, whose check refuses the stale compiled modules this build is about to replace.
_BUILD = runpy.run_path(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", "duyun", "_build.py")
)
COMPILED_MODULES: tuple[str, ...] = _BUILD["COMPILED_MODULES"]
record_digests = _BUILD["record_digests"]


def _extensions() -> list[object]:
    if os.environ.get("DUYUN_PURE_PYTHON", "").strip() not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:  # pragma: no cover - mypy is a build requirement (pyproject.toml)
        print("duyun: mypyc not available, installing pure Python", file=sys.stderr)
        return []
    paths = [os.path.join("src", *name.split(".")) + ".py" for name in COMPILED_MODULES]
    record_digests()  # what the compiled modules were built from (the import-time check)
    # Type errors are checked by `make lint` (mypy --strict, pyproject.toml); here mypy only
    # has to understand the compiled modules. The build runs in an isolated environment
    # without numpy, PettingZoo or Gymnasium: they are read as untyped (Any), and the
    # modules imported but not compiled (duyun.rl's adapters) are not reported on.
    options = [
        f"--config-file={os.devnull}",
        "--ignore-missing-imports",
        "--follow-imports=silent",
        "--python-version=3.11",
    ]
    # multi_file: one C file per module instead of one 5 MB file for all of them. gcc -O3 takes
    # 45 s on those instead of 105 s on the one (every install, CI included), and the engine
    # runs as fast (bench_engine's hands timed best of five on both builds: the same within a
    # few per cent, either way).
    try:
        extensions = mypycify(options + paths, opt_level="3", debug_level="0", multi_file=True)
    except (Exception, SystemExit) as error:  # mypyc could not read the modules
        print(f"duyun: not compiling ({error}); installing pure Python", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # no compiler: a warning and pure Python, not a failed install
    return list(extensions)


setup(ext_modules=_extensions())
