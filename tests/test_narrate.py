"""A closed hand told in words (truco.narrate): scenarios in both languages, and the
bazas it lays out checked against the engine's own baza results on random matches."""

from __future__ import annotations

import pytest

from strategies import SAMPLE_TABLES, new_match, play_out, table_id
from truco.cards import parse_card
from truco.game import PARDA, Game
from truco.narrate import explain_hand, explain_last_hand, hand_bazas, score_before
from truco.rules import Rules
from truco.view import PublicHand, public_hand
from util import deal

NAMES = ("Ana", "Beto")
TEAMS = ("Nosotros", "Ellos")


def closed_hand(cards: tuple[str, str], tokens: list[tuple[int, str]]) -> PublicHand:
    """Play one 1v1 hand from the given deal; return it as everyone sees it closed."""
    game = Game(Rules(), manual_deal=True)
    game.deal(deal(*cards))
    for seat, token in tokens:
        game.play(seat, token)
    assert game.history, "the hand did not close"
    return public_hand(game.history[-1])


def test_an_envido_refused_names_who_refused_it() -> None:
    hand = closed_hand(
        ("1e 7e 4c", "3b 2c 12o"),
        [
            (0, "envido"),
            (1, "no-quiero"),
            (0, "play 1e"),
            (1, "play 3b"),
            (0, "play 7e"),
            (1, "play 2c"),
        ],
    )
    en = explain_hand(hand, NAMES, TEAMS, (0, 0), "en")
    es = explain_hand(hand, NAMES, TEAMS, (0, 0), "es")
    assert en[0] == "Envido: Beto did not want it — Nosotros +1"
    assert es[0] == "Envido: Beto no quiso — Nosotros +1"
    assert en[1] == "Truco: not called, won on the bazas (1st Nosotros, 2nd Nosotros) — Nosotros +1"
    assert (
        es[1] == "Truco: no se cantó, ganado por las bazas (1ª Nosotros, 2ª Nosotros) — Nosotros +1"
    )


def test_a_chain_of_envido_calls_and_the_winning_tanto() -> None:
    hand = closed_hand(
        ("1e 7e 4c", "3b 2b 12o"),
        [(0, "envido"), (1, "real-envido"), (0, "quiero"), (0, "mazo")],
    )
    lines = explain_hand(hand, NAMES, TEAMS, (0, 0), "en")
    assert lines == [
        "Envido + real envido: Ana won with 28 — Nosotros +5",
        "Truco: Ana went to the mazo — Ellos +1",
    ]
    assert explain_hand(hand, NAMES, TEAMS, (0, 0), "es")[1] == (
        "Truco: Ana se fue al mazo — Ellos +1"
    )


def test_a_retruco_won_on_the_bazas_after_a_parda() -> None:
    hand = closed_hand(
        ("3e 1e 4c", "3o 5b 4o"),
        [
            (0, "truco"),
            (1, "retruco"),
            (0, "quiero"),
            (0, "play 3e"),
            (1, "play 3o"),
            (0, "play 1e"),
            (1, "play 5b"),
        ],
    )
    bazas = hand_bazas(hand.actions, 2)
    assert [(b.finished, b.winner, b.best) for b in bazas] == [(True, None, None), (True, 0, 0)]
    assert [b.cards[0][0] for b in bazas] == [0, 0]  # the mano leads after a parda
    assert explain_hand(hand, NAMES, TEAMS, (0, 0), "en") == [
        "Truco: retruco accepted, won on the bazas (1st parda, 2nd Nosotros) — Nosotros +3"
    ]


def test_a_refused_vale_cuatro_names_the_call_and_who_refused() -> None:
    hand = closed_hand(
        ("3e 1e 4c", "3o 5b 4o"),
        [(0, "truco"), (1, "retruco"), (0, "vale-cuatro"), (1, "no-quiero")],
    )
    assert explain_hand(hand, NAMES, TEAMS, (0, 0), "en") == [
        "Truco: Beto did not want the vale cuatro — Nosotros +3"
    ]
    assert explain_hand(hand, NAMES, TEAMS, (0, 0), "es") == [
        "Truco: Beto no quiso el vale cuatro — Nosotros +3"
    ]


