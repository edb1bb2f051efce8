"""Accounts' secrets: name/password rules, argon2 hashes, signed expiring tokens, and the login
rate limit (per name and per client address, stored so it survives a restart)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from itsdangerous.timed import TimestampSigner
from sqlalchemy import create_engine, text

from duyun.server.store import AccountError, AuthError, RateLimitedError, Store, StoreConfig, auth
from duyun.server.store.database import normalize_url
from duyun.server.store.types import StoreError

MakeStore = Callable[..., Store]


# ---------------------------------------------------------------- validation (pure)
@pytest.mark.parametrize(
    "name",
    # a name of Chinese characters alone may be two long: 小明 (issue 32's example)
    ["Mei", "王小明", "小明", "lin_99", "a-b-c", "  padded  "],
)
def test_valid_names(name: str) -> None:
    assert auth.validate_name(name) == name.strip()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ab", "3 to 20"),
        ("明", "3 to 20"),  # one Chinese character is too short
        ("a明", "3 to 20"),  # two characters, not all Chinese
        ("小1", "3 to 20"),
        ("x" * 21, "3 to 20"),
        ("has space", "not allowed"),
        ("semi;colon", "not allowed"),
        ("house", "reserved"),
        ("HOUSE", "reserved"),
        ("guest-123456", "reserved"),
        ("bot_strong", "reserved"),
        (42, "text"),
    ],
)
def test_invalid_names_say_why(name: object, why: str) -> None:
    with pytest.raises(AccountError, match=why):
        auth.validate_name(name)


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("short", "8 to 128"),
        ("x" * 129, "8 to 128"),
        ("Meimeimei", "not be the name"),
        (None, "text"),
    ],
)
def test_invalid_passwords_say_why(password: object, why: str) -> None:
    with pytest.raises(AccountError, match=why):
        auth.validate_password(password, "meimeimei")


def test_names_compare_casefolded_and_nfkc() -> None:
    assert auth.name_key("Ｍｅｉ") == auth.name_key("MEI") == "mei"


def test_argon2_hash_verifies_only_the_password() -> None:
    hashing = auth.PasswordHashing(time_cost=1, memory_cost=8)
    stored = hashing.hash("correct horse")
    assert stored.startswith("$argon2id$")
    assert hashing.verify(stored, "correct horse")
    assert not hashing.verify(stored, "correct horsf")
    assert not hashing.verify(None, "correct horse")  # unknown name: same work, refused
    assert not hashing.verify("not a hash", "correct horse")


def test_retry_after_arithmetic() -> None:
    assert auth.retry_after([], 3, 60, 100.0) == 0
    assert auth.retry_after([50.0, 60.0], 3, 60, 100.0) == 0
    assert auth.retry_after([50.0, 60.0, 70.0], 3, 60, 100.0) == pytest.approx(10.0)
    # four in the window: 45 and then 50 must leave it before a fourth failure fits
    assert auth.retry_after([45.0, 50.0, 60.0, 70.0], 3, 60, 100.0) == pytest.approx(10.0)
    assert auth.retry_after([10.0, 20.0, 30.0], 3, 60, 100.0) == 0  # all outside the window


def test_store_config_rejects_bad_values() -> None:
    for bad in (
        {"starting_balance": -1},
        {"login_window": 0},
        {"login_max_failures_per_name": 0},
        {"argon2_memory_cost": 1},
        {"secret_key": "short"},
    ):
        with pytest.raises(StoreError):
            StoreConfig(**bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- store: register, login, tokens
def test_register_login_and_token_round_trip(store: Store) -> None:
    user = store.register("Mei", "plum blossom")
    assert store.login("mei", "plum blossom") == store.account(user.id)
    token = store.issue_token(user.id)
    assert store.verify_token(token) == store.account(user.id)
    with pytest.raises(AuthError, match="wrong name or password"):
        store.login("Mei", "plum blossoms")
    with pytest.raises(AuthError, match="wrong name or password"):
        store.login("Nobody", "plum blossom")


def test_password_is_stored_only_as_argon2_hash(database_url: str, store: Store) -> None:
    store.register("Mei", "plum blossom")
    engine = create_engine(normalize_url(database_url))
    try:
        with engine.connect() as connection:
            stored = connection.execute(
                text("SELECT password_hash FROM accounts WHERE name = 'Mei'")
            ).scalar()
    finally:
        engine.dispose()
    assert isinstance(stored, str) and stored.startswith("$argon2id$")
    assert "plum blossom" not in stored


def test_guest_and_house_cannot_log_in_with_a_password(store: Store) -> None:
    guest = store.create_guest()
    with pytest.raises(AuthError):
        store.login(guest.name, "")
    with pytest.raises(AuthError):
        store.login("house", "anything at all")
    with pytest.raises(AuthError, match="house"):
        store.issue_token(store.house().id)
    assert store.verify_token(store.issue_token(guest.id)).id == guest.id  # guests use tokens


@pytest.mark.parametrize("token", ["", "garbage", "a.b.c", "x" * 1000, None, 12])
def test_malformed_tokens_are_refused(store: Store, token: object) -> None:
    with pytest.raises(AuthError):
        store.verify_token(token)  # type: ignore[arg-type]


def test_forged_and_foreign_tokens_are_refused(
    database_url: str, store: Store, make_store: MakeStore, tmp_path: object
) -> None:
    user = store.register("Mei", "plum blossom")
    token = store.issue_token(user.id)
    payload, _, signature = token.rpartition(".")
    with pytest.raises(AuthError, match="invalid"):
        store.verify_token(payload + "." + ("A" if signature[0] != "A" else "B") + signature[1:])
    other = make_store(f"sqlite:///{tmp_path}/other.db")  # another database: another secret
    with pytest.raises(AuthError):
        other.verify_token(token)
    # a second process on the same database accepts the token (the secret is in the database)
    assert make_store(database_url).verify_token(token).id == user.id


def test_tokens_expire(
    database_url: str, make_store: MakeStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(database_url, token_max_age=60)
    guest = store.create_guest()
    fresh = store.issue_token(guest.id)
    real = TimestampSigner.get_timestamp
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: real(self) - 61)
    old = store.issue_token(guest.id)
    monkeypatch.undo()
    assert store.verify_token(fresh).id == guest.id
    with pytest.raises(AuthError, match="expired"):
        store.verify_token(old)


def test_configured_secret_key_signs_tokens(database_url: str, make_store: MakeStore) -> None:
    pinned = make_store(database_url)
    guest = pinned.create_guest()
    key = "k" * 32
    signer = auth.TokenSigner(key, 3600)
    store = Store.open(
        database_url, StoreConfig(secret_key=key, argon2_time_cost=1, argon2_memory_cost=8)
    )
    try:
        assert store.verify_token(signer.issue(guest.id)).id == guest.id
        with pytest.raises(AuthError):
            store.verify_token(pinned.issue_token(guest.id))  # the database secret is not used
    finally:
        store.close()


# ---------------------------------------------------------------- rate limit
def _clocked(make_store: MakeStore, url: str, **config: int) -> tuple[Store, list[float]]:
    now = [1_000_000.0]
    return make_store(url, clock=lambda: now[0], **config), now


def test_rate_limit_per_name_then_window_expiry(database_url: str, make_store: MakeStore) -> None:
    store, now = _clocked(make_store, database_url, login_max_failures_per_name=3, login_window=60)
    store.register("Mei", "plum blossom")
    for _ in range(3):
        with pytest.raises(AuthError, match="wrong"):
            store.login("Mei", "wrong password")
        now[0] += 1
    with pytest.raises(RateLimitedError) as refused:
        store.login("Mei", "plum blossom")  # even the right password is refused now
    assert 0 < refused.value.retry_after <= 60
    with pytest.raises(RateLimitedError):
        store.login("MEI", "plum blossom")  # same name, other case
    now[0] += refused.value.retry_after + 0.01
    assert store.login("Mei", "plum blossom").name == "Mei"


def test_success_clears_name_failures(database_url: str, make_store: MakeStore) -> None:
    store, _ = _clocked(make_store, database_url, login_max_failures_per_name=3)
    store.register("Mei", "plum blossom")
    for _ in range(2):
        with pytest.raises(AuthError):
            store.login("Mei", "nope nope")
    store.login("Mei", "plum blossom")
    for _ in range(2):
        with pytest.raises(AuthError, match="wrong"):
            store.login("Mei", "nope nope")
    assert store.login("Mei", "plum blossom").name == "Mei"


def test_rate_limit_per_client_address_across_names(
    database_url: str, make_store: MakeStore
) -> None:
    store, _ = _clocked(
        make_store,
        database_url,
        login_max_failures_per_name=100,
        login_max_failures_per_client=4,
    )
    store.register("Mei", "plum blossom")
    for i in range(4):
        with pytest.raises(AuthError, match="wrong"):
            store.login(f"user{i}", "guessing", client="203.0.113.9")
    with pytest.raises(RateLimitedError):
        store.login("Mei", "plum blossom", client="203.0.113.9")
    assert store.login("Mei", "plum blossom", client="198.51.100.1").name == "Mei"
    assert store.login("Mei", "plum blossom").name == "Mei"  # no address given: name limit only


def test_rate_limit_survives_restart_and_is_shared(
    database_url: str, make_store: MakeStore
) -> None:
    now = [5_000.0]
    first = make_store(database_url, clock=lambda: now[0], login_max_failures_per_name=2)
    first.register("Mei", "plum blossom")
    for _ in range(2):
        with pytest.raises(AuthError):
            first.login("Mei", "wrong guess")
    first.close()
    second = make_store(database_url, clock=lambda: now[0], login_max_failures_per_name=2)
    with pytest.raises(RateLimitedError):
        second.login("Mei", "plum blossom")


def test_simultaneous_wrong_logins_never_exceed_the_limit(
    database_url: str, make_store: MakeStore
) -> None:
    """Each attempt counts as failed from the moment it is checked until its password proves
    right, so attempts racing each other through the slow argon2 check all see one another."""
    store, _ = _clocked(make_store, database_url, login_max_failures_per_name=3)
    store.register("Mei", "plum blossom")
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def guess(n: int) -> None:
        start.wait()
        try:
            store.login("Mei", f"wrong guess {n}")
        except RateLimitedError:
            outcomes.append("limited")
        except AuthError:
            outcomes.append("wrong")

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["limited"] * 5 + ["wrong"] * 3


def test_unknown_names_are_rate_limited_too(database_url: str, make_store: MakeStore) -> None:
    store, _ = _clocked(make_store, database_url, login_max_failures_per_name=2)
    for _ in range(2):
        with pytest.raises(AuthError, match="wrong"):
            store.login("ghost", "whatever1")
    with pytest.raises(RateLimitedError):
        store.login("ghost", "whatever1")


def test_login_rehashes_when_the_configured_cost_changed(
    database_url: str, make_store: MakeStore
) -> None:
    cheap = make_store(database_url)  # argon2 t=1, m=8 KiB
    cheap.register("Mei", "plum blossom")
    dearer = make_store(database_url, argon2_time_cost=2, argon2_memory_cost=16)
    engine = create_engine(normalize_url(database_url))

    def stored() -> str:
        with engine.connect() as connection:
            value = connection.execute(
                text("SELECT password_hash FROM accounts WHERE name = 'Mei'")
            ).scalar()
        assert isinstance(value, str)
        return value

    try:
        assert "m=8,t=1" in stored()
        dearer.login("Mei", "plum blossom")
        assert "m=16,t=2" in stored()
        assert cheap.login("Mei", "plum blossom").name == "Mei"  # still verifies either way
    finally:
        engine.dispose()
