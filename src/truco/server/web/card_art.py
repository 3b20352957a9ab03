"""The 40 Spanish-deck cards as SVG, drawn by the project.

Each card has its number in the corners, the suit's pips (oros coins, copas cups,
espadas swords, bastos clubs) laid out by rank, a figure for sota (10), caballo (11)
and rey (12), and the Spanish deck's "cortes": gaps in the frame that tell the suit
(none for oros, one for copas, two for espadas, three for bastos).

>>> svg = card_svg("1e")
>>> svg.startswith("<svg") and "espadas" in svg
True
>>> card_svg("8e") is None
True
"""

from __future__ import annotations

from functools import lru_cache

from ...cards import CardError, card_name, parse_card

W, H = 120, 180
SUIT_NAMES = {"e": "espadas", "b": "bastos", "o": "oros", "c": "copas"}
COLORS = {"o": "#d4a017", "c": "#c0392b", "e": "#2c5aa0", "b": "#3f7d20"}
CORTES = {"o": 0, "c": 1, "e": 2, "b": 3}

# pip centres for ranks 1-7 (in a 120x180 card)
_LAYOUT: dict[int, list[tuple[float, float]]] = {
    1: [(60, 92)],
    2: [(60, 55), (60, 128)],
    3: [(60, 45), (60, 92), (60, 139)],
    4: [(38, 55), (82, 55), (38, 128), (82, 128)],
    5: [(38, 50), (82, 50), (60, 92), (38, 134), (82, 134)],
    6: [(38, 48), (82, 48), (38, 92), (82, 92), (38, 136), (82, 136)],
    7: [(38, 44), (82, 44), (60, 68), (38, 98), (82, 98), (38, 140), (82, 140)],
}


def _pip(suit: str, x: float, y: float, size: float) -> str:
    """One suit symbol centred at (x, y), ``size`` its height."""
    s = size / 24
    color = COLORS[suit]
    t = f'transform="translate({x:.1f} {y:.1f}) scale({s:.3f})"'
    if suit == "o":  # a gold coin
        return (
            f'<g {t}><circle r="11" fill="{color}" stroke="#7a5a00" stroke-width="1.5"/>'
            f'<circle r="6.5" fill="none" stroke="#7a5a00" stroke-width="1.2"/>'
            f'<circle r="2" fill="#7a5a00"/></g>'
        )
    if suit == "c":  # a cup
        return (
            f'<g {t}><path d="M-9,-11 H9 C9,-1 5,3 0,3 C-5,3 -9,-1 -9,-11 Z" fill="{color}" stroke="#6d1f16" stroke-width="1.2"/>'
            f'<rect x="-1.6" y="3" width="3.2" height="5" fill="#d4a017"/>'
            f'<path d="M-6,12 H6 L3,8 H-3 Z" fill="#d4a017" stroke="#7a5a00" stroke-width="0.8"/></g>'
        )
    if suit == "e":  # a sword, point up
        return (
            f'<g {t}><path d="M0,-12 L2.6,-8 L2.6,5 L-2.6,5 L-2.6,-8 Z" fill="#dfe6ee" stroke="{color}" stroke-width="1.2"/>'
            f'<rect x="-7" y="5" width="14" height="2.6" rx="1" fill="{color}"/>'
            f'<rect x="-1.5" y="7.6" width="3" height="3.4" fill="#8a5a2b"/>'
            f'<circle cy="12" r="1.6" fill="{color}"/></g>'
        )
    # bastos: a knotted club
    return (
        f'<g {t}><path d="M-2.5,12 L-4.5,-8 C-4.5,-13 4.5,-13 4.5,-8 L2.5,12 Z" fill="#b07a3c" stroke="{color}" stroke-width="1.3"/>'
        f'<circle cx="-4" cy="-3" r="1.6" fill="{color}"/><circle cx="3.8" cy="2" r="1.6" fill="{color}"/>'
        f'<circle cx="-3" cy="6" r="1.3" fill="{color}"/></g>'
    )


