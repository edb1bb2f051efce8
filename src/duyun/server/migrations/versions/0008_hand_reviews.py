"""大師's reviews of finished hands, stored once per (hand, seat): ``hand_reviews`` (issue 36).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hand_reviews",
        sa.Column("hand_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("samples", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("review", sa.JSON(), nullable=False),
        sa.Column("cpu_seconds", sa.Double(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("seat >= 0 AND seat <= 3", name="ck_hand_reviews_seat"),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("hand_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("hand_reviews")
