"""Initial schema: accounts, settings, login attempts, matches, seats, hands, events, coins.

Also creates the house account (bots' seats pay and are paid through it; it funds starting
balances and grants) and the token signing secret shared by every server process.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    accounts = op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('guest', 'user', 'house')", name="ck_accounts_kind"),
        sa.CheckConstraint("kind = 'house' OR balance >= 0", name="ck_accounts_balance"),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    )
    settings = op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name_key", sa.String(40), nullable=False),
        sa.Column("client", sa.String(64), nullable=True),
        sa.Column("at", sa.Double(), nullable=False),
    )
    op.create_index("ix_login_attempts_name_at", "login_attempts", ["name_key", "at"])
    op.create_index("ix_login_attempts_client_at", "login_attempts", ["client", "at"])
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("room", sa.String(64), nullable=False),
        sa.Column("code", sa.String(16), nullable=True),
        sa.Column("stake", sa.BigInteger(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("first_dealer", sa.Integer(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("reason", sa.String(64), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_owner", sa.String(128), nullable=True),
        sa.Column("lease_expires", sa.Double(), nullable=True),
        sa.CheckConstraint("kind IN ('room', 'private')", name="ck_matches_kind"),
        sa.CheckConstraint(
            "status IN ('open', 'playing', 'completed', 'dissolved')", name="ck_matches_status"
        ),
        sa.CheckConstraint("stake >= 0", name="ck_matches_stake"),
        sa.CheckConstraint("hands >= 1", name="ck_matches_hands"),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_index("ix_matches_code", "matches", ["code"])
    op.create_table(
        "match_seats",
        sa.Column(
            "match_id",
            sa.Integer(),
            sa.ForeignKey("matches.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("account_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("bot", sa.String(64), nullable=True),
        sa.CheckConstraint("seat >= 0 AND seat < 4", name="ck_match_seats_seat"),
    )
    op.create_index("ix_match_seats_account", "match_seats", ["account_id"])
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "match_id",
            sa.Integer(),
            sa.ForeignKey("matches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("match_id", "index", name="uq_hands_match_index"),
        sa.CheckConstraint("status IN ('playing', 'finished')", name="ck_hands_status"),
    )
    op.create_table(
        "hand_events",
        sa.Column(
            "hand_id",
            sa.Integer(),
            sa.ForeignKey("hands.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("event", sa.JSON(), nullable=False),
    )
    op.create_table(
        "coin_ledger",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("payer_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("payee_id", sa.Integer(), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("coins", sa.BigInteger(), nullable=False),
        sa.Column("requested", sa.BigInteger(), nullable=False),
        sa.Column("cut", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("rule", sa.String(32), nullable=False),
        sa.Column("note", sa.String(255), nullable=False),
        sa.Column("hand_id", sa.Integer(), sa.ForeignKey("hands.id"), nullable=True),
        sa.Column("payer_seat", sa.Integer(), nullable=True),
        sa.Column("payee_seat", sa.Integer(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("coins >= 0", name="ck_coin_ledger_coins"),
        sa.CheckConstraint("cut >= 0 AND cut = requested - coins", name="ck_coin_ledger_cut"),
        sa.CheckConstraint("kind IN ('starting', 'grant', 'hand')", name="ck_coin_ledger_kind"),
    )
    op.create_index("ix_coin_ledger_payer", "coin_ledger", ["payer_id"])
    op.create_index("ix_coin_ledger_payee", "coin_ledger", ["payee_id"])
    op.create_index("ix_coin_ledger_hand", "coin_ledger", ["hand_id"])

    op.bulk_insert(
        accounts,
        [
            {
                "name": "house",
                "name_key": "house",
                "kind": "house",
                "password_hash": None,
                "balance": 0,
                "created": datetime.now(UTC),
            }
        ],
    )
    op.bulk_insert(settings, [{"key": "token_secret", "value": secrets.token_urlsafe(48)}])


def downgrade() -> None:
    for table in (
        "coin_ledger",
        "hand_events",
        "hands",
        "match_seats",
        "matches",
        "login_attempts",
        "settings",
        "accounts",
    ):
        op.drop_table(table)
