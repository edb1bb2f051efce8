"""Free coins, ratings, leaderboards and fair matching (issue 32).

- ``coin_ledger.kind`` takes ``gift`` (the daily gift) and ``topup`` (破產補助), both paid by
  the house like a grant, so the zero-sum audit holds; an index on (kind, created) serves the
  weekly leaderboard;
- ``bonus_claims``: one row per gift or top-up paid, unique per account, kind, day and number,
  so two claims at the same moment pay once (on any number of processes);
- ``accounts`` gains its rating (mean, uncertainty, shown value, rated matches) with an index
  for the leaderboard; ``bot_ratings`` rates each bot level; ``rating_history`` keeps every
  rated match's before and after per seat;
- ``table_codes.addresses``: digests of the seated players' addresses, for quick match across
  processes.

Every existing row stays; new columns have server defaults (the rating starts empty: NULL
until an account's first rated match).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3
OLD_KINDS = "kind IN ('starting', 'grant', 'hand')"
NEW_KINDS = "kind IN ('starting', 'grant', 'hand', 'gift', 'topup')"


def _ledger_kinds(condition: str) -> None:
    # SQLite cannot alter a CHECK constraint: batch mode copies the table (every row) into
    # one created with the new constraint; PostgreSQL swaps the constraint in place
    with op.batch_alter_table("coin_ledger") as batch:
        batch.drop_constraint("ck_coin_ledger_kind", type_="check")
        batch.create_check_constraint("ck_coin_ledger_kind", condition)


def upgrade() -> None:
    _ledger_kinds(NEW_KINDS)
    op.create_index("ix_coin_ledger_kind_created", "coin_ledger", ["kind", "created"])
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(
            sa.Column(
                "rating_mu", sa.Double(), nullable=False, server_default=sa.text(repr(RATING_MU))
            )
        )
        batch.add_column(
            sa.Column(
                "rating_sigma",
                sa.Double(),
                nullable=False,
                server_default=sa.text(repr(RATING_SIGMA)),
            )
        )
        batch.add_column(sa.Column("rating", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("rated_matches", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_index("ix_accounts_rating", "accounts", ["rating", "id"])
    op.create_table(
        "bot_ratings",
        sa.Column("bot", sa.String(64), primary_key=True),
        sa.Column("rating_mu", sa.Double(), nullable=False),
        sa.Column("rating_sigma", sa.Double(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("rated_matches", sa.Integer(), nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "match_id",
            sa.Integer(),
            sa.ForeignKey("matches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("bot", sa.String(64), nullable=True),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("before", sa.Integer(), nullable=False),
        sa.Column("after", sa.Integer(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account_id", "id"])
    op.create_index("ix_rating_history_match", "rating_history", ["match_id"])
    op.create_table(
        "bonus_claims",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("client", sa.String(64), nullable=True),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.Column("ledger_id", sa.Integer(), sa.ForeignKey("coin_ledger.id"), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('gift', 'topup')", name="ck_bonus_claims_kind"),
        sa.UniqueConstraint("account_id", "kind", "day", "number", name="uq_bonus_claims_number"),
    )
    op.create_index("ix_bonus_claims_client", "bonus_claims", ["client", "day", "kind"])
    with op.batch_alter_table("table_codes") as batch:
        batch.add_column(
            sa.Column("addresses", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )


def downgrade() -> None:
    with op.batch_alter_table("table_codes") as batch:
        batch.drop_column("addresses")
    op.drop_index("ix_bonus_claims_client", table_name="bonus_claims")
    op.drop_table("bonus_claims")
    op.drop_index("ix_rating_history_match", table_name="rating_history")
    op.drop_index("ix_rating_history_account", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_table("bot_ratings")
    op.drop_index("ix_accounts_rating", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("rated_matches")
        batch.drop_column("rating")
        batch.drop_column("rating_sigma")
        batch.drop_column("rating_mu")
    op.drop_index("ix_coin_ledger_kind_created", table_name="coin_ledger")
    # rows of the new kinds cannot stay under the old constraint: they become grants (the
    # house paid them all the same, so every balance still equals its rows)
    op.execute("UPDATE coin_ledger SET kind = 'grant' WHERE kind IN ('gift', 'topup')")
    _ledger_kinds(OLD_KINDS)
