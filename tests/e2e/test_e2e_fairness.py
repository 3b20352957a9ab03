"""Fair deals on the page, in headless Chromium (Debian's ``chromium``, Playwright): the
table shows each hand's commitment (short, the whole hash on hover), and when the match is
over the page itself checks every revealed deck and shows the verified mark, with WebCrypto
and, where a page has no WebCrypto, with its own SHA-256 (and says so)."""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser_kit import ARTIFACTS, sync_api

from server_testing import LiveServer
from truco.fairness import SealedDeck, encode
from truco.server import ServerConfig

#: Take WebCrypto away from a page, as in a page served over plain http from another host.
NO_WEBCRYPTO = "Object.defineProperty(Crypto.prototype, 'subtle', {get: () => undefined});"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("e2e-fair") / "truco.sqlite3"
    config = ServerConfig(
        db_url=f"sqlite:///{db}", bot_delay=0.02, turn_seconds=0, disconnect_grace=3600
    )
    with LiveServer(config) as live:
        yield live


def new_page(
    browser: Any, server: LiveServer, init_script: str | None = None, locale: str = "es-AR"
) -> Any:
    context = browser.new_context(locale=locale)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    page.set_default_timeout(20000)
    page.goto(server.url + "/")
    page.wait_for_selector("#create-form")  # drawn once the page's words have loaded
    return page


CHOICES = [f'#actions button[data-action="{a}"]' for a in ("mazo", "no-quiero", "quiero")] + [
    "#my-hand img.playable"
]


def finished_record(server: LiveServer, table_id: str) -> dict[str, Any]:
    for _ in range(400):  # the writer stores the final record off the hot path
        response = httpx.get(f"{server.url}/api/matches/{table_id}/record")
        if response.status_code == 200:
            return response.json()  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"no finished record for {table_id}")


