"""SQLAlchemy models of the game database. The schema itself is created by the Alembic
migrations in ``duyun/server/migrations``; these models must match them (a test compares the
two with Alembic's autogenerate and expects no difference).

Times that are compared in queries (login attempts, leases) are stored as epoch seconds (a float
column) so SQLite and PostgreSQL compare them the same way; other times are timestamps.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: openskill's defaults: a new player's rating mean and uncertainty
RATING_MU = 25.0
RATING_SIGMA = 25.0 / 3


class Base(DeclarativeBase):
    pass


class AccountRow(Base):
    """A guest, a registered user or the house. ``name_key`` (casefolded name) is unique so
    that "Alice" and "alice" cannot both register."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("kind IN ('guest', 'user', 'house')", name="ck_accounts_kind"),
        # R41 with the never-below-zero rule: only the house may owe
        CheckConstraint("kind = 'house' OR balance >= 0", name="ck_accounts_balance"),
        UniqueConstraint("name_key", name="uq_accounts_name_key"),
        # the rating leaderboard (issue 32): rated accounts in order, read from the top
        Index("ix_accounts_rating", "rating", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), nullable=False)
    name_key: Mapped[str] = mapped_column(String(40), nullable=False)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    balance: Mapped[int] = mapped_column(BigInteger, nullable=False, default=0)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    #: tokens name the generation they were issued in; "log out everywhere" raises it, which
    #: refuses every older token (migration 0004)
    token_generation: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default="0"
    )
    #: the skill rating (issue 32, openskill's Bradley-Terry): mean and uncertainty, the shown
    #: value (NULL until the first rated match, so the leaderboard's index holds only rated
    #: accounts) and how many rated matches it rests on (migration 0007)
    rating_mu: Mapped[float] = mapped_column(
        Double, nullable=False, default=RATING_MU, server_default=text(repr(RATING_MU))
    )
    rating_sigma: Mapped[float] = mapped_column(
        Double, nullable=False, default=RATING_SIGMA, server_default=text(repr(RATING_SIGMA))
    )
    rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rated_matches: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default="0"
    )


class BotRatingRow(Base):
    """The rating of one bot level (issue 32): every bot seat of that level plays as it, so the
    lobby can say what level of player a bot is."""

    __tablename__ = "bot_ratings"

    bot: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating_mu: Mapped[float] = mapped_column(Double, nullable=False)
    rating_sigma: Mapped[float] = mapped_column(Double, nullable=False)
    rating: Mapped[int] = mapped_column(Integer, nullable=False)
    rated_matches: Mapped[int] = mapped_column(Integer, nullable=False)


class RatingHistoryRow(Base):
    """One seat of one rated match: the rating before and after (an account's history chart,
    the match summary's change). A bot seat names its level in ``bot``."""

    __tablename__ = "rating_history"
    __table_args__ = (
        Index("ix_rating_history_account", "account_id", "id"),
        Index("ix_rating_history_match", "match_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("matches.id", ondelete="CASCADE"), nullable=False
    )
    seat: Mapped[int] = mapped_column(Integer, nullable=False)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True
    )
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    place: Mapped[int] = mapped_column(Integer, nullable=False)
    before: Mapped[int] = mapped_column(Integer, nullable=False)
    after: Mapped[int] = mapped_column(Integer, nullable=False)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class BonusClaimRow(Base):
    """One daily gift or top-up paid (issue 32), beside its ledger row. ``number`` counts the
    account's claims of the kind that day from 1, and the unique key on it is what makes two
    claims at the same moment (two tabs, two processes) pay once; ``client`` is the address
    the per-address cap counts."""

    __tablename__ = "bonus_claims"
    __table_args__ = (
        CheckConstraint("kind IN ('gift', 'topup')", name="ck_bonus_claims_kind"),
        UniqueConstraint("account_id", "kind", "day", "number", name="uq_bonus_claims_number"),
        Index("ix_bonus_claims_client", "client", "day", "kind"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), nullable=False)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    day: Mapped[str] = mapped_column(String(10), nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    coins: Mapped[int] = mapped_column(BigInteger, nullable=False)
    ledger_id: Mapped[int] = mapped_column(Integer, ForeignKey("coin_ledger.id"), nullable=False)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class SettingRow(Base):
    """Process-independent settings, e.g. the token signing secret shared by every server
    process on the same database."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text, nullable=False)


class RevokedTokenRow(Base):
    """A logged-out token (its SHA-256), kept until it would have expired anyway."""

    __tablename__ = "revoked_tokens"
    __table_args__ = (Index("ix_revoked_tokens_expires", "expires"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires: Mapped[float] = mapped_column(Double, nullable=False)


class LoginAttemptRow(Base):
    """A failed login, kept for the rate limit's window so the limit survives restarts and is
    shared by every process."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_name_at", "name_key", "at"),
        Index("ix_login_attempts_client_at", "client", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name_key: Mapped[str] = mapped_column(String(40), nullable=False)
    client: Mapped[str | None] = mapped_column(String(64), nullable=True)
    at: Mapped[float] = mapped_column(Double, nullable=False)


class MatchRow(Base):
    """A match (quick-match room table or private 好友房) with what is needed to restore it."""

    __tablename__ = "matches"
    __table_args__ = (
        CheckConstraint("kind IN ('room', 'private')", name="ck_matches_kind"),
        CheckConstraint(
            "status IN ('open', 'playing', 'completed', 'dissolved')", name="ck_matches_status"
        ),
        CheckConstraint("stake >= 0", name="ck_matches_stake"),
        CheckConstraint("hands >= 1", name="ck_matches_hands"),
        Index("ix_matches_status", "status"),
        Index("ix_matches_code", "code"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    room: Mapped[str] = mapped_column(String(64), nullable=False)
    code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    stake: Mapped[int] = mapped_column(BigInteger, nullable=False)
    hands: Mapped[int] = mapped_column(Integer, nullable=False)
    seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    first_dealer: Mapped[int] = mapped_column(Integer, nullable=False)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    options: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    status: Mapped[str] = mapped_column(String(12), nullable=False)
    reason: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease_expires: Mapped[float | None] = mapped_column(Double, nullable=True)
    #: bumped at every adoption of the match; each write names the epoch its table holds, so a
    #: process that lost the lease (paused past it) cannot write after the adopter (0003)
    lease_epoch: Mapped[int] = mapped_column(
        Integer, nullable=False, default=0, server_default=text("0")
    )


class MatchSeatRow(Base):
    """Who sits at each of a match's four seats; ``account_id`` NULL is a bot (the house)."""

    __tablename__ = "match_seats"
    __table_args__ = (
        CheckConstraint("seat >= 0 AND seat < 4", name="ck_match_seats_seat"),
        Index("ix_match_seats_account", "account_id"),
    )

    match_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    account_id: Mapped[int | None] = mapped_column(
        Integer, ForeignKey("accounts.id"), nullable=True
    )
    bot: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: the player escaped (R45) or left during the match: a bot plays the seat to the end, also
    #: after a restart (migration 0002)
    forced_tuoguan: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )
    #: the seat's 托管 is on (its player's choice, or two turns run out): a restart keeps it
    #: (migration 0006)
    tuoguan: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )


class HandRow(Base):
    """One hand of a match; ``result`` (JSON) is written with its coin rows."""

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("match_id", "index", name="uq_hands_match_index"),
        CheckConstraint("status IN ('playing', 'finished')", name="ck_hands_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("matches.id", ondelete="CASCADE"), nullable=False
    )
    index: Mapped[int] = mapped_column(Integer, nullable=False)
    seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    dealer: Mapped[int] = mapped_column(Integer, nullable=False)
    streak: Mapped[int] = mapped_column(Integer, nullable=False)
    status: Mapped[str] = mapped_column(String(10), nullable=False)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class HandEventRow(Base):
    """One engine event of a hand's log, numbered from 0: the log a replay reads."""

    __tablename__ = "hand_events"

    hand_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    event: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)


