"""Players and their tokens: a player is an id and a name (a guest's, or an account's);
a token is a session id signed by the server (HMAC-SHA256), the session itself a row of
the database (:mod:`truco.server.people.session_store`).

The page keeps the token in an HttpOnly cookie and other clients send it in their
first WebSocket message (see :mod:`truco.server.people.sessions`); a reload, or a server
restart (the key is stored in the database), keeps the seat. Nobody can act for a seat
without its player's token.

>>> signer = TokenSigner(b"k" * 32)
>>> token = signer.issue("s3ss10n")
>>> signer.verify(token)
's3ss10n'
>>> signer.verify(token + "x") is None
True
>>> TokenSigner(b"x" * 32).verify(token) is None  # another server's key
True
>>> signer.verify("abc.\\xe9") is None  # not a token's characters
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

MAX_NAME = 24
#: the longest token a client may send (a real one is about 130 characters)
MAX_TOKEN = 512
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,460}\.[A-Za-z0-9_-]{43}")


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    expires: float = 0.0  # when the token that named this player stops being valid
    account: bool = False  # an account's session (see accounts.py), not a guest's
    session: str = ""  # the id of the session the request or socket came with


def clean_name(name: str) -> str:
    """A printable guest name of at most :data:`MAX_NAME` characters."""
    text = " ".join("".join(ch for ch in str(name) if ch.isprintable()).split())
    return text[:MAX_NAME] or "Invitado"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenSigner:
    """Signs session ids with one secret key, and checks a token's signature.

    A token is ``<session id>.<HMAC-SHA256>``: what it names lives in the database (the
    session's row, :mod:`truco.server.people.session_store`), so that logging out, a password
    change or the end of its lifetime ends it for every copy of the token. The signature
    lets a forged or altered token be refused without a lookup.
    """

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(self, session_id: str) -> str:
        """The token of the session ``session_id`` (letters, digits, ``-`` and ``_``)."""
        return f"{session_id}.{self._sign(session_id)}"

    def verify(self, token: str) -> str | None:
        """The session id of a token signed by this key; ``None`` for anything else (a
        token of other characters or length included)."""
        if len(token) > MAX_TOKEN or not TOKEN_PATTERN.fullmatch(token):
            return None
        session_id, _, signature = token.partition(".")
        if not hmac.compare_digest(signature, self._sign(session_id)):
            return None
        return session_id


def new_session_id() -> str:
    """A session id nobody can guess (144 random bits)."""
    return secrets.token_urlsafe(18)
