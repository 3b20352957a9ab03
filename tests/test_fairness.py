"""Commit-reveal deals (truco.fairness, CommittedDealer): the encoding is the documented
one, a revealed deck opens its commitment and gives the dealt cards, and every kind of
tampering (deck, salt, swapped cards, another hand's data, a deal that does not follow
from the deck) is detected."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from truco.cards import DECK, card_name
from truco.deal import CommittedDealer
from truco.fairness import (
    SALT_BYTES,
    FairnessError,
    SealedDeck,
    add_to_record,
    check_hand,
    commitment,
    deal_from_deck,
    encode,
)
from truco.game import Game
from truco.record import game_to_record, load_record, replay
from truco.rules import Rules

decks = st.permutations(list(DECK)).map(tuple)
salts = st.binary(min_size=SALT_BYTES, max_size=SALT_BYTES)
hands = st.integers(min_value=0, max_value=200)
players = st.sampled_from([2, 4, 6])
sealed_decks = st.builds(SealedDeck, hand=hands, deck=decks, salt=salts)


def test_encoding_is_the_documented_text() -> None:
    deck = tuple(range(40))
    salt = bytes(range(32))
    text = encode(7, deck, salt).decode("ascii")
    assert text == ("truco-fair/1|7|" + ",".join(card_name(c) for c in deck) + "|" + salt.hex())
    assert commitment(7, deck, salt) == hashlib.sha256(text.encode()).hexdigest()


def test_a_known_commitment_never_changes() -> None:
    """A fixed vector: the page's JavaScript and other tools check against it too."""
    assert (
        commitment(0, tuple(range(40)), bytes(32))
        == hashlib.sha256(
            b"truco-fair/1|0|1e,2e,3e,4e,5e,6e,7e,10e,11e,12e,1b,2b,3b,4b,5b,6b,7b,10b,11b,12b,"
            b"1o,2o,3o,4o,5o,6o,7o,10o,11o,12o,1c,2c,3c,4c,5c,6c,7c,10c,11c,12c|" + b"00" * 32
        ).hexdigest()
    )


@given(sealed_decks, players)
def test_a_revealed_deck_verifies_against_what_it_dealt(sealed: SealedDeck, n: int) -> None:
    assert check_hand(sealed.revealed(), sealed.deal(n), sealed.hand) is None
    # and through JSON, as a record carries it
    data = json.loads(json.dumps(sealed.revealed()))
    assert check_hand(data, sealed.deal(n), sealed.hand) is None
    assert SealedDeck.from_json(sealed.hand, data) == sealed


@given(sealed_decks, players)
def test_the_deal_is_three_cards_a_seat_from_the_top(sealed: SealedDeck, n: int) -> None:
    deal = sealed.deal(n)
    assert [c for cards in deal for c in cards] == list(sealed.deck[: 3 * n])
    assert deal == deal_from_deck(sealed.deck, n)


@given(sealed_decks, players, st.data())
def test_a_tampered_deck_is_detected(sealed: SealedDeck, n: int, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, 39))
    j = data.draw(st.integers(0, 39).filter(lambda k: k != i))
    deck = list(sealed.deck)
    deck[i], deck[j] = deck[j], deck[i]
    tampered = {**sealed.revealed(), "deck": [card_name(c) for c in deck]}
    reason = check_hand(tampered, sealed.deal(n), sealed.hand)
    assert (
        reason
        == f"the commitment is not the SHA-256 of this hand (index {sealed.hand} in the encoding), "
        "its deck and its salt"
    )


@given(sealed_decks, players, st.data())
def test_a_tampered_salt_is_detected(sealed: SealedDeck, n: int, data: st.DataObject) -> None:
    salt = data.draw(salts.filter(lambda s: s != sealed.salt))
    tampered = {**sealed.revealed(), "salt": salt.hex()}
    assert "commitment is not the SHA-256" in str(check_hand(tampered, sealed.deal(n), sealed.hand))


@given(sealed_decks, players, st.data())
def test_a_tampered_commitment_is_detected(sealed: SealedDeck, n: int, data: st.DataObject) -> None:
    other = data.draw(st.text("0123456789abcdef", min_size=64, max_size=64))
    if other == sealed.commitment:
        return
    tampered = {**sealed.revealed(), "commitment": other}
    assert "commitment is not the SHA-256" in str(check_hand(tampered, sealed.deal(n), sealed.hand))


