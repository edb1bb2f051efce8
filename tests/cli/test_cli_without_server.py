"""`pip install duyun` without the `server` extra (issue 22 item 6).

The web stack is an extra, so the core, bots, simulation and the CLI must work where it is not
installed. These tests run in a subprocess in which every module of the extra is made
unimportable (``sys.modules[name] = None`` makes ``import name`` raise ImportError), which is
what a machine without the extra looks like to the package.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from duyun.cli.common import SERVER_MODULES

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "gang-shang-pao.json"

# Blocks the web stack, then runs `duyun ARGS...` as the console script would.
CLI_WITHOUT_SERVER = """
import sys
for name in {modules!r}:
    sys.modules[name] = None
from duyun.cli.main import main
sys.argv = ["duyun", *sys.argv[1:]]
main()
"""

# Imports the given modules and prints which web-stack modules came with them.
IMPORTED_WEB_MODULES = """
import json, sys
for name in sys.argv[1:]:
    __import__(name)
web = {modules!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in web)))
"""


def _duyun_without_server(*args: str) -> subprocess.CompletedProcess[str]:
    code = CLI_WITHOUT_SERVER.format(modules=SERVER_MODULES)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_blocked_modules_really_are_unimportable() -> None:
    """Guards the harness: if blocking failed, every other test here would prove nothing."""
    code = CLI_WITHOUT_SERVER.split("from duyun")[0] + "import fastapi\n"
    done = subprocess.run(
        [sys.executable, "-c", code.format(modules=SERVER_MODULES)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "ImportError" in done.stderr or "ModuleNotFoundError" in done.stderr


def test_analyze_works_without_the_server_extra() -> None:
    done = _duyun_without_server("analyze", "11m234p678s [555p] (9999s)", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)


def test_play_help_works_without_the_server_extra() -> None:
    done = _duyun_without_server("play", "--help")
    assert done.returncode == 0, done.stderr
    assert "--bots" in done.stdout


def test_simulate_works_without_the_server_extra() -> None:
    done = _duyun_without_server(
        "simulate", "--hands", "4", "--workers", "1", "--no-progress", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)


def test_scenario_works_without_the_server_extra() -> None:
    """R28 槓上炮: the example pays the kong's income to the winner as well."""
    done = _duyun_without_server("scenario", str(SCENARIO), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "win"


@pytest.mark.parametrize(
    ("command", "args"),
    [
        ("serve", ["serve", "--port", "0"]),
        ("admin", ["admin", "audit", "--database-url", "sqlite:///nowhere.db"]),
        ("admin", ["admin", "accounts"]),
        ("admin", ["admin", "grant", "alice", "10"]),
    ],
)
def test_server_commands_name_the_missing_extra_in_one_line(command: str, args: list[str]) -> None:
    done = _duyun_without_server(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"error: duyun {command} needs the server extra: pip install 'duyun[server]'\n"
    )


def test_admin_help_works_without_the_server_extra() -> None:
    done = _duyun_without_server("admin", "--help")
    assert done.returncode == 0, done.stderr
    assert "audit" in done.stdout


@pytest.mark.parametrize(
    ("modules", "web"),
    [
        (
            ["duyun", "duyun.engine", "duyun.bots", "duyun.sim", "duyun.rl"],
            (*SERVER_MODULES, "pydantic"),
        ),
        # Typer itself brings pydantic (a dependency of recent releases), so the CLI is held
        # to the rest of the web stack
        (["duyun.cli.main"], SERVER_MODULES),
    ],
)
def test_core_bots_sim_rl_and_cli_import_no_web_module(
    modules: list[str], web: tuple[str, ...]
) -> None:
    """The modules a researcher uses load without pulling in any part of the web stack."""
    done = subprocess.run(
        [sys.executable, "-c", IMPORTED_WEB_MODULES.format(modules=web), *modules],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


# Blocks NumPy, then plays a hand with 大師 and prints what its samples were shaped by.
SEARCH_WITHOUT_NUMPY = """
import sys
sys.modules["numpy"] = None
from duyun.bots import make_bot
from duyun.engine import new_round
game = new_round(4)
bots = [make_bot("search" if seat == 0 else "efficient", seat) for seat in range(4)]
shapes = set()
while not game.is_over:
    seat = game.to_act[0]
    view = game.view(seat)
    if seat == 0:
        shapes.add(bots[0].hand_model(view) is None)
    game.apply(bots[seat].choose(view))
loaded = {name.split(".")[0] for name, module in sys.modules.items() if module is not None}
from duyun.cli.play import uniform_master_notice
notice = uniform_master_notice()
print(sorted(shapes), bots[0].searched > 0, "numpy" in loaded, "NumPy" in (notice or ""))
"""


def test_the_search_bot_plays_without_numpy_on_uniform_samples() -> None:
    """The core install has no NumPy: 大師 still plays, its samples uniform (the learned
    model's readiness needs NumPy: the server, rl and train extras install it)."""
    done = subprocess.run(
        [sys.executable, "-c", SEARCH_WITHOUT_NUMPY],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    # and `duyun play` tells the player that this 大師 is the weaker one
    assert done.stdout.split() == ["[True]", "True", "False", "True"], done.stdout


def test_duyun_play_says_nothing_of_the_model_where_numpy_runs_it() -> None:
    """With NumPy 大師 plays as the online game's does: no notice at the start of a match."""
    from duyun.cli.play import uniform_master_notice

    assert uniform_master_notice() is None
