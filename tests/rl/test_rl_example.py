"""The imitation-learning example runs end to end (tiny sizes), so it cannot rot unnoticed."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rl_imitation.py"


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The example script as a module (registered, as dataclasses need)."""
    spec = importlib.util.spec_from_file_location("rl_imitation", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "rl_imitation", module)
    spec.loader.exec_module(module)
    return module


def test_imitation_example_trains_and_reports_duplicate_confidence_intervals(
    example: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--train-hands", "3", "--eval-walls", "2", "--epochs", "2", "--hidden", "16"]
    assert example.main([*args, "--opponents", "efficient"]) == 0
    out = capsys.readouterr().out
    assert "multi-choice decisions" in out
    rows = re.findall(
        r"^  (.+?)\s+([+-]\d+\.\d\d)\s+\[\s*([+-]\d+\.\d\d),\s*([+-]\d+\.\d\d)\]$",
        out,
        re.MULTILINE,
    )
    labels = [row[0].strip() for row in rows]
    assert labels == [
        "imitation policy",
        "strong bot (teacher)",
        "random legal actions",
        "policy - strong (paired)",
        "policy - random (paired)",
    ]
    for _, mean, low, high in rows:
        assert float(low) <= float(mean) <= float(high)


def test_imitation_example_rejects_tiny_sizes(example: ModuleType) -> None:
    with pytest.raises(SystemExit):
        example.main(["--eval-walls", "1"])
