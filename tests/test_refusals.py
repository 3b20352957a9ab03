"""Refusals are codes with parameters (``truco.refusals.CODES``, one registry), worded by
the clients in the player's language: every code has its words in both page catalogs
(``refusal.<code>``) and in the terminal's gettext catalog (its English template as the
message id); every code the server raises is registered; and at random positions of
random matches, every illegal action is refused with a registered engine code whose
parameters fill its words."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import truco
from strategies import TABLES, new_match, play_out, seeds, table_id
from test_locale import CATALOG, read_po
from truco.actions import NUM_ACTIONS
from truco.game import Game, IllegalAction
from truco.locale import set_language
from truco.refusals import CODES, Refusal
from truco.tui.reasons import frame_text, refusal_text

PACKAGE = Path(truco.__file__).parent
STATIC = PACKAGE / "server" / "static"
ORIGINS = {
    "engine", "terminal", "socket", "table", "lobby", "http", "queue", "accounts", "limits",
    "together",
}  # fmt: skip


def page_catalog(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def placeholders(text: str) -> set[str]:
    return set(re.findall(r"(?<!\{)\{(\w+)\}", text))


def test_the_registry_is_well_formed() -> None:
    assert len(CODES) > 60
    for code, entry in CODES.items():
        assert re.fullmatch(r"[a-z][a-z0-9_]*", code), code
        assert entry.origin in ORIGINS, code
        assert entry.template and "\n" not in entry.template, code
        entry.template.format(**dict.fromkeys(placeholders(entry.template), "x"))


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_code_is_worded_on_the_page(lang: str) -> None:
    page = page_catalog(lang)
    missing = sorted(code for code in CODES if f"refusal.{code}" not in page)
    assert missing == [], f"{lang}.json has no refusal.<code> for {missing}"
    for code, entry in CODES.items():
        words = page[f"refusal.{code}"]
        assert placeholders(words) == placeholders(entry.template), (lang, code, words)
    stale = sorted(k for k in page if k.startswith("refusal.") and k[8:] not in CODES)
    assert stale == [], f"{lang}.json words codes nobody raises: {stale}"


def test_every_code_is_worded_in_the_terminal() -> None:
    po = read_po(CATALOG / "truco.po")
    missing = sorted(code for code, entry in CODES.items() if not po.get(entry.template))
    assert missing == [], f"truco.po has no translation of the templates of {missing}"
    for code, entry in CODES.items():
        assert placeholders(po[entry.template]) == placeholders(entry.template), code


def test_a_code_without_words_fails_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks above see a code added to the registry and worded nowhere."""
    monkeypatch.setitem(CODES, "a_new_rule", CODES["match_over"]._replace(template="new words"))
    with pytest.raises(AssertionError, match="a_new_rule"):
        test_every_code_is_worded_on_the_page("es")
    with pytest.raises(AssertionError, match="a_new_rule"):
        test_every_code_is_worded_in_the_terminal()


#: how the server's modules raise a refusal: the code is the first string argument
_RAISED = re.compile(
    r"""(?:TableError|ProtocolError|HTTPRefusal|Refused|Refusal\.of)\(\s*"""
    r"""(?:[A-Z_]+|\d+)?,?\s*"([a-z_]+)\"""",
)


def test_every_code_raised_anywhere_is_registered() -> None:
    raised = set()
    for path in PACKAGE.rglob("*.py"):
        raised |= set(_RAISED.findall(path.read_text("utf-8")))
    assert {"seat_taken", "not_seated", "bad_message", "no_queue", "no_table"} <= raised
    assert sorted(raised - set(CODES)) == []


def test_the_server_sends_no_refusal_without_a_code() -> None:
    """The old shapes (a code and free prose) are gone from the server's sources."""
    for path in (PACKAGE / "server").rglob("*.py"):
        text = path.read_text("utf-8")
        assert not re.search(r"error_message\(\s*\"", text), path
        assert not re.search(r"(TableError|ProtocolError)\(\s*\"[a-z_]+\",\s*f?\"", text), path


def test_the_page_words_refusals_from_the_code_never_from_prose() -> None:
    assert "`refusal.${msg?.code}`" in (STATIC / "refusal.js").read_text("utf-8")
    for module in ("table.js", "quickmatch.js", "app.js"):
        source = (STATIC / module).read_text("utf-8")
        assert "refusalText(" in source, module
        assert not re.search(r"(reason|detail)\.(match|replace|split|includes|startsWith)", source)


# ------------------------------------------------------------------ the engine's refusals
def check_refusals(game: Game) -> None:
    """Every (seat, action) the rules refuse now: a registered engine code whose params
    are its template's placeholders, the same refusal IllegalAction carries, and words
    in both languages of the terminal with every placeholder filled."""
    names = tuple(f"Jugador{s}" for s in range(game.players))
    for seat in range(game.players):
        legal = set(game.legal_actions(seat))
        for action in range(NUM_ACTIONS):
            if action in legal:
                continue
            refusal = game.why_illegal(seat, action)
            assert isinstance(refusal, Refusal)
            entry = CODES[refusal.code]
            assert entry.origin == "engine", refusal
            assert set(refusal.params) == placeholders(entry.template), refusal
            for lang in ("es", "en"):
                set_language(lang)
                text = refusal_text(refusal, names)
                assert text and "{" not in text and "seat" not in text.split(":")[-1], text
            if refusal.code == "not_your_turn":
                assert names[refusal.params["player"]] in text  # type: ignore[index]
    if game.actors() and not game.is_over:
        seat = game.actors()[0]
        refused = next(a for a in range(NUM_ACTIONS) if a not in game.legal_actions(seat))
        with pytest.raises(IllegalAction) as info:
            game.apply(seat, refused)
        assert info.value.refusal == game.why_illegal(seat, refused)


@pytest.mark.parametrize("rules", TABLES[::5], ids=[table_id(r) for r in TABLES[::5]])
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=seeds, stop=st.integers(min_value=0, max_value=120))
def test_every_illegal_action_is_refused_with_a_registered_worded_code(
    rules: truco.Rules, seed: int, stop: int
) -> None:
    game, policy = new_match(rules, seed)
    try:
        play_out(game, policy, check_refusals, stop_after=stop)
    finally:
        set_language("es")


# ------------------------------------------------------------------ the terminal's words
def test_the_terminal_names_the_player_not_the_seat_number() -> None:
    set_language("es")
    frame = {"type": "error", "code": "not_your_turn", "params": {"player": 0}, "reason": "x"}
    assert frame_text(frame, ("Ana", "Beto")) == "no es tu turno: juega Ana"
    set_language("en")
    try:
        assert frame_text(frame, ("Ana", "Beto")) == "it is not your turn: Ana plays"
        card = {"code": "card_not_held", "params": {"card": "1e"}}
        assert frame_text(card) == "you do not hold the 1 of swords"
    finally:
        set_language("es")


def test_a_frame_this_client_cannot_word_shows_the_servers_sentence() -> None:
    assert frame_text({"code": "newer", "params": {}, "reason": "new words"}) == "new words"
    broken = {"code": "not_your_turn", "params": {}, "reason": "the server's sentence"}
    assert frame_text(broken) == "the server's sentence"
    assert frame_text({"detail": "an HTTP refusal"}) == "an HTTP refusal"
