"""Accounts: a name and a password (argon2id, never kept or logged in clear), and the
player id every session of the account speaks for.

A name is unique as its **key**: Unicode NFKC, case-folded, spaces collapsed (so ``Ana``,
``ANA`` and ``Ａｎａ`` are one name). It is 2 to 24 characters, has no control or format
characters, and may not pass for someone else: no first word ``Bot`` (the bots' seats are
named ``Bot <level>``), no name that looks like a word of :data:`RESERVED` (the site, its
staff), nor one that looks like another account's name: two names look alike when their
**skeletons** match (:func:`name_skeleton`: Unicode's confusable characters, TR39, folded to
one of each kind, then accents, case, spaces and signs dropped), so ``Vіctima`` with a
Cyrillic ``і`` is refused while ``Victima`` exists. Guests' names are checked the same way
(:func:`check_guest_name`), except that a guest may be called ``Invitado``.

A password is 8 to 256 characters, not blank, does not contain the name, and is not among
the guesses an attacker tries first: ``zxcvbn`` (its lists of common passwords, words,
names, keyboard patterns and sequences, with :data:`SITE_WORDS` and the name) must score it
2 or more of 4.

Every refusal is an :class:`AccountError` with a stable ``code`` and its ``params``.

A guest who signs up **claims** their history: the seats of their finished matches become
the account's (``truco_participants`` and the stored seats), so that their profile lists them.

>>> name_key("  Ｊosé   Luis ")
'josé luis'
>>> check_name("Bot experto")
Traceback (most recent call last):
...
truco.server.people.accounts.AccountError: name: names whose first word is 'Bot' are the bots'
>>> name_skeleton("Vіctima") == name_skeleton("Victima") == name_skeleton("VICTIMA")
True
>>> name_skeleton("Ana") == name_skeleton("Ama")
False
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import secrets
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from confusable_homoglyphs.confusables import is_confusable  # type: ignore[import-untyped]
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from zxcvbn import zxcvbn  # type: ignore[import-untyped]

from ..storage.store import accounts_table, matches_table, participants_table

T = TypeVar("T")

MIN_NAME, MAX_NAME = 2, 24
MIN_PASSWORD, MAX_PASSWORD = 8, 256
#: the lowest zxcvbn score (0-4) a password may have: 2 is "somewhat guessable" (about
#: 10^6 guesses or more); 0 and 1 are the common passwords, names and patterns
MIN_PASSWORD_SCORE = 2
#: zxcvbn reads at most this many characters (a longer password is not a common one)
_ZXCVBN_MAX = 72
#: words of this site and its players that zxcvbn's English lists lack: guessed first too
#: (zxcvbn's ``user_inputs``, with the account's own name)
SITE_WORDS = (
    "truco", "argento", "trucoargento", "contraseña", "contrasena", "clave", "argentina",
    "boca", "river", "envido", "retruco", "quiero", "mate",
)  # fmt: skip
#: names that would pass for the site or its staff, in Spanish and English: refused for
#: everyone, compared by skeleton (so case, accents and look-alike letters do not help)
RESERVED = frozenset(
    {
        "admin", "administrador", "administradora", "administrator", "administracion",
        "administration", "mod", "moderador", "moderadora", "moderator", "moderacion",
        "moderation", "null", "root", "server", "servidor", "sistema", "system", "soporte",
        "support", "ayuda", "help", "staff", "equipo", "oficial", "official", "seguridad",
        "security", "truco", "trucoargento", "webmaster",
    }
)  # fmt: skip
#: staff words refused as any word of a name too ("Admin Ana", "Soporte Oficial")
STAFF_WORDS = frozenset(
    {
        "admin", "administrador", "administradora", "administrator", "moderador",
        "moderadora", "moderator", "soporte", "support", "staff", "sistema", "system",
        "oficial", "official", "webmaster", "root",
    }
)  # fmt: skip
#: what a guest is called by default: reserved for accounts only
GUEST_WORDS = frozenset({"guest", "invitado", "invitada", "anonimo", "anonima", "anonymous"})
_BOT = re.compile(r"bots?(?![a-z])")
_hasher = PasswordHasher()
#: verified against when the name is unknown, so that both answers take as long
_DUMMY_HASH = _hasher.hash(secrets.token_hex(16))


class AccountError(ValueError):
    """A refused request: its HTTP status, a stable ``code`` with its ``params`` (the page
    words it as ``refusal.<code>``) and a one-line English reason for scripts."""

    def __init__(
        self, status: int, reason: str, code: str = "refused", params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.code = code
        self.params = params or {}

    def to_json(self) -> dict[str, Any]:
        return {"detail": self.reason, "code": self.code, "params": self.params}


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str


def name_key(name: str) -> str:
    """What makes two names the same name: NFKC, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


