"""Writes are fenced by the lease: ``matches.lease_epoch``.

A process that was paused past its lease could wake up and store the move it had buffered
after another process adopted its match: appends checked only the sequence number, so the
adopter's next write failed and the match stayed stuck (issue 20 item 9). Every adoption bumps
the epoch, and every write for a match names the owner and epoch it holds; a write with a stale
epoch is refused.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("lease_epoch", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("lease_epoch")
