"""The ladder: levels named for players, each a bot of its own name, offered first in the
lobby with a line in each of the page's languages, rated from the weakest up."""

from __future__ import annotations

import json
from pathlib import Path

from truco import Game, Rules
from truco.actions import FALTA_ENVIDO, MAZO, NO_QUIERO, is_say
from truco.bots import BOTS, make_bot
from truco.bots.ladder import LADDER, TOP
from truco.bots.search import EXPERT_2026, LEVELS, SearchBot
from truco.cards import card_name
from truco.view import seat_view

I18N = Path(__file__).parents[1] / "src/truco/server/static/i18n"


def test_every_level_is_a_bot_listed_first_and_rated_from_the_weakest_up() -> None:
    names = [level.name for level in LADDER]
    assert names == ["beginner", "amateur", "club", "master"] == list(BOTS)[: len(LADDER)]
    ratings = [level.rating for level in LADDER]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings)
    for level in LADDER:
        assert repr(make_bot(level.name, 1)) == repr(make_bot(level.spec, 1))
    assert TOP.name == "master"


def test_every_level_has_its_words_in_both_languages() -> None:
    for lang in ("es", "en"):
        catalog = json.loads((I18N / f"{lang}.json").read_text("utf-8"))
        for name in [*(level.name for level in LADDER), "search:expert-2026"]:
            for prefix in ("bot", "botlevel", "botdesc"):
                assert catalog.get(f"{prefix}.{name}"), (lang, prefix, name)


def test_the_expert_of_2026_is_kept_under_its_fixed_name() -> None:
    assert LEVELS["expert-2026"] is EXPERT_2026 is LEVELS["expert"]
    bot = make_bot("search:expert-2026", 1)
    assert isinstance(bot, SearchBot) and bot.method == EXPERT_2026


def test_the_beginner_never_plays_an_absurd_move() -> None:
    """Over many positions: holding the two best cards it never goes to the mazo nor
    refuses a truco, and it never opens with a falta envido."""
    rules = Rules(target=30)
    bot = make_bot("beginner", 1)
    for seed in range(300):
        game = Game(rules, seed=seed)
        for _ in range(40):
            if game.is_over:
                break
            seat = game.actors()[0]
            view = seat_view(game, seat)
            legal = [a for a in view.legal if not is_say(a)]
            action = bot.choose(view, legal, rules)
            assert action in legal
            strong = {"1e", "1b"} <= {card_name(c) for c in view.hand}
            if strong:
                assert action != MAZO, view.describe()
                if view.pending is not None and view.pending.kind == "truco":
                    assert action != NO_QUIERO, view.describe()
            assert action != FALTA_ENVIDO or (view.pending is not None), view.describe()
            game.apply(seat, action)
