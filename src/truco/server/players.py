"""Guest players: a name and an id in a token signed by the server (HMAC-SHA256).

The browser keeps the token, so a reload (or a server restart: the key is stored in
the database) keeps the seat. Nobody can act for a seat without its player's token.

>>> signer = TokenSigner(b"k" * 32)
>>> token = signer.issue("Ana")
>>> signer.verify(token).name
'Ana'
>>> signer.verify(token + "x") is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

MAX_NAME = 24


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str


def clean_name(name: str) -> str:
    """A printable guest name of at most :data:`MAX_NAME` characters."""
    text = " ".join("".join(ch for ch in str(name) if ch.isprintable()).split())
    return text[:MAX_NAME] or "Invitado"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenSigner:
    """Issues and checks guest tokens with one secret key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _sign(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode(), hashlib.sha256).digest())

    def issue(self, name: str, player_id: str | None = None) -> str:
        body = _b64(
            json.dumps(
                {"id": player_id or secrets.token_urlsafe(9), "name": clean_name(name)}
            ).encode()
        )
        return f"{body}.{self._sign(body)}"

    def verify(self, token: str) -> Player | None:
        """The player of a valid token, ``None`` for anything else."""
        body, _, signature = token.partition(".")
        if not body or not hmac.compare_digest(signature, self._sign(body)):
            return None
        try:
            data = json.loads(_unb64(body))
            return Player(str(data["id"]), clean_name(data["name"]))
        except (ValueError, KeyError, TypeError):
            return None
