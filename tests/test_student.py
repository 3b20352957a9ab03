"""The student: a learned evaluator of the seat's candidate actions, shipped in the package."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies
from truco import Game, Rules
from truco.actions import MAZO, NO_QUIERO, QUIERO, TRUCO, is_say
from truco.bots import make_bot
from truco.bots.student import (
    FEATURES_VERSION,
    StudentBot,
    closing_points,
    feature_sizes,
    load_model,
    packaged_model,
    position_features,
)
from truco.cards import parse_card
from truco.view import seat_view

TABLES = strategies.SAMPLE_TABLES


def _cards(*names: str) -> tuple[int, ...]:
    return tuple(parse_card(n) for n in names)


def test_the_packaged_model_loads_and_fits_the_feature_list() -> None:
    model = packaged_model()
    positions, actions = feature_sizes()
    assert model.positions == positions
    assert len(model.w1) == positions + actions
    assert model.meta["rows"] > 1000  # trained on the teacher's verdicts, not a stub
    assert str(model.meta["command"]).startswith("python -m truco.rl.student")


@settings(max_examples=300, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_the_student_returns_a_legal_action_and_never_talks(table: Rules, seed: int) -> None:
    game, seat = strategies.random_position(table, seed, max_actions=80)
    view = seat_view(game, seat)
    action = make_bot("student", seed).choose(view, view.legal, table)
    assert action in view.legal
    assert not is_say(action) or all(is_say(a) for a in view.legal)
    game.apply(seat, action)


def test_the_student_sees_only_its_seat_and_is_deterministic() -> None:
    """Two deals that differ only in the rival's hidden cards give the same features and
    the same move, whatever the bot's seed."""
    mine = _cards("1e", "7o", "4c")
    choices = set()
    for rival in (_cards("1b", "7e", "3c"), _cards("4o", "5b", "6c")):
        game = Game(Rules(target=15), manual_deal=True)
        game.deal((mine, rival))
        view = seat_view(game, 0)
        features = position_features(view)
        for seed in (0, 1, 2):
            choices.add(
                (tuple(features), StudentBot(seed=seed).choose(view, view.legal, game.rules))
            )
    assert len(choices) == 1


def test_the_student_values_a_sure_truco_above_folding_it() -> None:
    """Holding the two top cards, facing the rival's truco: accepting (or raising) is
    worth more than refusing."""
    game = Game(Rules(target=30), manual_deal=True)
    game.deal((_cards("4c", "5o", "6b"), _cards("1e", "1b", "7e")))
    game.play(0, "truco")
    view = seat_view(game, 1)
    bot = StudentBot()
    legal = [a for a in view.legal if not is_say(a)]
    values = dict(zip(legal, bot.values(view, legal), strict=True))
    assert values[QUIERO] > values[legal[legal.index(QUIERO) + 1]]  # no-quiero
    assert bot.choose(view, view.legal, game.rules) != legal[legal.index(QUIERO) + 1]
    assert TRUCO not in legal


def test_a_model_for_another_feature_list_is_refused(tmp_path: Path) -> None:
    raw = gzip.decompress(
        (Path(__file__).parents[1] / "src/truco/bots/data/student-v1.json.gz").read_bytes()
    )
    data = json.loads(raw)
    data["features"] = FEATURES_VERSION + 1
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="features"):
        load_model(str(path))
    data["features"], data["format"] = FEATURES_VERSION, "something/2"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="truco-student/1"):
        load_model(str(path))


def test_the_training_command_writes_a_model_the_bot_loads(tmp_path: Path) -> None:
    pytest.importorskip("numpy")
    from truco.rl.student import main

    out = tmp_path / "student.json.gz"
    args = ["--seed", "3", "--matches", "2", "--worlds", "4", "--epochs", "2", "--out", str(out)]
    assert main(args) == 0
    model = load_model(str(out))
    assert model.meta["rows"] > 0
    assert main([*args[:-1], str(tmp_path / "again.json.gz")]) == 0
    again = load_model(str(tmp_path / "again.json.gz"))
    assert (again.w1, again.w2, again.b1, again.b2) == (model.w1, model.w2, model.b1, model.b2)
    game = Game(Rules(target=15), seed=4)
    seat = game.actors()[0]
    view = seat_view(game, seat)
    assert StudentBot(model=model).choose(view, view.legal, game.rules) in view.legal


def test_a_rounds_rows_are_kept_and_fitted_again_with_the_next(tmp_path: Path) -> None:
    """Expert iteration aggregates its rounds: the rows one run keeps come back whole in
    the next, and a file of other features is refused in one line."""
    pytest.importorskip("numpy")
    import numpy as np

    from truco.rl.student import load_rows, main

    kept = tmp_path / "round1.npz"
    base = ["--seed", "3", "--worlds", "4", "--epochs", "1"]
    assert (
        main([*base, "--matches", "2", "--save-rows", str(kept), "--out", str(tmp_path / "a.json")])
        == 0
    )
    first = load_model(str(tmp_path / "a.json")).meta["rows"]
    rows = load_rows(str(kept))
    assert len(rows) == first
    assert (
        main([*base, "--matches", "0", "--rows", str(kept), "--out", str(tmp_path / "b.json")]) == 0
    )
    assert load_model(str(tmp_path / "b.json")).meta["rows"] == first
    np.savez(
        tmp_path / "other.npz",
        position=np.zeros((1, 3)),
        action=np.zeros((1, 2)),
        target=np.zeros((1, 2)),
    )
    with pytest.raises(SystemExit, match="other features"):
        load_rows(str(tmp_path / "other.npz"))


