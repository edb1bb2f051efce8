"""The models shipped in the package (duyun/learn/weights): NumPy alone runs them (issue 35)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from duyun.learn.models import load_models, shipped_dir

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_models_load_with_numpy_alone() -> None:
    """At play time no training library is imported: the shipped models run on NumPy."""
    code = (
        "import sys\n"
        "from duyun.engine import Round, deal_setup\n"
        "from duyun.learn.models import load_models\n"
        "opponent, value = load_models()\n"
        "game = Round(deal_setup(5))\n"
        "view = game.view(game.to_act[0])\n"
        "p = opponent.predict_view(view)\n"
        "assert 0 <= float(p.ready.min()) and float(p.ready.max()) <= 1\n"
        "print(value.predict_view(view))\n"
        "bad = [m for m in ('sklearn', 'scipy', 'torch', 'lightgbm') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    for meta in (m.mlp.meta for m in load_models()):
        assert meta["command"].startswith("duyun learn train") and "seed" in meta["train_config"]


def test_shipped_models_are_small() -> None:
    sizes = [path.stat().st_size for path in shipped_dir().glob("*.npz")]
    assert len(sizes) == 2 and sum(sizes) < 3_000_000
