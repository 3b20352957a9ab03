"""Table options (docs/rules.md, issue 2 "Rules"): one frozen, validated value; every valid
combination constructs, every invalid one is refused with a RulesError naming it."""

from __future__ import annotations

import dataclasses
from itertools import product

import pytest

from truco.game import Game
from truco.rules import Rules, RulesError

PLAYERS = (2, 4, 6)
FLOR = (False, True)
TARGETS = (15, 30)
CHICOS = (1, 3)
FALTA = ("leader", "loser", "chico")


def _valid(players: int, flor: bool, target: int, con_flor_quiero: bool, pica_pica: bool) -> bool:
    """The constraints of docs/rules.md: con flor quiero is a flor variant; pica-pica is a 3v3
    option of tables to 30."""
    if con_flor_quiero and not flor:
        return False
    return not (pica_pica and (players != 6 or target != 30))


ALL = list(product(PLAYERS, FLOR, TARGETS, CHICOS, FALTA, (False, True), (False, True)))
VALID = [combo for combo in ALL if _valid(combo[0], combo[1], combo[2], combo[5], combo[6])]
INVALID = [combo for combo in ALL if combo not in VALID]


def _rules(combo: tuple) -> Rules:
    players, flor, target, chicos, falta, cfq, pica = combo
    return Rules(
        players=players,
        flor=flor,
        target=target,
        chicos=chicos,
        falta_envido=falta,
        con_flor_quiero=cfq,
        pica_pica=pica,
    )


def test_the_defaults_are_the_001_table() -> None:
    rules = Rules()
    assert (rules.players, rules.flor, rules.target, rules.chicos) == (2, False, 30, 1)
    assert (rules.falta_envido, rules.con_flor_quiero, rules.pica_pica) == (
        "leader",
        False,
        False,
    )


def test_every_valid_combination_constructs_and_starts_a_game() -> None:
    for combo in VALID:
        rules = _rules(combo)
        assert rules.to_dict() == dict(
            zip(
                (
                    "players",
                    "flor",
                    "target",
                    "chicos",
                    "falta_envido",
                    "con_flor_quiero",
                    "pica_pica",
                ),
                combo,
                strict=True,
            )
        )
        assert Rules.from_dict(rules.to_dict()) == rules
        game = Game(rules, seed=1)
        assert len(game.actors()) >= 1


def test_the_number_of_valid_tables() -> None:
    # flor x con_flor_quiero: 3 choices (sin flor; con flor; con flor + quiero)
    # pica_pica only for 6 players to 30
    per_size_target = 3 * len(CHICOS) * len(FALTA)
    expected = len(PLAYERS) * len(TARGETS) * per_size_target + per_size_target  # + pica-pica tables
    assert len(VALID) == expected == 126


@pytest.mark.parametrize("combo", INVALID, ids=str)
def test_every_invalid_combination_is_refused_naming_the_option(combo: tuple) -> None:
    players, flor, target, _, _, cfq, pica = combo
    with pytest.raises(RulesError) as info:
        _rules(combo)
    offending = []
    if cfq and not flor:
        offending.append("con_flor_quiero")
    if pica and (players != 6 or target != 30):
        offending.append("pica_pica")
    assert any(name in str(info.value) for name in offending), str(info.value)


def test_pica_pica_on_a_table_to_15_names_the_target() -> None:
    with pytest.raises(RulesError, match=r"pica_pica.*15|15.*pica_pica"):
        Rules(players=6, target=15, pica_pica=True)


def test_pica_pica_outside_3v3_names_players() -> None:
    for players in (2, 4):
        with pytest.raises(RulesError, match=r"pica_pica.*players"):
            Rules(players=players, pica_pica=True)


def test_con_flor_quiero_without_flor_names_flor() -> None:
    with pytest.raises(RulesError, match=r"con_flor_quiero.*flor"):
        Rules(con_flor_quiero=True)


@pytest.mark.parametrize(
    "option,value",
    [
        ("players", 3),
        ("players", 1),
        ("players", 8),
        ("players", "2"),
        ("players", 2.0),
        ("players", True),
        ("target", 20),
        ("target", 0),
        ("target", "30"),
        ("target", 30.0),
        ("chicos", 2),
        ("chicos", 5),
        ("chicos", "3"),
        ("flor", 1),
        ("flor", "true"),
        ("flor", None),
        ("falta_envido", "classic"),
        ("falta_envido", ""),
        ("falta_envido", 1),
        ("con_flor_quiero", 1),
        ("pica_pica", 0),
    ],
)
def test_a_bad_value_or_type_is_refused_naming_the_option(option: str, value: object) -> None:
    with pytest.raises(RulesError) as info:
        Rules(**{option: value})  # type: ignore[arg-type]
    assert option in str(info.value)
    assert isinstance(info.value, ValueError)


def test_rules_are_frozen() -> None:
    rules = Rules(players=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.players = 6  # type: ignore[misc]


def test_a_record_rules_object_ignores_unknown_keys_and_defaults_the_absent_ones() -> None:
    rules = Rules.from_dict({"players": 6, "flor": True, "colour": "blue"})
    assert rules == Rules(players=6, flor=True)


def test_a_record_rules_object_with_a_bad_value_is_refused() -> None:
    with pytest.raises(RulesError, match="target"):
        Rules.from_dict({"target": 20})


def test_best_of_three_needs_two_chicos() -> None:
    assert Rules(chicos=3).chicos_to_win == 2
    assert Rules(chicos=1).chicos_to_win == 1