def test_points_beyond_the_target_and_after_the_chico_are_dropped() -> None:
    # Nosotros had 14 of 15: the envido's 2 reach 15 (1 beyond it), the truco's 1 comes
    # after the chico was won.
    hand = PublicHand(
        index=7,
        mano=0,
        why=((0, "envido", 2), (0, "truco", 1), (1, "truco", 2)),
        points=(3, 2),
        score=(15, 9),
        chicos=(1, 0),
        played=(),
        revealed=(),
    )
    lines = explain_hand(hand, NAMES, TEAMS, (14, 9), "en", target=15)
    assert "Nosotros reached 15: 1 point beyond it dropped" in lines
    assert "Nosotros's 1 point of truco dropped: the chico was already won" in lines
    assert "Ellos's 2 points of truco dropped: the chico was already won" in lines
    es = explain_hand(hand, NAMES, TEAMS, (14, 9), "es", target=15)
    assert "Nosotros llegó a 15: 1 punto de más no cuenta" in es
    assert "2 puntos de truco de Ellos no cuentan: el chico ya estaba ganado" in es
    assert lines.count("Chico for Nosotros (15 points)") == 1  # said once, when reached
    assert "Chico para Nosotros (15 puntos)" in es
    # without a target nothing is said about dropped points
    assert not any("dropped" in line for line in explain_hand(hand, NAMES, TEAMS, (14, 9), "en"))


def test_an_unknown_language_is_refused() -> None:
    hand = closed_hand(("1e 7e 4c", "3b 2c 12o"), [(0, "mazo")])
    with pytest.raises(OSError):
        explain_hand(hand, NAMES, TEAMS, (0, 0), "xx")


def test_bazas_left_unfinished_are_not_counted() -> None:
    c = parse_card
    mazo = 52
    bazas = hand_bazas([(0, c("3e")), (1, c("3o")), (0, c("1e")), (1, mazo)], 2)
    assert [(b.number, b.finished) for b in bazas] == [(1, True), (2, False)]  # 1 left it
    # 2v2: the last of a baza goes to the mazo, a partner stays: the baza is settled
    plays = [(0, c("4e")), (1, c("5e")), (2, c("6e")), (3, mazo)]
    bazas = hand_bazas(plays, 4)
    assert bazas[0].finished and bazas[0].winner == 0 and bazas[0].best == 2
    bazas = hand_bazas([(0, c("3e")), (1, c("3o")), (0, c("1e"))], 2)
    assert bazas[1].finished is False and bazas[1].winner is None


@pytest.mark.parametrize("rules", [r for r in SAMPLE_TABLES if not r.pica_pica], ids=table_id)
@pytest.mark.parametrize("seed", range(4))
def test_the_bazas_agree_with_the_engine_and_every_point_is_told(rules: Rules, seed: int) -> None:
    game, policy = new_match(rules, seed)
    play_out(game, policy)
    before = (0, 0)
    for result in game.history:
        hand = public_hand(result)
        engine = [data for _after, kind, data in result.notes if kind == "baza"]
        ours = [b for b in hand_bazas(hand.actions, rules.players) if b.finished]
        assert len(ours) == len(engine), (seed, result.index)
        for baza, (number, team, best) in zip(ours, engine, strict=True):
            assert baza.number == number + 1
            assert baza.winner == (None if team == PARDA else team)
            if team != PARDA:
                assert baza.best is not None and baza.best & 1 == best & 1
        for lang in ("es", "en"):
            lines = explain_hand(hand, ("a",) * rules.players, TEAMS, before, lang)
            assert len(lines) == max(1, len(result.why))  # one sentence per source of points
            for (team, _source, points), line in zip(result.why, lines, strict=False):
                assert line.endswith(f"{TEAMS[team]} +{points}"), line
        before = (0, 0) if max(hand.score) >= rules.target else hand.score


