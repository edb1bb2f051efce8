"""benchmarks/server_process.py starts the servers of load.py and pace.py from the ``duyun``
the benchmark itself imports: an old checkout's sources first on ``PYTHONPATH`` measure that
checkout's server. It used to put its own checkout's ``src`` there whatever the caller's
was, and old-against-new comparisons measured one server twice (docs/deploy.md, "The
seventh round")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHOW = (
    "import sys; sys.path.insert(0, 'benchmarks'); import server_process as s; "
    "print(s.SRC); print(s.server_environment()['PYTHONPATH'])"
)


def _ask(pythonpath: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.splitlines()


def test_the_servers_run_the_duyun_the_benchmark_imports(tmp_path: Path) -> None:
    other = tmp_path / "old-checkout" / "src"
    (other / "duyun").mkdir(parents=True)
    (other / "duyun" / "__init__.py").write_text("", encoding="utf-8")
    hider = tmp_path / "hide-uvloop"
    hider.mkdir()
    src, path = _ask(os.pathsep.join([str(hider), str(other)]))
    assert Path(src) == other.resolve()
    # the old checkout first, the caller's folders kept behind it
    assert path.split(os.pathsep) == [str(other.resolve()), str(hider), str(other)]


def test_without_pythonpath_the_servers_run_the_installed_duyun() -> None:
    import duyun

    src, path = _ask(None)
    assert Path(src) == Path(duyun.__file__).resolve().parents[1]
    assert path == src