class CoinRowModel(Base):
    """One coin transfer (R41). ``coins`` moved; ``requested`` was owed; ``cut`` the part a
    human payer could not pay. Hand rows also record the seats and the engine payment's rule."""

    __tablename__ = "coin_ledger"
    __table_args__ = (
        CheckConstraint("coins >= 0", name="ck_coin_ledger_coins"),
        CheckConstraint("cut >= 0 AND cut = requested - coins", name="ck_coin_ledger_cut"),
        CheckConstraint(
            "kind IN ('starting', 'grant', 'hand', 'gift', 'topup')", name="ck_coin_ledger_kind"
        ),
        Index("ix_coin_ledger_payer", "payer_id"),
        # the weekly leaderboard reads one week of hand rows (issue 32)
        Index("ix_coin_ledger_kind_created", "kind", "created"),
        Index("ix_coin_ledger_payee", "payee_id"),
        Index("ix_coin_ledger_hand", "hand_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    payer_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), nullable=False)
    payee_id: Mapped[int] = mapped_column(Integer, ForeignKey("accounts.id"), nullable=False)
    coins: Mapped[int] = mapped_column(BigInteger, nullable=False)
    requested: Mapped[int] = mapped_column(BigInteger, nullable=False)
    cut: Mapped[int] = mapped_column(BigInteger, nullable=False)
    kind: Mapped[str] = mapped_column(String(10), nullable=False)
    rule: Mapped[str] = mapped_column(String(32), nullable=False)
    note: Mapped[str] = mapped_column(String(255), nullable=False)
    hand_id: Mapped[int | None] = mapped_column(Integer, ForeignKey("hands.id"), nullable=True)
    payer_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    payee_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


class HandReviewRow(Base):
    """大師's review of one seat's decisions in a finished hand (issue 36, migration 0008).

    A review costs seconds of CPU per hand and its result never changes (it is deterministic by
    its samples and seed, and a finished hand's log is final), so it is computed once per
    (hand, seat) and kept; ``review`` is its JSON form (docs/review.md)."""

    __tablename__ = "hand_reviews"
    __table_args__ = (CheckConstraint("seat >= 0 AND seat <= 3", name="ck_hand_reviews_seat"),)

    hand_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    samples: Mapped[int] = mapped_column(Integer, nullable=False)
    seed: Mapped[int] = mapped_column(BigInteger, nullable=False)
    review: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    #: the CPU seconds its computation took (the operator's measure of what reviews cost)
    cpu_seconds: Mapped[float] = mapped_column(Double, nullable=False)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)


#: the Core tables behind the rows that a crowd's tables write as they start: their INSERTs and
#: the fencing read of a match go to these rather than through the ORM, whose unit of work and
#: bulk-insert path cost more than the statements themselves (docs/deploy.md, the ninth round)
MATCHES = cast(Table, MatchRow.__table__)
MATCH_SEATS = cast(Table, MatchSeatRow.__table__)
HANDS = cast(Table, HandRow.__table__)
