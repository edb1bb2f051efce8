"""A seat's forced 托管 survives a restart: ``match_seats.forced_tuoguan``.

A player who escaped (R45) or left during a match is played by the 托管 bot to the match's end.
The flag lived only in the server's memory, so after a restart the seat waited for its player
again and, if they stayed away, charged a second escape.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.add_column(
            sa.Column("forced_tuoguan", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_column("forced_tuoguan")
