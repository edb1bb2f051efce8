"""Placeholder: the strong bot plays as the efficient bot until its own policy lands."""

from __future__ import annotations

from duyun.bots.efficient import EfficientBot


class StrongBot(EfficientBot):
    name = "strong"