@given(sealed_decks, players, st.data())
def test_cards_swapped_between_seats_are_detected(
    sealed: SealedDeck, n: int, data: st.DataObject
) -> None:
    a, b = sorted(data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
    i, j = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))
    deal = [list(cards) for cards in sealed.deal(n)]
    deal[a][i], deal[b][j] = deal[b][j], deal[a][i]
    reason = check_hand(sealed.revealed(), deal, sealed.hand)
    assert reason is not None and reason.startswith(f"seat {a} was dealt ")


@given(sealed_decks, players, st.data())
def test_a_dealt_card_the_deck_did_not_give_is_detected(
    sealed: SealedDeck, n: int, data: st.DataObject
) -> None:
    seat, i = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, 2))
    deal = [list(cards) for cards in sealed.deal(n)]
    deal[seat][i] = sealed.deck[data.draw(st.integers(3 * n, 39))]  # an undealt card
    reason = check_hand(sealed.revealed(), deal, sealed.hand)
    assert reason is not None and reason.startswith(f"seat {seat} was dealt ")
    # the order within a seat's three cards is committed too
    deal = [list(cards) for cards in sealed.deal(n)]
    deal[seat] = deal[seat][::-1]
    assert check_hand(sealed.revealed(), deal, sealed.hand) is not None


@given(sealed_decks, players, hands)
def test_another_hands_data_is_detected(sealed: SealedDeck, n: int, other: int) -> None:
    """The fairness object of one hand moved to another: the hand index is committed."""
    if other == sealed.hand:
        return
    reason = check_hand(sealed.revealed(), sealed.deal(n), other)
    assert reason == (
        f"the commitment is not the SHA-256 of this hand (index {other} in the encoding), "
        "its deck and its salt"
    )


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"deck": ["1e"] * 40}, "the deck names a card twice"),
        ({"deck": ["1e"]}, "the deck must list the 40 cards"),
        ({"deck": "1e 2e"}, "the deck must list the 40 cards"),
        ({"deck": ["8e", *["1e"] * 39]}, "the deck: no such card: '8e'"),
        ({"salt": "zz"}, "the salt must be 64 lower-case hex digits"),
        ({"salt": "AB" * 32}, "the salt must be 64 lower-case hex digits"),
        ({"salt": 5}, "the salt must be 64 lower-case hex digits"),
    ],
)
def test_a_malformed_opening_gets_a_reason(change: dict[str, object], reason: str) -> None:
    sealed = SealedDeck.shuffle(0)
    got = check_hand({**sealed.revealed(), **change}, sealed.deal(2), 0)
    assert got is not None and got.startswith(reason)
    with pytest.raises(FairnessError, match="^" + reason[:12]):
        SealedDeck.from_json(0, {**sealed.revealed(), **change})


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"commitment": None}, "no commitment (64 hex digits) for this hand"),
        ({"commitment": "ab"}, "no commitment (64 hex digits) for this hand"),
        ({"scheme": "md5/1"}, "unknown fairness scheme 'md5/1' (this tool knows truco-fair/1)"),
    ],
)
def test_a_malformed_commitment_gets_a_reason(change: dict[str, object], reason: str) -> None:
    sealed = SealedDeck.shuffle(0)
    assert check_hand({**sealed.revealed(), **change}, sealed.deal(2), 0) == reason


def test_not_an_object_and_not_revealed() -> None:
    assert check_hand([], ((0, 1, 2),), 0) == "fairness data must be a JSON object"
    sealed = SealedDeck.shuffle(3)
    assert check_hand(sealed.public(), sealed.deal(2), 3) == (
        "the deck and salt are not revealed (the hand is still being played?)"
    )


def test_shuffles_are_fresh_whole_decks() -> None:
    a, b = SealedDeck.shuffle(0), SealedDeck.shuffle(0)
    assert sorted(a.deck) == list(DECK) and len(a.salt) == SALT_BYTES
    assert a.salt != b.salt and a.commitment != b.commitment