def test_the_server_tells_the_last_hand_in_every_language_with_colour_teams() -> None:
    game = Game(Rules(target=15), manual_deal=True)
    game.deal(deal("7o 6o 4c", "1e 2e 12b"))
    for seat, token in [(0, "truco"), (1, "quiero"), (0, "mazo")]:
        game.play(seat, token)
    story = explain_last_hand(game.history, ("Ana", "Bot 1 (simple)"), 15)
    assert story == {
        "index": 0,
        "lines": {
            "es": ["Truco: Ana se fue al mazo — Rojos +2"],
            "en": ["Truco: Ana went to the mazo — Red +2"],
        },
        # told to Ana, who went (her rival reads the lines as they are)
        "you": {
            "0": {
                "es": ["Truco: te fuiste al mazo — Rojos +2"],
                "en": ["Truco: you went to the mazo — Red +2"],
            }
        },
    }


def test_the_score_before_a_hand_starts_again_after_a_chico() -> None:
    game = Game(Rules(target=15, chicos=3), manual_deal=True)
    while not game.is_over and len(game.history) < 100:
        game.deal(deal("7o 6o 4c", "1e 2e 12b"))
        game.play(game.actors()[0], "mazo")
    scores = [h.score for h in game.history]
    assert game.is_over and sum(1 for s in scores if max(s) == 15) >= 2  # chicos were won
    for index, hand in enumerate(game.history):
        before = score_before(game.history, index, 15)
        previous = scores[index - 1] if index else (0, 0)
        assert before == ((0, 0) if max(previous) >= 15 else previous)
        assert hand.score[0] - before[0] + hand.score[1] - before[1] == sum(hand.points)


# ---------------------------------------------------------------- the reader's own seat
YOU = {"es": ("Vos", "Beto"), "en": ("You", "Beto")}
US = {"es": ("Nosotros", "Ellos"), "en": ("Us", "Them")}


@pytest.mark.parametrize(
    ("tokens", "lang", "expected"),
    [
        ([(0, "mazo")], "es", "Truco: te fuiste al mazo — Ellos +1"),
        ([(0, "mazo")], "en", "Truco: you went to the mazo — Them +1"),
        (
            [(0, "play 4c"), (1, "truco"), (0, "no-quiero")],
            "es",
            "Truco: no quisiste el truco — Ellos +1",
        ),
        (
            [(0, "play 4c"), (1, "truco"), (0, "no-quiero")],
            "en",
            "Truco: you did not want the truco — Them +1",
        ),
        ([(0, "envido"), (1, "quiero"), (0, "mazo")], "es", "Envido: ganaste con 33 — Nosotros +2"),
        ([(0, "envido"), (1, "quiero"), (0, "mazo")], "en", "Envido: you won with 33 — Us +2"),
    ],
)
def test_the_person_reading_is_told_in_the_second_person(
    tokens: list[tuple[int, str]], lang: str, expected: str
) -> None:
    """Not "Vos no quiso el truco", "Vos se fue al mazo": the reader's seat (``you``)."""
    hand = closed_hand(("7e 6e 4c", "3b 2c 12o"), tokens)
    lines = explain_hand(hand, YOU[lang], US[lang], (0, 0), lang, you=0)
    assert expected in lines, lines
    assert not any("Vos " in line or "You " in line for line in lines)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_rivals_refusal_is_still_told_in_the_third_person(lang: str) -> None:
    hand = closed_hand(("1e 7e 4c", "3b 2c 12o"), [(0, "truco"), (1, "no-quiero")])
    lines = explain_hand(hand, YOU[lang], US[lang], (0, 0), lang, you=0)
    expected = {"es": "Truco: Beto no quiso el truco", "en": "Truco: Beto did not want the truco"}
    assert any(line.startswith(expected[lang]) for line in lines), lines