@functools.lru_cache(maxsize=8192)
def _prototype(ch: str) -> str:
    """One character for every character that looks like ``ch`` (Unicode's confusables,
    TR39, as ``confusable_homoglyphs`` ships them): the ASCII letter or digit among them
    if there is one, else the lowest. Each confusable links a character to its prototype,
    so the characters reached from ``ch`` are its whole class."""
    seen, todo = {ch}, [ch]
    while todo:
        found = is_confusable(todo.pop(), greedy=True)
        for entry in found or ():
            for glyph in entry["homoglyphs"]:
                look_alike = glyph["c"]
                if len(look_alike) == 1 and look_alike not in seen:
                    seen.add(look_alike)
                    todo.append(look_alike)
    plain = [c for c in seen if c.isascii() and c.isalnum()]
    return min(plain) if plain else min(seen)


def name_skeleton(name: str) -> str:
    """What a name looks like: case folded, look-alike characters folded to one (TR39
    confusables), then accents, spaces and signs dropped. Two names with one skeleton could be
    taken for each other."""
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name).casefold())
    folded = "".join(_prototype(ch) for ch in text if not unicodedata.combining(ch))
    text = unicodedata.normalize("NFD", folded).casefold()
    return "".join(ch for ch in text if ch.isalnum() and not unicodedata.combining(ch))


_RESERVED_SKELETONS = frozenset(name_skeleton(word) for word in RESERVED)
_STAFF_SKELETONS = frozenset(name_skeleton(word) for word in STAFF_WORDS)
_GUEST_SKELETONS = frozenset(name_skeleton(word) for word in GUEST_WORDS)


def looks_like_a_bot(name: str) -> bool:
    """Whether a name would pass for one of the bots' ("Bot 1 (simple)", "bot-x")."""
    return _BOT.match(name_key(name)) is not None


def reserved(name: str, guest: bool = False) -> bool:
    """Whether ``name`` looks like the site's or its staff's (a guest may be 'Invitado')."""
    skeleton = name_skeleton(name)
    if skeleton in _RESERVED_SKELETONS or (not guest and skeleton in _GUEST_SKELETONS):
        return True
    return any(name_skeleton(word) in _STAFF_SKELETONS for word in re.split(r"[\W_]+", name))


def check_name(name: str) -> str:
    """The display name to keep (NFKC, spaces collapsed); :class:`AccountError` (422) if
    it may not be an account's name (whether another account looks like it is
    :func:`create`'s to say)."""
    if any(not ch.isprintable() and not ch.isspace() for ch in name) or any(
        ch.isspace() and ch != " " for ch in name
    ):
        raise AccountError(
            422, "name: no control characters (letters, digits, spaces, signs)", "name_control"
        )
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        raise AccountError(422, "name: not valid Unicode text", "name_invalid")
    shown = " ".join(unicodedata.normalize("NFKC", name).split())
    if not MIN_NAME <= len(shown) <= MAX_NAME:
        raise AccountError(
            422,
            f"name: {MIN_NAME} to {MAX_NAME} characters",
            "name_length",
            {"min": MIN_NAME, "max": MAX_NAME},
        )
    check_guest_name(shown, guest=False)
    return shown


def check_guest_name(name: str, guest: bool = True) -> None:
    """:class:`AccountError` (422) for a name that passes for a bot, the site or its staff."""
    if looks_like_a_bot(name):
        raise AccountError(422, "name: names whose first word is 'Bot' are the bots'", "name_bot")
    if reserved(name, guest=guest):
        raise AccountError(422, f"name: {name!r} is reserved", "name_reserved", {"name": name})


def check_password(password: str, name: str = "") -> None:
    """:class:`AccountError` (422) for a password too weak (common, blank, the name) or
    not text."""
    if len(password) < MIN_PASSWORD:
        raise AccountError(
            422,
            f"password: at least {MIN_PASSWORD} characters",
            "password_too_short",
            {"min": MIN_PASSWORD},
        )
    if len(password) > MAX_PASSWORD:
        raise AccountError(
            422,
            f"password: at most {MAX_PASSWORD} characters",
            "password_too_long",
            {"max": MAX_PASSWORD},
        )
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in password) or "\x00" in password:
        raise AccountError(422, "password: not valid text", "password_invalid")
    if not password.strip():
        raise AccountError(422, "password: not only spaces", "password_blank")
    squeezed = "".join(name_key(name).split())
    if squeezed and squeezed in "".join(name_key(password).split()):
        raise AccountError(422, "password: it may not contain your name", "password_has_name")
    if len(password) <= _ZXCVBN_MAX:
        score = zxcvbn(password, user_inputs=[*SITE_WORDS, *([name] if name else [])])["score"]
        if score < MIN_PASSWORD_SCORE:
            raise AccountError(
                422,
                "password: too common or easy to guess (a word, a name, a sequence)",
                "password_common",
            )