def _frame(suit: str) -> str:
    """The inner frame, with the suit's cortes (gaps) on the top and bottom edges."""
    color = COLORS[suit]
    x0, y0, x1, y1 = 10, 10, W - 10, H - 10
    parts = [
        f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y1}"/>',
        f'<line x1="{x1}" y1="{y0}" x2="{x1}" y2="{y1}"/>',
    ]
    gaps = CORTES[suit]
    for y in (y0, y1):
        if gaps == 0:
            parts.append(f'<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}"/>')
            continue
        # split the edge into gaps+1 segments with 8px gaps
        seg = (x1 - x0 - 8 * gaps) / (gaps + 1)
        x = float(x0)
        for _ in range(gaps + 1):
            parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x + seg:.1f}" y2="{y}"/>')
            x += seg + 8
    return f'<g stroke="{color}" stroke-width="2">{"".join(parts)}</g>'


def _figure(rank: int, suit: str) -> str:
    """Sota, caballo or rey: a simple standing figure holding the suit."""
    color = COLORS[suit]
    body = (
        f'<circle cx="60" cy="58" r="11" fill="#f3d2b3" stroke="#5a3b1e" stroke-width="1.2"/>'
        f'<path d="M42,150 L46,84 C50,72 70,72 74,84 L78,150 Z" fill="{color}" stroke="#333" stroke-width="1.2"/>'
        f'<path d="M46,104 H74" stroke="#d4a017" stroke-width="3"/>'
    )
    if rank == 10:  # sota: a cap
        head = '<path d="M48,52 C50,40 70,40 72,52 Z" fill="#7a3b9a"/>'
    elif rank == 11:  # caballo: a horse head beside the rider
        head = (
            '<path d="M49,50 C52,42 68,42 71,50 Z" fill="#2d6a4f"/>'
            '<path d="M18,150 L24,112 C22,98 32,88 40,94 L44,104 L36,110 L34,150 Z" fill="#8d5a2b" stroke="#333" stroke-width="1.2"/>'
        )
    else:  # rey: a crown
        head = '<path d="M48,50 L48,38 L54,45 L60,35 L66,45 L72,38 L72,50 Z" fill="#d4a017" stroke="#7a5a00" stroke-width="1"/>'
    return body + head + _pip(suit, 88 if rank != 11 else 92, 108, 26)


@lru_cache(maxsize=64)
def card_svg(name: str) -> str | None:
    """The SVG of a card named in the record notation (``"7o"``), or ``None``."""
    try:
        card = parse_card(name)
    except CardError:
        return None
    label = card_name(card)
    rank, suit = int(label[:-1]), label[-1]
    color = COLORS[suit]
    if rank in _LAYOUT:
        size = {1: 54, 2: 34, 3: 30}.get(rank, 26)
        art = "".join(_pip(suit, x, y, size) for x, y in _LAYOUT[rank])
    else:
        art = _figure(rank, suit)
    corner = (
        f'<text x="15" y="30" font-size="18" font-weight="700" fill="{color}" font-family="Georgia,serif">{rank}</text>'
        f'<text x="{W - 15}" y="{H - 16}" font-size="18" font-weight="700" fill="{color}" font-family="Georgia,serif" '
        f'text-anchor="end">{rank}</text>'
    )
    title = f"{rank} de {SUIT_NAMES[suit]}"
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        f'<rect x="1" y="1" width="{W - 2}" height="{H - 2}" rx="9" fill="#fffdf6" stroke="#9a8c74" stroke-width="2"/>'
        f"{_frame(suit)}{corner}{art}</svg>"
    )


@lru_cache(maxsize=1)
def card_back_svg() -> str:
    """The back of a card."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" role="img" '
        f'aria-label="carta boca abajo"><title>carta boca abajo</title>'
        '<defs><pattern id="p" width="12" height="12" patternUnits="userSpaceOnUse">'
        '<path d="M0,6 L6,0 L12,6 L6,12 Z" fill="#a83232"/></pattern></defs>'
        f'<rect x="1" y="1" width="{W - 2}" height="{H - 2}" rx="9" fill="#7a1f1f" stroke="#3d0f0f" stroke-width="2"/>'
        f'<rect x="10" y="10" width="{W - 20}" height="{H - 20}" rx="5" fill="url(#p)" stroke="#e8c46a" stroke-width="2"/>'
        "</svg>"
    )