def test_committed_dealer_plays_a_whole_match_and_the_record_verifies() -> None:
    dealer = CommittedDealer()
    game = Game(Rules(players=4, target=15), dealer=dealer, first_mano=1)
    rng = random.Random(3)
    while not game.is_over:
        seat = game.actors()[0]
        game.apply(seat, rng.choice(game.legal_actions(seat, megaphone=False)))
    decks = dealer.sealed_decks(len(game.history))
    assert sorted(decks) == list(range(len(game.history)))
    record = game_to_record(game)
    add_to_record(record, decks, closed=len(game.history))
    text = json.dumps(record)
    # replayers ignore the extension: the replay is the same with and without it
    plain = game_to_record(game)
    assert replay(load_record(text)).to_json() == replay(load_record(json.dumps(plain))).to_json()
    for h, hand in enumerate(record["hands"]):
        deal = tuple(tuple(game.history[h].deal[s]) for s in range(4))
        assert check_hand(hand["fairness"], deal, h) is None


def test_a_match_in_progress_publishes_only_the_commitment_of_its_open_hand() -> None:
    dealer = CommittedDealer()
    game = Game(Rules(players=2), dealer=dealer)
    seat = game.actors()[0]
    game.play(seat, "mazo")  # hand 0 closes, hand 1 is dealt
    record = game_to_record(game)
    add_to_record(record, dealer.sealed_decks(2), closed=len(game.history))
    assert set(record["hands"][0]["fairness"]) == {"scheme", "commitment", "deck", "salt"}
    assert set(record["hands"][1]["fairness"]) == {"scheme", "commitment"}


def test_a_dealer_with_the_same_key_deals_and_reveals_the_same_decks() -> None:
    """What a restarted server relies on: the key alone gives back every hand's deck."""
    dealer = CommittedDealer()
    game = Game(Rules(players=2), dealer=dealer)
    game.play(game.actors()[0], "mazo")
    again = CommittedDealer(dealer.key)
    assert again.deal(2, 1) == game.dealt and again.deal(2, 0) == game.history[0].deal
    assert {h: d.revealed() for h, d in again.sealed_decks(2).items()} == {
        h: d.revealed() for h, d in dealer.sealed_decks(2).items()
    }
    assert CommittedDealer().deal(2, 1) != game.dealt  # another key, another deck (1 in 10^10)


def test_hands_before_the_dealers_first_hand_have_no_sealed_deck() -> None:
    dealer = CommittedDealer(first_hand=3)
    assert dealer.sealed(2) is None and dealer.sealed(3) is not None
    assert sorted(dealer.sealed_decks(5)) == [3, 4]
    with pytest.raises(ValueError, match="before this dealer's first hand"):
        dealer.deal(2, 1)


@given(st.binary(min_size=32, max_size=32), hands)
def test_derived_decks_are_whole_decks_and_verify(key: bytes, hand: int) -> None:
    sealed = SealedDeck.derive(key, hand)
    assert sorted(sealed.deck) == list(DECK) and len(sealed.salt) == SALT_BYTES
    assert check_hand(sealed.revealed(), sealed.deal(6), hand) is None
    assert SealedDeck.derive(key, hand + 1).salt != sealed.salt


def test_derived_shuffles_look_uniform() -> None:
    """Where the ace of espadas lands over 4,000 keys: each of the 40 places about 100
    times (a chi-square test at the 0.1% level: a biased shuffle fails it)."""
    counts = [0] * 40
    for k in range(4000):
        deck = SealedDeck.derive(k.to_bytes(32, "big"), 0).deck
        counts[deck.index(0)] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 72.0, counts  # 39 degrees of freedom: P(chi2 > 72.05) = 0.001


def test_a_key_always_derives_the_same_decks() -> None:
    """Fixed vectors: a stored match's key must deal (and reveal) the decks it committed
    to, whatever version of the server restores it."""
    assert (
        SealedDeck.derive(bytes(32), 0).commitment
        == "cbf3e5dc6370f17960ae0d5cc107c0f25adab2625ae854ccc4d162a07c303ccb"
    )
    assert (
        SealedDeck.derive(bytes(range(32)), 7).commitment
        == "3b05ee2924dc049e76ff63b8365d4d7dbc5b34eae1232e500becc416cad788ad"
    )
