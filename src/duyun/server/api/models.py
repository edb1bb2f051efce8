"""What every REST request body shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Body(BaseModel):
    """Strict: a stake ``"5"`` or bots_allowed ``"no"`` is refused naming the field, never
    converted (issue 20 item 8); an unknown field is refused too."""

    model_config = ConfigDict(extra="forbid", strict=True)


__all__ = ["Body"]
