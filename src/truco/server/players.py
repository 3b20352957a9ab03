"""Guest players: a name, an id and an expiry time in a token signed by the server
(HMAC-SHA256).

The page keeps the token in an HttpOnly cookie and other clients send it in their
first WebSocket message (see :mod:`truco.server.sessions`); a reload, or a server
restart (the key is stored in the database), keeps the seat. Nobody can act for a seat
without its player's token. A token expires after the server's session time and can
be renewed while it is valid.

>>> signer = TokenSigner(b"k" * 32, lifetime=60)
>>> token = signer.issue("Ana", now=1000.0)
>>> signer.verify(token, now=1030.0).name
'Ana'
>>> signer.verify(token, now=1061.0) is None  # expired
True
>>> signer.verify(token + "x", now=1030.0) is None
True
>>> signer.verify("abc.\\xe9") is None  # not a token's characters
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import time
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


def clean_name(name: str) -> str:
    """A printable guest name of at most :data:`MAX_NAME` characters."""
    text = " ".join("".join(ch for ch in str(name) if ch.isprintable()).split())
    return text[:MAX_NAME] or "Invitado"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


#: how many verified tokens a signer remembers (:meth:`TokenSigner.verify`)
VERIFIED_CACHE = 4096


class TokenSigner:
    """Issues and checks guest tokens with one secret key; tokens last ``lifetime``
    seconds.

    A token is checked in full once (its shape, its signature, its payload); the player
    it names is then remembered under the exact token text, so that the next requests and
    WebSockets of the same session (a table's create, then each seat's connection) only
    look it up and compare its expiry with the clock. Only tokens whose signature is good
    are remembered: a forged or altered token is checked in full every time and refused,
    and an expired one is refused (and forgotten) whether remembered or not. Nothing can
    revoke a token before it expires, so a remembered answer is the answer a full check
    would give.
    """

    def __init__(self, key: bytes, lifetime: float = 7 * 24 * 3600.0) -> None:
        self._key = key
        self.lifetime = lifetime
        #: token -> its player, for tokens verified in full (at most VERIFIED_CACHE)
        self._verified: dict[str, Player] = {}

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(
        self,
        name: str,
        player_id: str | None = None,
        now: float | None = None,
        account: bool = False,
    ) -> str:
        """A token for ``name`` (a new player, or ``player_id`` again) valid from ``now``;
        ``account``: the session of the account ``player_id``."""
        expires = (time.time() if now is None else now) + self.lifetime
        payload: dict[str, object] = {
            "id": player_id or secrets.token_urlsafe(9),
            "name": clean_name(name),
            "exp": round(expires, 3),
        }
        if account:
            payload["acc"] = 1
        body = _b64(json.dumps(payload).encode())
        return f"{body}.{self._sign(body)}"

    def verify(self, token: str, now: float | None = None) -> Player | None:
        """The player of a valid, unexpired token; ``None`` for anything else (a token
        of other characters or length included)."""
        player = self._verified.get(token)
        if player is None:
            player = self._check(token)
            if player is None:
                return None
            if len(self._verified) >= VERIFIED_CACHE:
                self._verified.clear()  # (simple, and safe if threads verify too)
            self._verified[token] = player
        if player.expires <= (time.time() if now is None else now):
            self._verified.pop(token, None)
            return None
        return player

    def _check(self, token: str) -> Player | None:
        """The player a token names if its shape and signature are good (expired or not)."""
        if len(token) > MAX_TOKEN or not TOKEN_PATTERN.fullmatch(token):
            return None
        body, _, signature = token.partition(".")
        if not hmac.compare_digest(signature, self._sign(body)):
            return None
        try:
            data = json.loads(_unb64(body))
            player = Player(
                str(data["id"]),
                clean_name(data["name"]),
                float(data["exp"]),
                account=data.get("acc") == 1,
            )
        except (ValueError, KeyError, TypeError):
            return None
        return player
