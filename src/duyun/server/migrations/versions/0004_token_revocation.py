"""Sessions can be revoked (issue 20 item 15): ``accounts.token_generation`` and
``revoked_tokens``.

Tokens were only signed, so a token stayed valid for its whole 30 days whatever happened. A token
now names its account's token generation: ``POST /api/logout {"everywhere": true}`` raises the
generation, which refuses every token issued before. A plain logout stores the SHA-256 of the one
token in ``revoked_tokens`` until the token would have expired anyway.

Revision ID: 0004
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(
            sa.Column("token_generation", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "revoked_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("expires", sa.Double(), nullable=False),
    )
    op.create_index("ix_revoked_tokens_expires", "revoked_tokens", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_revoked_tokens_expires", table_name="revoked_tokens")
    op.drop_table("revoked_tokens")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("token_generation")
