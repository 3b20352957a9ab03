"""A small game of the engine as an explicit tree: Gambit's ``.efg`` text.

OpenSpiel's exact tools (``CFRPlusSolver``, ``nash_conv``, ``exploitability``) walk the
whole tree at every iteration; on a Python game each node costs a call into Python, too
slow for tens of thousands of nodes. :func:`to_efg` walks the tree of a
:class:`~truco.rl.game.TrucoGame` once — every chance outcome and every legal action,
the engine deciding each — and writes it in the extensive-form format that
``pyspiel.load_efg_game`` reads into a C++ game, on which those tools run in C++.
Information sets are the seats' information-state strings, so the C++ game has exactly
the information structure of the Python one. Mini-truco (``python_mini_truco``) is the
game this is for: the real game is far too large.

>>> from truco.rl import TrucoGame
>>> tree = to_efg(TrucoGame(hand_size=1, target=15, deck="1e,7e", max_hands=1, returns="hand"))
>>> tree.text.splitlines()[0], tree.nodes, len(tree.states[0]) > 0
('EFG 2 R "truco" { "seat 0" "seat 1" }', 7717, True)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from ..actions import action_token
from ..cards import card_name
from .game import TrucoGame, TrucoState


@dataclass
class Tree:
    """The ``.efg`` text, the number of nodes, and per seat a state of each of its
    information sets (infoset number -> state: what a bot is asked at it) and the
    numbers of its information-state strings."""

    text: str
    nodes: int
    states: list[dict[int, TrucoState]] = field(default_factory=list)
    numbers: list[dict[str, int]] = field(default_factory=list)

    def name(self, seat: int, information_state: str) -> str:
        """The efg name of ``seat``'s information set (``s<seat>-<number>``), which
        OpenSpiel's ``efg_game`` gives as its information-state string."""
        return f"s{seat}-{self.numbers[seat][information_state]}"


def action_label(action: int) -> str:
    """An action's label in the tree (its record token, without spaces)."""
    return action_token(action).replace(" ", "_")


def to_efg(spec: TrucoGame, name: str = "truco") -> Tree:
    """The whole tree of ``spec`` (two players, one hand: ``max_hands=1``) as ``.efg``.
    Information sets are named ``s<seat>-<number>`` and numbered from 1 per seat."""
    if spec.num_players() != 2 or spec.max_hands != 1:
        raise ValueError("to_efg writes two-player one-hand games (max_hands=1)")
    lines: list[str] = []
    infosets: list[dict[str, int]] = [{}, {}]
    states: list[dict[int, TrucoState]] = [{}, {}]
    counts = {"chance": 0, "terminal": 0}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))

    def walk(state: TrucoState) -> None:
        if state.is_terminal():
            counts["terminal"] += 1
            r = state.returns()
            lines.append(f't "" {counts["terminal"]} "" {{ {r[0]:g}, {r[1]:g} }}')
            return
        if state.is_chance_node():
            counts["chance"] += 1
            outcomes = state.chance_outcomes()
            acts = " ".join(f'"{card_name(c)}" {p:.17g}' for c, p in outcomes)
            lines.append(f'c "" {counts["chance"]} "" {{ {acts} }} 0')
            for c, _ in outcomes:
                child = state.clone()
                child.apply_action(c)
                walk(child)
            return
        seat = state.current_player()
        ids = infosets[seat]
        key = state.information_state_string(seat)
        number = ids.get(key)
        if number is None:
            number = ids[key] = len(ids) + 1
            states[seat][number] = state.clone()
        legal = state.legal_actions()
        acts = " ".join(f'"{action_label(a)}"' for a in legal)
        lines.append(f'p "" {seat + 1} {number} "s{seat}-{number}" {{ {acts} }} 0')
        for a in legal:
            child = state.clone()
            child.apply_action(a)
            walk(child)

    try:
        walk(spec.new_initial_state())
    finally:
        sys.setrecursionlimit(limit)
    head = f'EFG 2 R "{name}" {{ "seat 0" "seat 1" }}\n""\n'
    return Tree(head + "\n".join(lines) + "\n", len(lines), states, infosets)
