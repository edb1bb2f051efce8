"""The compiled build (setup.py, duyun._build): which modules run compiled, and the guard that
refuses compiled code built from other sources."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import duyun
from duyun import _build
from duyun._build import COMPILED_MODULES, StaleBuildError, check_compiled, source_digest


def test_compiled_modules_are_among_the_listed_ones() -> None:
    assert set(duyun.compiled_modules()) <= set(COMPILED_MODULES)
    for name in COMPILED_MODULES:
        assert (
            (Path(duyun.__file__).parent.joinpath(*name.split(".")[1:])).with_suffix(".py").exists()
        ), f"{name} is listed for compiling but has no source"


def test_the_ci_build_runs_compiled() -> None:
    """.ci/run sets DUYUN_REQUIRE_COMPILED: the suite (golden tests included) must then test the
    compiled engine that users install, not a silent pure-Python fallback."""
    compiled = duyun.compiled_modules()
    if not os.environ.get("DUYUN_REQUIRE_COMPILED") and not compiled:
        pytest.skip("pure-Python build (DUYUN_REQUIRE_COMPILED not set)")
    assert compiled == COMPILED_MODULES
    import duyun.engine.round as round_module

    assert Path(round_module.__file__).suffix in {
        Path(s).suffix for s in importlib.machinery.EXTENSION_SUFFIXES
    }


def _fake_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A package directory holding one 'compiled' module and its source, with digests."""
    package = tmp_path / "duyun"
    (package / "engine").mkdir(parents=True)
    source = package / "engine" / "round.py"
    source.write_text("X = 1\n")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (package / "engine" / f"round{suffix}").write_bytes(b"compiled")
    (package / _build.DIGESTS_FILE).write_text(
        json.dumps({"duyun.engine.round": source_digest(source)})
    )
    monkeypatch.setattr(_build, "_PACKAGE", package)
    monkeypatch.setattr(_build, "COMPILED_MODULES", ("duyun.engine.round",))
    return source


def test_matching_sources_pass_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(tmp_path, monkeypatch)
    assert _build.compiled_modules() == ("duyun.engine.round",)
    check_compiled()


def test_an_edited_source_refuses_to_run_its_old_compiled_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _fake_package(tmp_path, monkeypatch)
    source.write_text("X = 2\n")
    with pytest.raises(StaleBuildError, match=r"duyun\.engine\.round.*make build"):
        check_compiled()


def test_missing_digests_count_as_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(tmp_path, monkeypatch)
    (tmp_path / "duyun" / _build.DIGESTS_FILE).unlink()
    with pytest.raises(StaleBuildError, match="no longer match"):
        check_compiled()


def test_an_install_without_sources_is_not_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _fake_package(tmp_path, monkeypatch)
    source.unlink()
    check_compiled()


def test_a_pure_install_has_nothing_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _fake_package(tmp_path, monkeypatch)
    for compiled in source.parent.glob("round.*"):
        if compiled.suffix != ".py":
            compiled.unlink()
    source.write_text("X = 3\n")
    assert _build.compiled_modules() == ()
    check_compiled()


def test_setup_reads_the_build_list_without_importing_the_package(tmp_path: Path) -> None:
    """A rebuild starts from a tree whose compiled modules are stale: setup.py must not import
    the package (its import-time check would refuse to run, and the rebuild that the error
    message asks for could never happen)."""
    root = Path(__file__).resolve().parents[2]
    package = tmp_path / "src" / "duyun"
    package.mkdir(parents=True)
    (tmp_path / "setup.py").write_text((root / "setup.py").read_text())
    (package / "_build.py").write_text((root / "src" / "duyun" / "_build.py").read_text())
    (package / "__init__.py").write_text("raise ImportError('setup.py imported the package')\n")
    done = subprocess.run(
        [sys.executable, "setup.py", "--name"],
        cwd=tmp_path,
        env={**os.environ, "DUYUN_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "imported the package" not in done.stderr