def play_to_the_end(page: Any, timeout: float = 120.0) -> None:
    """Go to the mazo whenever one may (else answer, else play a card) until the match ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.locator("#winner").count():
            return
        for choice in CHOICES:
            target = page.locator(choice)
            if target.count():
                # the page may re-render under the click: then look again
                with contextlib.suppress(sync_api.TimeoutError):
                    target.first.click(timeout=1000)
                break
        page.wait_for_timeout(40)
    raise AssertionError("the match did not end in time")


def test_the_page_shows_commitments_and_verifies_every_deck(
    browser: Any, server: LiveServer
) -> None:
    ana = new_page(browser, server)
    ana.select_option("select[name=players]", "2")
    ana.select_option("select[name=target]", "15")
    ana.select_option("select[name=bots]", "random")
    ana.click("#create")
    ana.wait_for_url("**/t/*")
    table_id = ana.text_content("#table-code")
    assert table_id

    # the commitment of the hand being played: short on the page, whole in its title
    ana.wait_for_selector("#fair-current code.commitment")
    summary = httpx.get(f"{server.url}/api/tables/{table_id}").json()["fairness"]
    shown = ana.locator("#fair-current code.commitment")
    hand = int(ana.get_attribute("#fair-current", "data-hand") or -1)
    if hand == summary["hand"]:  # (a bot may have closed the hand in between)
        assert shown.get_attribute("title") == summary["commitment"]
        assert shown.text_content() == summary["commitment"][:12] + "…"
    assert len(shown.get_attribute("title") or "") == 64
    assert not ana.locator("#fair-verdict").count()  # nothing revealed while the match is on
    ARTIFACTS.mkdir(exist_ok=True)
    ana.screenshot(path=str(ARTIFACTS / "fairness-commitment.png"), full_page=True)

    # a spectator whose page has no WebCrypto
    beto = new_page(browser, server, NO_WEBCRYPTO)
    beto.goto(f"{server.url}/t/{table_id}")
    beto.wait_for_selector("#fair-current code.commitment")
    assert beto.evaluate("!(globalThis.crypto && crypto.subtle)")

    # in English the panel speaks English (it was hard-coded Spanish)
    eve = new_page(browser, server, locale="en-US")
    eve.goto(f"{server.url}/t/{table_id}")
    eve.wait_for_selector("#fair-current code.commitment")
    assert eve.text_content("#fairness h2") == "Fair deal"
    assert "deck committed" in (eve.text_content("#fair-current") or "")
    eve.context.close()

    play_to_the_end(ana)
    record = finished_record(server, table_id)
    hands = len(record["hands"])
    for page in (ana, beto):
        page.wait_for_selector("#fair-verdict[data-verified='true']")
        assert page.locator("#fairness li[data-verified='true']").count() == hands
        assert not page.locator("#fairness li[data-verified='false']").count()
        assert f"✓ {hands} reparto(s) verificados" in page.text_content("#fair-verdict")
        for h, item in enumerate(record["hands"]):
            li = page.locator(f"#fairness li[data-hand='{h}'] code")
            assert li.get_attribute("title") == item["fairness"]["commitment"]
    assert not ana.locator("#fair-fallback").count()
    ARTIFACTS.mkdir(exist_ok=True)
    ana.screenshot(path=str(ARTIFACTS / "fairness-verified.png"), full_page=True)
    assert "Sin WebCrypto" in beto.text_content("#fair-fallback")

    # and the mark is earned: a deck that does not open its commitment is refused
    last = hands - 1
    fair = record["hands"][last]["fairness"]
    tampered = {**fair, "hand": last, "deck": fair["deck"][1:] + fair["deck"][:1]}
    ana.evaluate("reveal => window.truco.fair.verify(reveal)", tampered)
    ana.wait_for_selector(f"#fairness li[data-hand='{last}'][data-verified='false']")
    assert "✗" in ana.text_content("#fair-verdict")


def test_the_pages_sha256_matches_pythons(browser: Any, server: LiveServer) -> None:
    """The fallback SHA-256 and the WebCrypto path agree with hashlib (block edges,
    multi-byte text, a real commitment), and the page checks a reveal like truco.fairness."""
    page = new_page(browser, server)
    texts = ["", "abc", "a" * 55, "a" * 56, "a" * 64, "x" * 1000, "ñandú 🂡"]
    sealed = SealedDeck.shuffle(5)
    texts.append(encode(5, sealed.deck, sealed.salt).decode())
    got = page.evaluate(
        """async (texts) => {
            const f = await import('/static/fairness.js');
            const out = [];
            for (const t of texts) {
                out.push([f.sha256HexPlain(new TextEncoder().encode(t)), await f.sha256Hex(t)]);
            }
            return out;
        }""",
        texts,
    )
    for text, (plain, webcrypto) in zip(texts, got, strict=True):
        assert plain == webcrypto == hashlib.sha256(text.encode()).hexdigest(), text
    reveal = {"hand": 5, **sealed.revealed()}
    mine = {"seat": 1, "cards": [c for c in reveal["deck"][3:6]]}
    reasons = page.evaluate(
        """async ([reveal, mine]) => {
            const f = await import('/static/fairness.js');
            const [a, b, ...rest] = reveal.deck;
            const swapped = {...reveal, deck: [b, a, ...rest]};
            const other = {...mine, cards: [...mine.cards].reverse()};
            return [
                await f.checkReveal(reveal, reveal.commitment, mine),
                await f.checkReveal(swapped, reveal.commitment, mine),
                await f.checkReveal({...reveal, salt: "00".repeat(32)}, undefined, undefined),
                await f.checkReveal(reveal, "ab".repeat(32), mine),
                await f.checkReveal(reveal, reveal.commitment, other),
                await f.checkReveal({...reveal, hand: 6}, reveal.commitment, mine),
            ];
        }""",
        [reveal, mine],
    )
    assert reasons[0] is None
    assert reasons[1] == reasons[2] == reasons[5] == "el mazo y la sal no dan el compromiso"
    assert reasons[3] == "el compromiso publicado antes de la mano era otro"
    assert reasons[4].startswith("te tocaron ")
