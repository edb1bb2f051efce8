"""A seat's 托管 survives a restart: ``match_seats.tuoguan`` (issue 37).

A person who turned 托管 on, or whose turns ran out twice in a row, is played by the bot until
they switch it off. The flag lived only in the server's memory, so after a restart the seat
waited for its player again: full turn timers while they were away, and a next hand that
waited for a 下一局 nobody would press.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.add_column(
            sa.Column("tuoguan", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_column("tuoguan")
