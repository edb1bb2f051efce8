"""Several server processes as one service (issue 24): ``server_processes`` (each process's
public address, heartbeat and drain flag), ``table_codes`` (every table of every process, the
primary key making codes unique across processes, with a summary for the shared lobby) and
``quick_queue_rooms`` (one row per room, locked while a quick match picks or opens a table so
two processes never open two half-empty tables of one room at the same moment).

Revision ID: 0005
Revises: 0004 (the lead rechains it after 0003)
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_processes",
        sa.Column("owner", sa.String(128), primary_key=True),
        sa.Column("url", sa.String(512), nullable=True),
        sa.Column("heartbeat", sa.Double(), nullable=False),
        sa.Column("draining", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "table_codes",
        sa.Column("code", sa.String(6), primary_key=True),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("room", sa.String(64), nullable=True),
        sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("free", sa.Integer(), nullable=False, server_default="4"),
        sa.Column("humans", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("reserved", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("reserved_until", sa.Double(), nullable=False, server_default="0"),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("created", sa.Double(), nullable=False),
        sa.Column("updated", sa.Double(), nullable=False),
    )
    op.create_index("ix_table_codes_owner", "table_codes", ["owner"])
    op.create_index("ix_table_codes_room_status", "table_codes", ["room", "status"])
    op.create_table(
        "quick_queue_rooms",
        sa.Column("room", sa.String(64), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("quick_queue_rooms")
    op.drop_index("ix_table_codes_room_status", table_name="table_codes")
    op.drop_index("ix_table_codes_owner", table_name="table_codes")
    op.drop_table("table_codes")
    op.drop_table("server_processes")
