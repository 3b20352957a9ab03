"""The tensors' layout table (issue 32: the observation layout was reachable only as
offsets): made from the encoder, and docs/research.md shows exactly that table."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from truco import Game
from truco.rl.encoding import Encoder
from truco.rl.layout import MEANINGS, layout, layout_table
from truco.rules import Rules
from truco.view import seat_view

DOC = Path(__file__).resolve().parents[1] / "docs" / "research.md"
TABLES = [Rules(), Rules(players=4, flor=True), Rules(players=6, pica_pica=True, target=30)]


@pytest.mark.parametrize("kind", ["observation", "information_state"])
def test_the_tables_in_the_docs_are_the_encoders(kind: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- layout:{kind} -->\n(.*?)\n<!-- /layout -->", text, re.S)
    assert found is not None, f"docs/research.md has no {kind} layout table"
    assert found.group(1) == layout_table(Rules(), kind)


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: r.describe())
@pytest.mark.parametrize("kind", ["observation", "information_state"])
def test_the_fields_tile_the_tensor_and_say_where_the_encoder_writes(
    rules: Rules, kind: str
) -> None:
    enc = Encoder(rules)
    fields = layout(rules, kind)
    assert {f.name for f in fields} <= set(MEANINGS)
    shape = enc.observation_shape if kind == "observation" else enc.information_state_shape
    assert fields[0].offset == 0 and sum(f.size for f in fields) == shape[0]
    for before, after in itertools.pairwise(fields):
        assert before.offset + before.size == after.offset
    # the viewer's held cards land in the `held` field, and nowhere else of the head
    game = Game(rules, seed=3)
    seat = game.actors()[0]
    view = seat_view(game, seat)
    tensor = (
        enc.observation_tensor(view)
        if kind == "observation"
        else enc.information_state_tensor(view)
    )
    held = next(f for f in fields if f.name == "held")
    assert set(np.flatnonzero(tensor[held.offset : held.offset + held.size])) == set(view.hand)
