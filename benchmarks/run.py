"""Run every ``benchmarks/bench_*.py`` module's ``main()`` in turn (``make bench``).

Each ``main()`` returns 0, or non-zero when its correctness checks failed; the run exits with
the first failure's status after running them all, so one broken benchmark hides no other.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def main() -> int:
    here = Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    import duyun

    compiled = duyun.compiled_modules()
    print(
        f"build: {len(compiled)} modules compiled with mypyc"
        if compiled
        else "build: pure Python (nothing compiled; `make build` compiles the engine)"
    )
    status = 0
    for path in sorted(here.glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            print(f"cannot load {path.name}")
            status = status or 1
            continue
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        result = module.main()
        code = int(result or 0)
        if code:
            print(f"{path.name}: FAILED (status {code})")
            status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
