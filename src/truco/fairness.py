"""Provably fair deals: commit to a shuffled deck before the hand, reveal it after.

Before hand ``h`` is dealt the dealer shuffles the 40 cards and draws a secret 32-byte
salt, and publishes the *commitment*: the SHA-256 of :func:`encode` ``(h, deck, salt)``.
Seat ``s`` is dealt ``deck[3s], deck[3s+1], deck[3s+2]`` (:func:`deal_from_deck`). When
the hand closes the deck and the salt are revealed, and anyone can check that they hash
to the commitment and give the cards that were dealt (:func:`check_hand`).

When the match is over the record also carries the match's key (:func:`match_fairness`):
every hand's deck and salt derive from it (:meth:`SealedDeck.derive`), so each hand's
commitment is bound to its place in that match (:func:`check_match_key`).

The canonical encoding is ASCII text, the fields joined by ``|``::

    truco-fair/1|<hand index, decimal>|<the 40 cards, comma-separated>|<salt, 64 hex digits>

>>> sealed = SealedDeck(hand=0, deck=tuple(range(40)), salt=bytes(32))
>>> encode(0, sealed.deck, sealed.salt)[:35]
b'truco-fair/1|0|1e,2e,3e,4e,5e,6e,7e'
>>> check_hand(sealed.revealed(), sealed.deal(2), 0) is None
True
>>> check_hand(sealed.revealed(), sealed.deal(2), 1)
'the commitment is not the SHA-256 of this hand (index 1 in the encoding), its deck and its salt'
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import random
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import DECK, CardError, card_name, parse_card

SCHEME = "truco-fair/1"
SALT_BYTES = 32
KEY_BYTES = 32

#: The reason :func:`check_hand` gives for a hand committed but not revealed yet.
NOT_REVEALED = "the deck and salt are not revealed (the hand is still being played?)"

#: What the ``fairness`` object of a record's hand holds (see docs/record-format.md).
FAIRNESS_KEY = "fairness"


class FairnessError(ValueError):
    """Fairness data that is malformed (a one-line reason)."""


def encode(hand: int, deck: Sequence[int], salt: bytes) -> bytes:
    """The canonical bytes a commitment hashes.

    >>> encode(3, range(40), b"\\x01" * 32).split(b"|")[1]
    b'3'
    """
    cards = ",".join(card_name(c) for c in deck)
    return f"{SCHEME}|{hand}|{cards}|{salt.hex()}".encode("ascii")


def commitment(hand: int, deck: Sequence[int], salt: bytes) -> str:
    """The SHA-256 of :func:`encode`, as 64 lower-case hex digits.

    >>> len(commitment(0, range(40), bytes(32)))
    64
    """
    return hashlib.sha256(encode(hand, deck, salt)).hexdigest()


@functools.lru_cache(maxsize=4096)
def _commitment(hand: int, deck: tuple[int, ...], salt: bytes) -> str:
    return commitment(hand, deck, salt)


def deal_from_deck(deck: Sequence[int], players: int) -> tuple[tuple[int, ...], ...]:
    """The dealing rule: seat ``s`` gets the deck's cards ``3s``, ``3s+1`` and ``3s+2``.

    >>> deal_from_deck(range(40), 2)
    ((0, 1, 2), (3, 4, 5))
    """
    return tuple(tuple(deck[3 * s : 3 * s + 3]) for s in range(players))


@dataclass(frozen=True, slots=True)
class SealedDeck:
    """One hand's shuffled deck and salt: the dealer's secret until the hand closes."""

    hand: int
    deck: tuple[int, ...]
    salt: bytes

    @classmethod
    def shuffle(cls, hand: int) -> SealedDeck:
        """A fresh deck shuffled by the operating system's secure generator, and a fresh salt."""
        deck = list(DECK)
        random.SystemRandom().shuffle(deck)
        return cls(hand, tuple(deck), secrets.token_bytes(SALT_BYTES))

    @classmethod
    def derive(cls, key: bytes, hand: int) -> SealedDeck:
        """Hand ``hand``'s deck and salt drawn from a secret ``key`` (:data:`KEY_BYTES` from
        the operating system's secure generator, one per match): HMAC-SHA256 of the key is
        the random stream of an unbiased Fisher-Yates shuffle, and gives the salt. The same
        key and hand always give the same deck, so a server that keeps the key honours every
        commitment it published, whatever happens between the deal and the reveal; without
        the key the decks are as unpredictable as a secure shuffle.

        >>> key = bytes(32)
        >>> SealedDeck.derive(key, 3) == SealedDeck.derive(key, 3) != SealedDeck.derive(key, 4)
        True
        >>> sorted(SealedDeck.derive(key, 3).deck) == list(DECK)
        True
        """
        salt = hmac.digest(key, f"{SCHEME}|salt|{hand}".encode(), "sha256")
        stream = _random_words(key, f"{SCHEME}|deck|{hand}")
        deck = list(DECK)
        for i in range(len(deck) - 1, 0, -1):
            j = _below(stream, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return cls(hand, tuple(deck), salt)

    @property
    def commitment(self) -> str:
        """:func:`commitment` of this deck (hashed once: a table publishes it at the deal,
        shows it all hand long and again with the deck at the end)."""
        return _commitment(self.hand, self.deck, self.salt)

    def deal(self, players: int) -> tuple[tuple[int, ...], ...]:
        return deal_from_deck(self.deck, players)

    def public(self) -> dict[str, Any]:
        """What may be published before the hand closes: the commitment only."""
        return {"scheme": SCHEME, "commitment": self.commitment}

    def revealed(self) -> dict[str, Any]:
        """The commitment with the deck and salt that open it (after the hand closes)."""
        return {
            **self.public(),
            "deck": [card_name(c) for c in self.deck],
            "salt": self.salt.hex(),
        }

    @classmethod
    def from_json(cls, hand: int, data: Any) -> SealedDeck:
        """Read a revealed ``fairness`` object (``deck`` and ``salt``); raise
        :class:`FairnessError` when they are malformed."""
        deck, salt = _read_opening(data)
        return cls(hand, deck, salt)


def _random_words(key: bytes, label: str) -> Iterator[int]:
    """32-bit words of HMAC-SHA256(key, label|counter), counter 0, 1, 2..."""
    counter = 0
    while True:
        block = hmac.digest(key, f"{label}|{counter}".encode(), "sha256")
        yield from _WORDS.unpack(block)  # eight big-endian 32-bit words
        counter += 1


_WORDS = struct.Struct(">8I")


def _below(words: Iterator[int], n: int) -> int:
    """A uniform integer in ``range(n)`` (rejection sampling: no modulo bias)."""
    limit = (1 << 32) // n * n
    while True:
        word = next(words)
        if word < limit:
            return word % n


def _read_opening(data: Any) -> tuple[tuple[int, ...], bytes]:
    if not isinstance(data, Mapping):
        raise FairnessError("fairness data must be a JSON object")
    raw_deck, raw_salt = data.get("deck"), data.get("salt")
    if not isinstance(raw_deck, list) or len(raw_deck) != len(DECK):
        raise FairnessError("the deck must list the 40 cards")
    try:
        deck = tuple(parse_card(c) for c in raw_deck)
    except CardError as exc:
        raise FairnessError(f"the deck: {exc}") from None
    if len(set(deck)) != len(DECK):
        raise FairnessError("the deck names a card twice")
    if (
        not isinstance(raw_salt, str)
        or len(raw_salt) != 2 * SALT_BYTES
        or any(ch not in "0123456789abcdef" for ch in raw_salt)
    ):
        raise FairnessError(f"the salt must be {2 * SALT_BYTES} lower-case hex digits")
    return deck, bytes.fromhex(raw_salt)


def is_revealed(data: Any) -> bool:
    """The ``fairness`` object carries an opening (a deck or a salt), not only a commitment."""
    return isinstance(data, Mapping) and ("deck" in data or "salt" in data)


def check_hand(data: Any, deal: Sequence[Sequence[int]], hand: int) -> str | None:
    """Check hand ``hand``'s ``fairness`` object against the cards it dealt: ``None``
    when the revealed deck and salt open the commitment and give exactly ``deal``,
    else the reason (one line). A hand without a revealed deck is not verified.

    >>> sealed = SealedDeck.shuffle(4)
    >>> check_hand(sealed.public(), sealed.deal(2), 4)
    'the deck and salt are not revealed (the hand is still being played?)'
    >>> swapped = (sealed.deal(2)[1], sealed.deal(2)[0])
    >>> check_hand(sealed.revealed(), swapped, 4)[:17]
    'seat 0 was dealt '
    """
    if not isinstance(data, Mapping):
        return "fairness data must be a JSON object"
    if data.get("scheme", SCHEME) != SCHEME:
        return f"unknown fairness scheme {data.get('scheme')!r} (this tool knows {SCHEME})"
    claimed = data.get("commitment")
    if not isinstance(claimed, str) or len(claimed) != 64:
        return "no commitment (64 hex digits) for this hand"
    if not is_revealed(data):
        return NOT_REVEALED
    try:
        deck, salt = _read_opening(data)
    except FairnessError as exc:
        return str(exc)
    if commitment(hand, deck, salt) != claimed.lower():
        return (
            f"the commitment is not the SHA-256 of this hand (index {hand} in the encoding), "
            "its deck and its salt"
        )
    expected = deal_from_deck(deck, len(deal))
    for seat, (got, want) in enumerate(zip(deal, expected, strict=True)):
        if tuple(got) != want:
            return f"seat {seat} was dealt {_names(got)} but the deck gives {_names(want)}"
    return None


def _names(cards: Sequence[int]) -> str:
    return " ".join(card_name(c) for c in cards)


def add_to_record(
    record: dict[str, Any],
    decks: Mapping[int, SealedDeck],
    closed: int,
    *,
    key: bytes | None = None,
    first_hand: int = 0,
) -> None:
    """Write the ``fairness`` object of each hand of a ``truco-record/1`` (a JSON dict)
    whose deck is in ``decks``: revealed for hands ``< closed`` (they are over), the
    commitment alone for the others. Give ``key`` (the match's secret, the decks of
    hands ``first_hand`` on derived from it) only when the match is over: the record then
    carries it (:func:`match_fairness`), binding every hand's commitment to the match.

    >>> record = {"hands": [{"deal": [], "actions": []}, {"deal": [], "actions": []}]}
    >>> add_to_record(record, {0: SealedDeck.shuffle(0), 1: SealedDeck.shuffle(1)}, 1)
    >>> sorted(record["hands"][0]["fairness"]), sorted(record["hands"][1]["fairness"])
    (['commitment', 'deck', 'salt', 'scheme'], ['commitment', 'scheme'])
    """
    for h, hand in enumerate(record["hands"]):
        sealed = decks.get(h)
        if sealed is not None:
            hand[FAIRNESS_KEY] = sealed.revealed() if h < closed else sealed.public()
    if key is not None:
        record[FAIRNESS_KEY] = match_fairness(key, first_hand)


# ---------------------------------------------------------------- the match's key
def match_fairness(key: bytes, first_hand: int = 0) -> dict[str, Any]:
    """The record's own ``fairness`` object, written when the match is over: the secret
    key every hand's deck and salt were derived from (:meth:`SealedDeck.derive`), from hand
    ``first_hand`` on. With it each hand's commitment can only be the one its place in this
    match gives: a hand cannot be taken from another match, moved or invented.

    >>> match_fairness(bytes(32), 2)["first_hand"], len(match_fairness(bytes(32))["key"])
    (2, 64)
    """
    return {"scheme": SCHEME, "key": key.hex(), "first_hand": first_hand}


def read_match_key(data: Any) -> tuple[bytes, int]:
    """The key and first hand of a record's ``fairness`` object (:func:`match_fairness`);
    raise :class:`FairnessError` when it is malformed.

    >>> read_match_key(match_fairness(bytes(32), 1)) == (bytes(32), 1)
    True
    """
    if not isinstance(data, Mapping):
        raise FairnessError("the match's fairness data must be a JSON object")
    if data.get("scheme", SCHEME) != SCHEME:
        raise FairnessError(
            f"unknown fairness scheme {data.get('scheme')!r} (this tool knows {SCHEME})"
        )
    raw_key, first = data.get("key"), data.get("first_hand", 0)
    if (
        not isinstance(raw_key, str)
        or len(raw_key) != 2 * KEY_BYTES
        or any(ch not in "0123456789abcdef" for ch in raw_key)
    ):
        raise FairnessError(f"the match key must be {2 * KEY_BYTES} lower-case hex digits")
    if not isinstance(first, int) or isinstance(first, bool) or first < 0:
        raise FairnessError("the match key's first_hand must be a hand index (0 or more)")
    return bytes.fromhex(raw_key), first


def check_match_key(key: bytes, hand: int, data: Any) -> str | None:
    """Hand ``hand``'s ``fairness`` object against the match key: ``None`` when its
    commitment is the one the key gives that hand, else the reason (one line).

    >>> key = bytes(32)
    >>> check_match_key(key, 3, SealedDeck.derive(key, 3).public()) is None
    True
    >>> check_match_key(key, 2, SealedDeck.derive(key, 3).public())[:40]
    'the commitment is not the one the match '
    """
    if not isinstance(data, Mapping):
        return "no fairness data, though the match key deals this hand"
    if data.get("commitment") != _derived(key, hand).commitment:
        return (
            f"the commitment is not the one the match key gives hand {hand + 1} "
            "(a hand moved, inserted or taken from another match)"
        )
    return None


@functools.lru_cache(maxsize=256)
def _derived(key: bytes, hand: int) -> SealedDeck:
    return SealedDeck.derive(key, hand)