def test_the_positions_tables_are_chosen_by_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--tables 6/15`` draws every match at a 3v3 table to 15 (the six-seat feature set
    in every row); a malformed table stops the command in one line."""
    pytest.importorskip("numpy")
    from truco.rl.student import load_rows, main, parse_table

    kept = tmp_path / "rows.npz"
    args = ["--seed", "3", "--matches", "2", "--worlds", "4", "--epochs", "1", "--tables", "6/15"]
    assert main([*args, "--save-rows", str(kept), "--out", str(tmp_path / "m.json")]) == 0
    rows = load_rows(str(kept))
    assert rows and all(position[6] == 1.0 and position[5] == 0.0 for position, _, _ in rows)
    rules, weight = parse_table("4/30:3")
    assert (rules.players, rules.target, rules.flor, weight) == (4, 30, False, 3)
    for bad in ("8/15", "2/20", "2/15/flr", "2", "2/15:0", "two/15"):
        with pytest.raises(ValueError, match="bad table"):
            parse_table(bad)
    with pytest.raises(SystemExit):  # argparse's one line, the form wanted in it
        main(["--tables", "8/15", "--out", str(tmp_path / "never.json")])
    assert "bad table '8/15': PLAYERS/TARGET" in capsys.readouterr().err
    assert not (tmp_path / "never.json").exists()


def test_the_teachers_caution_lowers_a_risky_call_to_what_the_expert_grants_it() -> None:
    """With ``--cautious`` a risky call's target is worth more than the best quiet move
    exactly when the expert would play it: a lucky mean over noisy worlds is not enough,
    nor a gain on the fitted worlds alone; a quiet move keeps its mean."""
    pytest.importorskip("numpy")
    from truco.actions import parse_action
    from truco.bots.search import Evaluation, cautious_index, paired_error, pays_in_both
    from truco.rl.student import caution

    play, truco = parse_action("play 1e"), TRUCO
    quiet = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

    def evaluation(call: tuple[float, ...], split: int | None = None) -> Evaluation:
        samples = (quiet, call)
        values = tuple(sum(s) / len(s) for s in samples)
        return Evaluation((play, truco), values, (0.0, 0.0), len(quiet), samples, split)

    lucky = evaluation((9.0, -1.0, -1.0, -1.0, -1.0, -1.0))  # mean +0.67, one world
    sure = evaluation((1.0, 1.2, 0.9, 1.1, 1.0, 1.0))
    one_sided = evaluation((2.0, 2.0, 2.0, -1.0, -1.0, -1.0), split=3)  # wins only when fitted

    def expert_calls(e: Evaluation) -> bool:
        def error(i: int, b: int) -> float:
            return paired_error(e.samples[i], e.samples[b])

        def pays(i: int, b: int) -> bool:
            return pays_in_both(e, i, b)

        return cautious_index(e.actions, e.values, error, 1.0, pays) == 1

    for e, calls in ((lucky, False), (sure, True), (one_sided, False)):
        assert e.values[1] > e.values[0]  # the raw mean says: call
        penalty = caution(e, 1.0)
        assert penalty[0] == 0.0 and penalty[1] >= 0.0
        assert expert_calls(e) is calls
        assert (e.values[1] - penalty[1] > e.values[0]) is calls
    assert caution(sure, 1.0)[1] < sure.values[1]  # a sure gain keeps most of its value
    assert caution(lucky, 0.0) == [0.0, 0.0]  # off: the raw means


def test_a_refused_truco_closes_the_hand_for_its_points_whatever_the_hidden_cards() -> None:
    """Refusing a truco, or leaving, closes the hand at once: the caller takes 1 point."""
    game = Game(Rules(target=15), manual_deal=True)
    game.deal((_cards("4c", "5o", "6b"), _cards("1e", "1b", "7e")))
    game.play(0, "truco")
    view = seat_view(game, 1)
    assert closing_points(view, view.legal) == {NO_QUIERO: (1, 0), MAZO: (1, 0)}
    assert closing_points(view, [QUIERO]) == {}


@settings(max_examples=150, deadline=None)
@given(table=st.sampled_from(TABLES), seed=st.integers(0, 10**9))
def test_the_closing_points_of_several_actions_are_each_actions_alone(
    table: Rules, seed: int
) -> None:
    """One draw of worlds serves every closing action: the answer for several actions
    is the answer for each alone; and where an action closes the hand whatever the
    hidden cards, the real game gives those points."""
    game, seat = strategies.random_position(table, seed, max_actions=80)
    view = seat_view(game, seat)
    together = closing_points(view, view.legal)
    alone = {a: p for a in view.legal for a, p in closing_points(view, [a]).items()}
    assert together == alone
    assert set(together) <= {NO_QUIERO, MAZO}
    for action in set(view.legal) & {NO_QUIERO, MAZO}:
        real = game.clone()
        real.dealer = None
        closed = len(real.history)
        real.apply(seat, action)
        closes = len(real.history) > closed
        assert together.get(action) == (real.history[closed].points if closes else None)
