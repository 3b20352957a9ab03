"""Accounts: a name and a password (argon2id, never kept or logged in clear), and the
player id every session of the account speaks for.

A name is unique as its **key**: Unicode NFKC, case-folded, spaces collapsed (so ``Ana``,
``ANA`` and ``Ａｎａ`` are one name). It is 2 to 24 characters, has no control or format
characters, and may not pass for someone else: no first word ``Bot`` (the bots' seats are
named ``Bot <level>``), nor a word of :data:`RESERVED`.

A guest who signs up **claims** their history: the seats of their finished matches become
the account's (``truco_participants`` and the stored seats), so that their profile lists them.

>>> name_key("  Ｊosé   Luis ")
'josé luis'
>>> check_name("Bot experto")
Traceback (most recent call last):
...
truco.server.accounts.AccountError: name: names whose first word is 'Bot' are the bots'
"""

from __future__ import annotations

import json
import re
import secrets
import time
import unicodedata
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .store import accounts_table, matches_table, participants_table

MIN_NAME, MAX_NAME = 2, 24
MIN_PASSWORD, MAX_PASSWORD = 8, 256
#: names (their keys without spaces and punctuation) that would pass for the site or staff
RESERVED = frozenset(
    {
        "admin", "administrador", "administrator", "anonimo", "anonymous", "guest",
        "invitado", "mod", "moderador", "moderator", "null", "root", "server", "servidor",
        "sistema", "soporte", "support", "system", "truco", "trucoargento",
    }
)  # fmt: skip
_BOT = re.compile(r"bots?(?![a-z])")
_hasher = PasswordHasher()
#: verified against when the name is unknown, so that both answers take as long
_DUMMY_HASH = _hasher.hash(secrets.token_hex(16))


class AccountError(ValueError):
    """A refused request: its HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    name: str


def name_key(name: str) -> str:
    """What makes two names the same name: NFKC, case-folded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def looks_like_a_bot(name: str) -> bool:
    """Whether a name would pass for one of the bots' ("Bot 1 (simple)", "bot-x")."""
    return _BOT.match(name_key(name)) is not None


def check_name(name: str) -> str:
    """The display name to keep (NFKC, spaces collapsed); :class:`AccountError` (422) if
    it may not be an account's name."""
    if any(not ch.isprintable() and not ch.isspace() for ch in name) or any(
        ch.isspace() and ch != " " for ch in name
    ):
        raise AccountError(422, "name: no control characters (letters, digits, spaces, signs)")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        raise AccountError(422, "name: not valid Unicode text")
    shown = " ".join(unicodedata.normalize("NFKC", name).split())
    if not MIN_NAME <= len(shown) <= MAX_NAME:
        raise AccountError(422, f"name: {MIN_NAME} to {MAX_NAME} characters")
    key = name_key(shown)
    if looks_like_a_bot(key):
        raise AccountError(422, "name: names whose first word is 'Bot' are the bots'")
    if "".join(ch for ch in key if ch.isalnum()) in RESERVED:
        raise AccountError(422, f"name: {shown!r} is reserved")
    return shown


def check_password(password: str) -> None:
    """:class:`AccountError` (422) for a password too weak or not text."""
    if len(password) < MIN_PASSWORD:
        raise AccountError(422, f"password: at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(422, f"password: at most {MAX_PASSWORD} characters")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in password) or "\x00" in password:
        raise AccountError(422, "password: not valid text")


def hash_password(password: str) -> str:
    """The argon2id hash kept in place of the password (tens of milliseconds: call it in
    a thread)."""
    return _hasher.hash(password)


# ------------------------------------------------------------------ the database
def create(engine: Engine, name: str, password_hash: str, guest_id: str | None) -> Account:
    """A new account named ``name`` (checked already); with ``guest_id``, that guest's
    history becomes the account's. :class:`AccountError` (409) if the name is taken."""
    account = Account(secrets.token_urlsafe(12), name)
    try:
        with engine.begin() as conn:
            if _by_key(conn, name_key(name)) is not None:
                raise AccountError(409, f"name: {name!r} is taken")
            conn.execute(
                accounts_table.insert().values(
                    id=account.id,
                    name=name,
                    name_key=name_key(name),
                    password_hash=password_hash,
                    created_at=time.time(),
                )
            )
            if guest_id is not None:
                _claim(conn, guest_id, account.id)
    except IntegrityError:  # signed up meanwhile with the same name
        raise AccountError(409, f"name: {name!r} is taken") from None
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


def authenticate(engine: Engine, name: str, password: str) -> Account | None:
    """The account of ``name`` if ``password`` is its password (as slow when the name is
    unknown, so that the answer does not tell which names exist)."""
    row = None
    if all(ch.isprintable() for ch in name) and len(name) <= 4 * MAX_NAME:  # else no account's
        with engine.connect() as conn:
            row = conn.execute(
                select(accounts_table).where(accounts_table.c.name_key == name_key(name))
            ).first()
    try:
        _hasher.verify(_DUMMY_HASH if row is None else row.password_hash, password)
    except (VerificationError, InvalidHashError, UnicodeEncodeError):
        return None
    return None if row is None else Account(row.id, row.name)


def rename(engine: Engine, account_id: str, name: str) -> Account:
    """The account under its new display name (checked already); 409 if another has it."""
    try:
        with engine.begin() as conn:
            other = _by_key(conn, name_key(name))
            if other is not None and other.id != account_id:
                raise AccountError(409, f"name: {name!r} is taken")
            done = conn.execute(
                accounts_table.update()
                .where(accounts_table.c.id == account_id)
                .values(name=name, name_key=name_key(name))
            )
            if done.rowcount == 0:
                raise AccountError(404, "the account does not exist")
    except IntegrityError:
        raise AccountError(409, f"name: {name!r} is taken") from None
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


def names(conn: Connection, ids: list[str]) -> dict[str, str]:
    """Display names of the accounts ``ids``."""
    query = select(accounts_table.c.id, accounts_table.c.name).where(accounts_table.c.id.in_(ids))
    return {r.id: r.name for r in conn.execute(query)}


def _by_key(conn: Connection, key: str) -> Account | None:
    row = conn.execute(
        select(accounts_table.c.id, accounts_table.c.name).where(accounts_table.c.name_key == key)
    ).first()
    return None if row is None else Account(row.id, row.name)