def hash_password(password: str) -> str:
    """The argon2id hash kept in place of the password (tens of milliseconds: call it
    through a :class:`PasswordWork`)."""
    return _hasher.hash(password)


def password_matches(password_hash: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``password_hash`` was made of (``None``: an unknown
    name, checked against a dummy hash so that the answer takes as long)."""
    try:
        _hasher.verify(_DUMMY_HASH if password_hash is None else password_hash, password)
    except (VerificationError, InvalidHashError, UnicodeEncodeError):
        return False
    return password_hash is not None


@dataclass(slots=True)
class PasswordWork:
    """Where argon2 runs: at most ``concurrency`` hashes at once in threads (each one a
    core for tens of milliseconds), the others waiting their turn; beyond ``max_waiting``
    waiting, a new one is refused (429 ``login_busy``) rather than queued."""

    concurrency: int = 1
    max_waiting: int = 64
    waiting: int = 0
    _gate: asyncio.Semaphore | None = None
    #: how many run right now, and the most seen at once (for the tests and the curious)
    running: int = 0
    most_running: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a thread once a place is free; its result."""
        if self._gate is None:
            self._gate = asyncio.Semaphore(self.concurrency)
        if self.waiting >= self.max_waiting:
            raise AccountError(
                429,
                "too many logins at once: try again in a moment",
                "login_busy",
                {"retry_after": 1},
            )
        self.waiting += 1
        try:
            await self._gate.acquire()
        finally:
            self.waiting -= 1
        gate = self._gate
        future = asyncio.get_running_loop().run_in_executor(None, self._counted, work, *args)
        # the place is freed when the hash is done, even if the request went away before
        future.add_done_callback(lambda _: gate.release())
        return await asyncio.shield(future)

    def _counted(self, work: Callable[..., T], *args: Any) -> T:
        with self._lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        try:
            return work(*args)
        finally:
            with self._lock:
                self.running -= 1


# ------------------------------------------------------------------ the database
def _taken(name: str) -> AccountError:
    return AccountError(409, f"name: {name!r} is taken", "name_taken", {"name": name})


def _check_free(conn: Connection, name: str, account_id: str | None = None) -> None:
    """:class:`AccountError` (409) if another account has ``name``'s key, or a name that
    looks like it (the same skeleton)."""
    other = _by_key(conn, name_key(name))
    if other is not None and other.id != account_id:
        raise _taken(name)
    look_alike = _by_skeleton(conn, name_skeleton(name))
    if look_alike is not None and look_alike.id != account_id:
        raise AccountError(
            409,
            f"name: {name!r} looks like the account {look_alike.name!r}",
            "name_confusable",
            {"name": name, "other": look_alike.name},
        )


def create(
    engine: Engine,
    name: str,
    password_hash: str,
    guest_id: str | None,
    address: str | None = None,
) -> Account:
    """A new account named ``name`` (checked already), signed up from ``address``; with
    ``guest_id``, that guest's history becomes the account's. :class:`AccountError` (409)
    if the name is taken, or another account's name looks like it."""
    account = Account(secrets.token_urlsafe(12), name)
    try:
        with engine.begin() as conn:
            _check_free(conn, name)
            conn.execute(
                accounts_table.insert().values(
                    id=account.id,
                    name=name,
                    name_key=name_key(name),
                    name_skeleton=name_skeleton(name),
                    password_hash=password_hash,
                    created_at=time.time(),
                    signup_address=None if address is None else address[:64],
                )
            )
            if guest_id is not None:
                _claim(conn, guest_id, account.id)
    except IntegrityError:  # signed up meanwhile with the same name
        raise _taken(name) from None
    return account


def _claim(conn: Connection, guest_id: str, account_id: str) -> None:
    """Move a guest's seats in finished matches to the account."""
    mine = participants_table.c.player_id == guest_id
    ids = [r.match_id for r in conn.execute(select(participants_table.c.match_id).where(mine))]
    conn.execute(participants_table.update().where(mine).values(player_id=account_id))
    for match_id in ids:
        row = conn.execute(
            select(matches_table.c.table_json).where(matches_table.c.id == match_id)
        ).first()
        if row is None:
            continue
        table = json.loads(row.table_json)
        for seat in table.get("seats", []):
            if seat.get("player_id") == guest_id:
                seat["player_id"] = account_id
        conn.execute(
            matches_table.update()
            .where(matches_table.c.id == match_id)
            .values(table_json=json.dumps(table))
        )


@dataclass(frozen=True, slots=True)
class Login:
    """What logging in to a name reads before checking the password: the account (if
    the name has one) and its password's hash."""

    account: Account | None
    password_hash: str | None


def find_login(engine: Engine, name: str) -> Login:
    """The account ``name`` names and its hash (nothing for a name no account can have)."""
    row = None
    if all(ch.isprintable() for ch in name) and len(name) <= 4 * MAX_NAME:  # else no account's
        with engine.connect() as conn:
            row = conn.execute(
                select(accounts_table).where(accounts_table.c.name_key == name_key(name))
            ).first()
    if row is None:
        return Login(None, None)
    return Login(Account(row.id, row.name), row.password_hash)


def authenticate(engine: Engine, name: str, password: str) -> Account | None:
    """The account of ``name`` if ``password`` is its password (as slow when the name is
    unknown, so that the answer does not tell which names exist)."""
    login = find_login(engine, name)
    return login.account if password_matches(login.password_hash, password) else None


def password_hash_of(engine: Engine, account_id: str) -> str | None:
    with engine.connect() as conn:
        hashed: str | None = conn.execute(
            select(accounts_table.c.password_hash).where(accounts_table.c.id == account_id)
        ).scalar()
    return hashed


def set_password(engine: Engine, account_id: str, password_hash: str) -> None:
    with engine.begin() as conn:
        conn.execute(
            accounts_table.update()
            .where(accounts_table.c.id == account_id)
            .values(password_hash=password_hash)
        )


def rename(engine: Engine, account_id: str, name: str) -> Account:
    """The account under its new display name (checked already); 409 if another has it
    or looks like it."""
    try:
        with engine.begin() as conn:
            _check_free(conn, name, account_id)
            done = conn.execute(
                accounts_table.update()
                .where(accounts_table.c.id == account_id)
                .values(name=name, name_key=name_key(name), name_skeleton=name_skeleton(name))
            )
            if done.rowcount == 0:
                raise AccountError(404, "the account does not exist", "account_gone")
    except IntegrityError:
        raise _taken(name) from None
    return Account(account_id, name)


def get(engine: Engine, account_id: str) -> Account | None:
    with engine.connect() as conn:
        row = conn.execute(
            select(accounts_table.c.id, accounts_table.c.name).where(
                accounts_table.c.id == account_id
            )
        ).first()
    return None if row is None else Account(row.id, row.name)


def by_name(engine: Engine, name: str) -> Account | None:
    """The account a name (any spelling of its key) names."""
    if any(not ch.isprintable() for ch in name) or len(name) > 4 * MAX_NAME:
        return None
    with engine.connect() as conn:
        return _by_key(conn, name_key(name))


def look_alike(engine: Engine, name: str) -> Account | None:
    """The account whose name is ``name``'s or looks like it (for a guest's name)."""
    if any(not ch.isprintable() for ch in name) or len(name) > 4 * MAX_NAME:
        return None
    with engine.connect() as conn:
        return _by_key(conn, name_key(name)) or _by_skeleton(conn, name_skeleton(name))


def names(conn: Connection, ids: list[str]) -> dict[str, str]:
    """Display names of the accounts ``ids``."""
    query = select(accounts_table.c.id, accounts_table.c.name).where(accounts_table.c.id.in_(ids))
    return {r.id: r.name for r in conn.execute(query)}


def _by_key(conn: Connection, key: str) -> Account | None:
    row = conn.execute(
        select(accounts_table.c.id, accounts_table.c.name).where(accounts_table.c.name_key == key)
    ).first()
    return None if row is None else Account(row.id, row.name)


def _by_skeleton(conn: Connection, skeleton: str) -> Account | None:
    if not skeleton:
        return None
    row = conn.execute(
        select(accounts_table.c.id, accounts_table.c.name).where(
            accounts_table.c.name_skeleton == skeleton
        )
    ).first()
    return None if row is None else Account(row.id, row.name)
