"""Accounts' secrets: name and password rules, argon2 hashes, signed session tokens, and the
login rate limit's arithmetic. The store keeps the data (hashes, the signing secret, failed
attempts); this module decides what is valid.

Decisions (issue 9 left them open):

- Names: 3 to 20 characters, or 2 when every one is a Chinese character (小明: most Chinese
  given names are two, issue 32), letters of one script (so 王小明 and Алиса work; Latin may mix
  with the CJK scripts, as in Mei王), ASCII digits, ``_`` and ``-``; compared case-insensitively
  (NFKC + casefold). ``house``, ``admin``, ``system`` and names starting with ``guest-`` or
  ``bot`` are reserved for the server's own accounts and seats, also when written with
  lookalike letters (Cyrillic ``аdmin``, ``guest_123456``, ``h0use``): the reserved check
  compares confusable skeletons (issue 20 item 17).
- Passwords: 8 to 128 characters, not the name itself. No composition rules (NIST 800-63B).
- Tokens: itsdangerous ``URLSafeTimedSerializer`` over ``{"a": account_id}`` with a secret
  stored in the database (every process on the database accepts every other's tokens).
- Rate limit: a name is refused after N failures within the window (default 5 in 15 min), a
  client address after M (default 20); a success clears that name's failures. Refused attempts
  are not counted, so waiting out the window always works.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from duyun.server.store.types import AccountError, AuthError

NAME_MIN = 3
#: the shortest name written in Chinese characters only (each is a syllable: 小明)
NAME_MIN_HAN = 2
NAME_MAX = 20
PASSWORD_MIN = 8
PASSWORD_MAX = 128
RESERVED_PREFIXES = ("guest-", "bot")
RESERVED_NAMES = frozenset({"house", "admin", "system"})
TOKEN_SALT = "duyun-session-v1"


def name_key(name: str) -> str:
    """The form names are compared in: NFKC-normalised and casefolded."""
    return unicodedata.normalize("NFKC", name).casefold()


#: letters that look like Latin ones, after casefolding (a small table from Unicode's
#: confusables.txt: Cyrillic, Greek, IPA and small capitals; digits 0 and 1 for o and l)
CONFUSABLES = str.maketrans(
    {
        **dict(zip("авгдеёзіїјкмнопрстухьԁһӏѕԛԝѵҽ", "abrdee3iijkmhonpctyxbdhlsqwve", strict=True)),
        **dict(zip("αβγεηικνορτυχωςμ", "abyenikvoptuxwcu", strict=True)),
        **dict(zip("ıɑɡɩʟɴᴏʀꜱᴛᴜᴠᴡʏᴢᴀʙᴄᴅᴇꜰɢʜɪᴊᴋᴍᴘ", "iagilnorstuvwyzabcdefghijkmp", strict=True)),
        "0": "o",
        "1": "l",
        "_": "-",
    }
)
#: scripts that may share one name (Unicode's "highly restrictive" level: Latin with Han and
#: the Japanese, Korean and Bopomofo scripts); any other two scripts in one name are refused
_CJK_FAMILY = frozenset(
    {"LATIN", "CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "BOPOMOFO", "HANGUL"}
)


def skeleton(name: str) -> str:
    """The form lookalike names share: NFKC, accents removed, casefolded, confusable letters
    mapped to the Latin ones they imitate. Only used to compare with reserved names."""
    decomposed = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    bare = "".join(ch for ch in decomposed if not unicodedata.category(ch).startswith("M"))
    return bare.casefold().translate(CONFUSABLES)


def _script(ch: str) -> str | None:
    """The script of a letter (the first word of its Unicode name), None for digits, '_', '-'
    and combining marks, which belong to any script."""
    if ch in "_-" or "0" <= ch <= "9" or unicodedata.category(ch).startswith("M"):
        return None
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
    return "CJK" if word == "IDEOGRAPHIC" else word


def validate_name(name: object) -> str:
    """The cleaned name (NFKC, surrounding spaces removed), or :class:`AccountError` saying why
    it is refused."""
    if not isinstance(name, str):
        raise AccountError(f"name must be text, not {type(name).__name__}")
    cleaned = unicodedata.normalize("NFKC", name).strip()
    han = bool(cleaned) and all(_script(ch) == "CJK" for ch in cleaned)
    if not (NAME_MIN_HAN if han else NAME_MIN) <= len(cleaned) <= NAME_MAX:
        raise AccountError(
            f"name must be {NAME_MIN} to {NAME_MAX} characters long ({NAME_MIN_HAN} when all "
            f"are Chinese characters), got {len(cleaned)}"
        )
    previous = ""
    for ch in cleaned:
        category = unicodedata.category(ch)
        mark = category.startswith("M") and previous.isalpha()  # an accent on a letter
        if not (category.startswith("L") or "0" <= ch <= "9" or ch in "_-" or mark):
            raise AccountError(
                f"name may hold only letters, digits 0-9, '_' and '-'; {ch!r} is not allowed"
            )
        previous = ch if not category.startswith("M") else ""
    scripts = {s for s in map(_script, cleaned) if s is not None}
    if len(scripts) > 1 and not scripts <= _CJK_FAMILY:
        names = ", ".join(sorted(s.title() for s in scripts))
        raise AccountError(f"name mixes letters of different scripts ({names}); use one")
    key, shape = name_key(cleaned), skeleton(cleaned)
    reserved_shapes = {skeleton(r) for r in RESERVED_NAMES}
    if (
        key in RESERVED_NAMES
        or key.startswith(RESERVED_PREFIXES)
        or shape in reserved_shapes
        or shape.startswith(tuple(skeleton(p) for p in RESERVED_PREFIXES))
    ):
        raise AccountError(f"name {cleaned!r} is reserved (or looks like a reserved name)")
    return cleaned


def validate_password(password: object, name: str) -> str:
    """The password unchanged, or :class:`AccountError` saying why it is refused."""
    if not isinstance(password, str):
        raise AccountError(f"password must be text, not {type(password).__name__}")
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(
            f"password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long, "
            f"got {len(password)}"
        )
    if name_key(password) == name_key(name):
        raise AccountError("password must not be the name")
    return password


class PasswordHashing:
    """argon2id hashing with the configured cost; :meth:`verify` spends the same time on an
    unknown name (against a dummy hash) so timing does not tell which names exist."""

    def __init__(self, time_cost: int = 2, memory_cost: int = 19 * 1024) -> None:
        self._hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost, parallelism=1)
        self._dummy: str | None = None  # made on first use: tools that never log in skip it

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, stored_hash: str | None, password: str) -> bool:
        """True if ``password`` matches; False (after the same work) when there is no hash."""
        if self._dummy is None:
            self._dummy = self._hasher.hash("duyun-dummy-password")
        try:
            return self._hasher.verify(stored_hash or self._dummy, password) and bool(stored_hash)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored_hash: str) -> bool:
        return self._hasher.check_needs_rehash(stored_hash)


class TokenSigner:
    """Signed, expiring session tokens naming an account id."""

    def __init__(self, secret: str, max_age: int) -> None:
        if max_age <= 0:
            raise ValueError(f"token max age must be positive, got {max_age}")
        self._serializer = URLSafeTimedSerializer(secret, salt=TOKEN_SALT)
        self._max_age = max_age

    @property
    def max_age(self) -> int:
        return self._max_age

    def issue(self, account_id: int, generation: int = 0) -> str:
        """A token for the account's current token ``generation`` (raised by "log out
        everywhere"); a random nonce makes every token distinct, so one can be revoked alone."""
        return self._serializer.dumps(
            {"a": account_id, "g": generation, "n": secrets.token_urlsafe(6)}
        )

    def account_id(self, token: object) -> int:
        """The account id in a valid token; :class:`AuthError` if forged, malformed or
        expired."""
        return self.claims(token)[0]

    def claims(self, token: object) -> tuple[int, int, float]:
        """``(account id, generation, issued at (epoch seconds))`` of a valid token;
        :class:`AuthError` if forged, malformed or expired. Tokens from before generations
        existed are generation 0."""
        if not isinstance(token, str) or not token or len(token) > 512:
            raise AuthError("session token missing or malformed")
        try:
            data, issued = self._serializer.loads(
                token, max_age=self._max_age, return_timestamp=True
            )
        except SignatureExpired as exc:
            raise AuthError("session token expired; log in again") from exc
        except BadSignature as exc:
            raise AuthError("session token invalid") from exc
        account = data.get("a") if isinstance(data, dict) else None
        generation = data.get("g", 0) if isinstance(data, dict) else None
        for value in (account, generation):
            if not isinstance(value, int) or isinstance(value, bool):
                raise AuthError("session token invalid")
        assert isinstance(account, int) and isinstance(generation, int)
        return account, generation, issued.timestamp()


def token_digest(token: str) -> str:
    """What the store keeps of a revoked token: never the token itself."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def retry_after(failure_times: list[float], limit: int, window: float, now: float) -> float:
    """Seconds until fewer than ``limit`` of ``failure_times`` fall in the window ending at
    ``now`` (0 when an attempt is allowed now)."""
    recent = sorted(t for t in failure_times if t > now - window)
    if len(recent) < limit:
        return 0.0
    # the attempt is allowed once the oldest failure that keeps us at the limit leaves the window
    oldest_blocking = recent[len(recent) - limit]
    return max(0.0, oldest_blocking + window - now)
