"""The public board as an inline SVG picture for the admin page.

Drawn from ``engine.public_view(state).to_dict()`` only, so it can never show a secret.
Email gets a PNG from ``pbm.render``; browsers show SVG, which scales to any screen.
"""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT = 760, 400
SEAT_COLOURS = (
    "#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#f08c00",
    "#0c8599", "#c2255c", "#5c940d", "#495057",
)
RANK_SHORT = {"CAPTAIN": "Capt", "FIRST_MATE": "1st", "CABIN_BOY": "Boy", "GOVERNOR": "Gov"}


def _text(x: float, y: float, text: str, *, size: int = 13, anchor: str = "middle",
          weight: str = "normal", fill: str = "#1b1b1b") -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(text)}</text>'
    )


def _pawn(x: float, y: float, seat: int, name: str, ranks: list[str], awaited: bool) -> str:
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    ring = (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="19" fill="none" stroke="#e03131" '
        'stroke-width="3" stroke-dasharray="4 3"/>'
        if awaited else ""
    )
    label = name if len(name) <= 9 else name[:8] + "…"
    rank = " ".join(RANK_SHORT.get(r, r.title()) for r in ranks)
    return (
        f'<g class="pawn"><title>{escape(f"Seat {seat + 1}: {name}")}</title>{ring}'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="14" fill="{colour}" stroke="#fff" '
        'stroke-width="2"/>'
        + _text(x, y + 5, str(seat + 1), size=13, weight="bold", fill="#fff")
        + _text(x, y + 30, label, size=11)
        + (_text(x, y + 43, rank, size=10, fill="#7a5b1e", weight="bold") if rank else "")
        + "</g>"
    )


def _treasure(x: float, y: float, label: str, count: int, fill: str) -> str:
    return (
        f'<rect x="{x:.0f}" y="{y:.0f}" width="62" height="24" rx="5" fill="{fill}"/>'
        + _text(x + 31, y + 16, f"{label} {count}", size=12, weight="bold", fill="#fff")
    )


def _line(seats: list[int], x0: float, x1: float, y: float, players: dict[int, Any],
          awaited: set[int]) -> str:
    if not seats:
        return _text((x0 + x1) / 2, y + 4, "(empty)", size=11, fill="#868e96")
    step = min(62.0, (x1 - x0) / max(len(seats), 1))
    start = (x0 + x1) / 2 - step * (len(seats) - 1) / 2
    parts = []
    for i, seat in enumerate(seats):
        p = players[seat]
        parts.append(_pawn(start + i * step, y, seat, p["name"], p["ranks"], seat in awaited))
    return "".join(parts)


def _ship(view: dict[str, Any], ship: dict[str, Any], x: float, title: str,
          players: dict[int, Any], awaited: set[int]) -> str:
    y = 92
    hull = (
        f'<path d="M{x} {y} h300 l-26 92 h-248 z" fill="#8d5a2b" stroke="#5c3a1a" '
        'stroke-width="2"/>'
    )
    out = [hull, _text(x + 150, y + 22, title, size=14, weight="bold", fill="#fff6e0")]
    out.append(_text(x + 150, y + 36, "front ← line → back", size=10, fill="#f1dcb8"))
    out.append(_treasure(x + 40, y + 150 - 88, "Brit", ship["british"], "#c92a2a"))
    out.append(_treasure(x + 198, y + 150 - 88, "Fr", ship["french"], "#1864ab"))
    out.append(_line(ship["line"], x + 10, x + 290, y - 26, players, awaited))
    rowboat = view["rowboats"].get(f"{ship['ship']}_ROWBOAT")
    out.append(
        f'<ellipse cx="{x + 150}" cy="{y + 116}" rx="60" ry="12" fill="#b08050" '
        'stroke="#5c3a1a"/>'
    )
    if rowboat is None:
        out.append(_text(x + 150, y + 120, "rowboat", size=10, fill="#fff6e0"))
    else:
        p = players[rowboat]
        out.append(_pawn(x + 150, y + 112, rowboat, p["name"], p["ranks"], rowboat in awaited))
    return "".join(out)


def board_svg(view: dict[str, Any]) -> str:
    """An SVG picture of one public view (a string of markup, safe to inline)."""
    players = {p["seat"]: p for p in view["players"]}
    awaited = {seat for seat, _kind in view.get("awaiting", [])}
    ships = {s["ship"]: s for s in view["ships"]}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'role="img" aria-label="Board" class="board" '
        'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="12" fill="#a5d8ff"/>',
        '<path d="M0 250 Q190 236 380 250 T760 250 V400 H0 Z" fill="#74c0fc" opacity=".6"/>',
    ]
    # Event row, top middle.
    out.append(_text(380, 20, "Event row", size=11, fill="#1c3d5a", weight="bold"))
    for pos in range(1, 6):
        cx = 380 + (pos - 3) * 30
        if pos in view["row"]:
            out.append(
                f'<rect x="{cx - 11}" y="26" width="22" height="30" rx="3" fill="#f8f0e3" '
                'stroke="#5c3a1a"/>' + _text(cx, 46, str(pos), size=11, weight="bold")
            )
        else:
            out.append(
                f'<rect x="{cx - 11}" y="26" width="22" height="30" rx="3" fill="none" '
                'stroke="#5c7f99" stroke-dasharray="3 2"/>'
            )
    # Ships and the Galleon between them.
    out.append(_ship(view, ships["FD"], 20, "Flying Dutchman", players, awaited))
    out.append(_ship(view, ships["JR"], 440, "Jolly Roger", players, awaited))
    out.append(
        '<path d="M344 120 h72 l-10 40 h-52 z" fill="#e8b64c" stroke="#8a6d1c" '
        'stroke-width="2"/>' + _text(380, 143, f"Galleon {view['galleon']}", size=11,
                                     weight="bold")
    )
    # Tortuga island along the bottom.
    out.append(
        '<path d="M40 390 Q60 300 200 292 H560 Q700 300 720 390 Z" fill="#e9d8a6" '
        'stroke="#b08968" stroke-width="2"/>'
    )
    out.append(_text(380, 312, "Tortuga", size=14, weight="bold", fill="#6b4f2a"))
    out.append(_treasure(70, 350, "Brit", view["tortuga_british"], "#c92a2a"))
    out.append(_treasure(628, 350, "Fr", view["tortuga_french"], "#1864ab"))
    out.append(_line(view["tortuga"], 150, 610, 336, players, awaited))
    # Score and status, top left and right.
    score = view["score"]
    out.append(_text(16, 24, f"British {score['british']}  ·  French {score['french']}",
                     size=13, anchor="start", weight="bold", fill="#1c3d5a"))
    turn = players.get(view["turn_seat"])
    status = view["status"]
    if status == "over":
        right = f"Over: {view['winner'] or 'no'} win"
    else:
        right = f"Turn {view['turn_number']}: {turn['name'] if turn else '?'}"
    out.append(_text(744, 24, right, size=13, anchor="end", weight="bold", fill="#1c3d5a"))
    extra = f"Deck {view['deck_size']}  ·  Vote deck {view['vote_deck_size']}"
    if view.get("vote"):
        extra = f"{view['vote']['kind'].title()} vote  ·  " + extra
    if view.get("sudden_death"):
        extra = "Sudden death  ·  " + extra
    out.append(_text(744, 42, extra, size=11, anchor="end", fill="#1c3d5a"))
    out.append("</svg>")
    return "".join(out)
