"""The deck, the truco ranking, tanto and flor: every example of the three rule books
(docs/rules.md "Deck", "Truco ranking", "Tanto (envido points) and flor")."""

from __future__ import annotations

from itertools import combinations, pairwise

import pytest

from truco.cards import (
    DECK,
    STRENGTH,
    CardError,
    card_name,
    flor_value,
    has_flor,
    parse_card,
    tanto,
)


def cards(text: str) -> list[int]:
    return [parse_card(c) for c in text.split()]


# -- notation ---------------------------------------------------------------------------


def test_the_deck_has_forty_distinct_cards_with_names_that_parse_back() -> None:
    names = [card_name(c) for c in DECK]
    assert len(DECK) == 40 and len(set(names)) == 40
    assert all(parse_card(name) == c for c, name in zip(DECK, names, strict=True))
    ranks = {name[:-1] for name in names}
    suits = {name[-1] for name in names}
    assert ranks == {"1", "2", "3", "4", "5", "6", "7", "10", "11", "12"}
    assert suits == {"e", "b", "o", "c"}


@pytest.mark.parametrize("text", ["1E", "1e", " 1e ", "1E "])
def test_parsing_is_case_insensitive(text: str) -> None:
    assert parse_card(text) == parse_card("1e")
    assert card_name(parse_card(text)) == "1e"  # written in lower case


def test_twelve_of_copas_parses_in_upper_case() -> None:
    assert card_name(parse_card("12C")) == "12c"


@pytest.mark.parametrize(
    "text", ["8e", "9b", "13c", "0o", "1x", "e1", "", "1", "10", "1 e", "11ee"]
)
def test_a_card_that_does_not_exist_raises_card_error_naming_it(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert isinstance(info.value, ValueError)
    assert "no such card" in str(info.value)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("value", [1, None, b"1e"])
def test_a_card_that_is_not_text_raises_card_error(value: object) -> None:
    with pytest.raises(CardError):
        parse_card(value)  # type: ignore[arg-type]


# -- truco ranking ----------------------------------------------------------------------

#: docs/rules.md and the third rule book's table, high to low; cards in one group are equal (parda).
RANKING = [
    "1e",
    "1b",
    "7e",
    "7o",
    "3e 3b 3o 3c",
    "2e 2b 2o 2c",
    "1o 1c",
    "12e 12b 12o 12c",
    "11e 11b 11o 11c",
    "10e 10b 10o 10c",
    "7c 7b",
    "6e 6b 6o 6c",
    "5e 5b 5o 5c",
    "4e 4b 4o 4c",
]


def test_the_ranking_groups_cover_the_whole_deck_once() -> None:
    listed = [c for group in RANKING for c in cards(group)]
    assert sorted(listed) == list(DECK)


@pytest.mark.parametrize("group", RANKING)
def test_cards_of_one_ranking_group_are_equal_in_truco(group: str) -> None:
    assert len({STRENGTH[c] for c in cards(group)}) == 1


@pytest.mark.parametrize("higher,lower", list(pairwise(RANKING)))
def test_each_ranking_group_beats_the_next(higher: str, lower: str) -> None:
    assert min(STRENGTH[c] for c in cards(higher)) > max(STRENGTH[c] for c in cards(lower))


def test_named_cards_of_the_glossary() -> None:
    # macho > hembra > siete bravo > siete de oro > the false sevens, ancho falso
    s = {
        name: STRENGTH[parse_card(name)]
        for name in ("1e", "1b", "7e", "7o", "7c", "7b", "1o", "1c")
    }
    assert s["1e"] > s["1b"] > s["7e"] > s["7o"] > s["1o"] > s["7c"]
    assert s["1o"] == s["1c"] and s["7c"] == s["7b"]


# -- tanto -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand,expected,example",
    [
        ("7e 10o 12c", 7, "001: a card worth 7 and the rest figures: tanto 7"),
        ("7c 6c 4e", 33, "001/000: 6 and 7 of one suit: 6 + 7 + 20 = 33"),
        ("12o 7o 3e", 27, "001/000: a figure and a 7 of one suit: 0 + 7 + 20 = 27"),
        ("10b 12b 5c", 20, "001/003: two figures of one suit: 20"),
        ("4e 10o 11c", 4, "000: 4 of espadas alone: 4"),
        ("1e 2b 3o", 3, "003: three suits: the highest card"),
        ("10e 11b 12o", 0, "figures worth 0"),
        ("5o 4o 1c", 29, "two of a suit: their sum + 20"),
        ("7b 1b 6c", 28, "two of a suit beat a higher single card"),
    ],
)
def test_tanto_examples_of_the_rule_books(hand: str, expected: int, example: str) -> None:
    assert tanto(cards(hand)) == expected, example


@pytest.mark.parametrize(
    "hand,expected",
    [
        ("7e 6e 5e", 33),
        ("1o 2o 3o", 25),
        ("10c 11c 4c", 24),
        ("10b 11b 12b", 20),
        ("7o 12o 6o", 33),
    ],
)
def test_three_of_a_suit_on_a_table_without_flor_count_the_two_highest_plus_20(
    hand: str, expected: int
) -> None:
    assert tanto(cards(hand)) == expected


def test_tanto_does_not_depend_on_card_order() -> None:
    for hand in ("7c 6c 4e", "12o 7o 3e", "5o 4o 1c"):
        values = {
            tanto(list(p))
            for p in [cards(hand), cards(hand)[::-1], cards(hand)[1:] + cards(hand)[:1]]
        }
        assert len(values) == 1


def test_every_three_card_hand_has_a_tanto_in_0_7_or_20_33() -> None:
    seen = {tanto(hand) for hand in combinations(DECK, 3)}
    assert seen == set(range(8)) | set(range(20, 34))


# -- flor --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand,flor",
    [
        ("7e 6e 5e", True),
        ("1c 10c 12c", True),
        ("7e 6e 5b", False),
        ("1o 1c 1e", False),
    ],
)
def test_flor_is_three_cards_of_one_suit(hand: str, flor: bool) -> None:
    assert has_flor(cards(hand)) is flor


@pytest.mark.parametrize(
    "hand,value",
    [("7e 6e 5e", 38), ("10o 11o 12o", 20), ("1c 2c 3c", 26), ("7b 12b 4b", 31)],
)
def test_flor_value_is_20_plus_all_three_with_figures_worth_0(hand: str, value: int) -> None:
    assert flor_value(cards(hand)) == value


def test_the_highest_flor_is_38_with_7_6_5() -> None:
    flores = [h for h in combinations(DECK, 3) if has_flor(h)]
    assert len(flores) == 4 * 120
    best = max(flor_value(h) for h in flores)
    assert best == 38
    assert {tuple(sorted(card_name(c)[:-1] for c in h)) for h in flores if flor_value(h) == 38} == {
        ("5", "6", "7")
    }
