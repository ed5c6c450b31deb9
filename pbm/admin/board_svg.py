"""The public board as an inline SVG picture for the admin page.

Drawn from ``engine.public_view(state).to_dict()`` only, so it can never show a secret.
Email gets a PNG from ``pbm.render``; browsers show SVG, which scales to any screen.
"""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT = 760, 450
SEAT_COLOURS = (
    "#d9480f", "#1971c2", "#2f9e44", "#ae3ec9", "#f08c00",
    "#0c8599", "#c2255c", "#5c940d", "#495057",
)
RANK_SHORT = {"CAPTAIN": "Captain", "FIRST_MATE": "Mate", "CABIN_BOY": "Boy",
              "GOVERNOR": "Governor"}
INK, SEA_INK = "#1b1b1b", "#123a5c"


def seat_colour(seat: int) -> str:
    """The colour of a seat's pawn (also used for the seat's dot on the page)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def _text(x: float, y: float, text: str, *, size: float = 13, anchor: str = "middle",
          weight: str = "normal", fill: str = INK) -> str:
    return (
        f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size:g}" text-anchor="{anchor}" '
        f'font-weight="{weight}" fill="{fill}">{escape(text)}</text>'
    )


def short_name(name: str, limit: int = 8) -> str:
    """A label that fits under a pawn: the first word, cut with an ellipsis if need be."""
    label = name if len(name) <= limit else name.split()[0]
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _pawn(x: float, y: float, seat: int, name: str, ranks: list[str], awaited: bool,
          label_fill: str = INK) -> str:
    ring = (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="19" fill="#fff3bf" stroke="#e03131" '
        'stroke-width="2.5" stroke-dasharray="4 3"/>'
        if awaited else ""
    )
    rank = "+".join(RANK_SHORT.get(r, r.title()) for r in ranks)
    return (
        f'<g class="pawn"><title>{escape(f"Seat {seat + 1}: {name}")}</title>{ring}'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="14" fill="{seat_colour(seat)}" stroke="#fff" '
        'stroke-width="2"/>'
        + _text(x, y + 5, str(seat + 1), size=13, weight="bold", fill="#fff")
        + _text(x, y + 32, short_name(name), size=11, weight="bold", fill=label_fill)
        + (_text(x, y + 44, rank, size=9.5, fill="#7a4a00") if rank else "")
        + "</g>"
    )


def _pawn_inline(x: float, y: float, seat: int, name: str, awaited: bool) -> str:
    """A pawn with its name beside it (in a rowboat, where there is no room below)."""
    ring = (
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="18" fill="#fff3bf" stroke="#e03131" '
        'stroke-width="2.5" stroke-dasharray="4 3"/>'
        if awaited else ""
    )
    return (
        f'<g class="pawn"><title>{escape(f"Seat {seat + 1}: {name} (rowboat)")}</title>{ring}'
        f'<circle cx="{x:.0f}" cy="{y:.0f}" r="13" fill="{seat_colour(seat)}" stroke="#fff" '
        'stroke-width="2"/>'
        + _text(x, y + 5, str(seat + 1), size=12, weight="bold", fill="#fff")
        + _text(x + 20, y + 9, short_name(name), size=11, anchor="start", weight="bold",
                fill="#fff6e0")
        + "</g>"
    )


def _treasure(x: float, y: float, label: str, count: int, fill: str) -> str:
    return (
        f'<g><title>{escape(f"{label} treasure: {count}")}</title>'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="74" height="22" rx="11" fill="{fill}"/>'
        + _text(x + 37, y + 15, f"{label} {count}", size=11.5, weight="bold", fill="#fff")
        + "</g>"
    )


def _line(seats: list[int], x0: float, x1: float, y: float, players: dict[int, Any],
          awaited: set[int], label_fill: str = INK) -> str:
    if not seats:
        return _text((x0 + x1) / 2, y + 4, "(nobody)", size=11, fill="#6b7785")
    step = min(64.0, (x1 - x0) / max(len(seats), 1))
    start = (x0 + x1) / 2 - step * (len(seats) - 1) / 2
    return "".join(
        _pawn(start + i * step, y, seat, players[seat]["name"], players[seat]["ranks"],
              seat in awaited, label_fill)
        for i, seat in enumerate(seats)
    )


def _ship(view: dict[str, Any], ship: dict[str, Any], x: float, title: str,
          players: dict[int, Any], awaited: set[int]) -> str:
    """One ship: its crew line above the deck (front on the left), holds on the hull, and
    its rowboat under it."""
    out = [
        _text(x + 165, 82, f"{title}  ·  front → back", size=11, fill=SEA_INK, weight="bold"),
        _line(ship["line"], x + 10, x + 320, 110, players, awaited),
        f'<path d="M{x} 168 h330 l-30 62 h-270 z" fill="#8d5a2b" stroke="#5c3a1a" '
        'stroke-width="2"/>',
        f'<rect x="{x + 14}" y="162" width="302" height="8" rx="2" fill="#a9713d"/>',
        _treasure(x + 52, 186, "British", ship["british"], "#c92a2a"),
        _treasure(x + 204, 186, "French", ship["french"], "#1864ab"),
    ]
    rowboats = view["rowboats"]
    rowboat = rowboats.get(ship["ship"], rowboats.get(f"{ship['ship']}_ROWBOAT"))
    out.append(
        f'<path d="M{x + 90} 250 h150 l-18 24 h-114 z" fill="#b08050" stroke="#5c3a1a"/>'
    )
    if rowboat is None:
        out.append(_text(x + 165, 267, "rowboat", size=10, fill="#fff6e0"))
    else:
        p = players[rowboat]
        out.append(_pawn_inline(x + 122, 256, rowboat, p["name"], rowboat in awaited))
    return "".join(out)


def board_svg(view: dict[str, Any]) -> str:
    """An SVG picture of one public view (a string of markup, safe to inline)."""
    players = {p["seat"]: p for p in view["players"]}
    awaited = {seat for seat, _kind in view.get("awaiting", [])}
    ships = {s["ship"]: s for s in view["ships"]}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        'role="img" aria-label="The board" class="board" '
        'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="12" fill="#a5d8ff"/>',
        '<path d="M0 200 Q190 186 380 200 T760 200 V450 H0 Z" fill="#74c0fc" opacity=".55"/>',
    ]
    # Top band: score, Event row, turn.
    score = view["score"]
    out.append(_text(16, 26, f"British {score['british']}", size=14, anchor="start",
                     weight="bold", fill="#a61e1e"))
    out.append(_text(16, 44, f"French {score['french']}", size=14, anchor="start",
                     weight="bold", fill="#1864ab"))
    out.append(_text(380, 16, "Event row", size=10, fill=SEA_INK, weight="bold"))
    for pos in range(1, 6):
        cx = 380 + (pos - 3) * 28
        present = pos in view["row"]
        out.append(
            f'<rect x="{cx - 10}" y="22" width="20" height="28" rx="3" '
            + ('fill="#f8f0e3" stroke="#5c3a1a"/>' if present else
               'fill="none" stroke="#5c7f99" stroke-dasharray="3 2"/>')
            + (_text(cx, 41, str(pos), size=11, weight="bold") if present else "")
        )
    status = view["status"]
    turn = players.get(view["turn_seat"])
    if status == "over":
        right = f"Game over: {(view['winner'] or 'nobody').title()} win"
    elif status == "setup":
        right = "Setting up: Captains place treasure"
    else:
        who = turn["name"] if turn else "?"
        right = f"Turn {view['turn_number']}: {who}"
        if view.get("actions_per_turn", 1) > 1:
            right += f" (action {view['action']} of {view['actions_per_turn']})"
    out.append(_text(744, 26, right, size=13, anchor="end", weight="bold", fill=SEA_INK))
    extra = f"Deck {view['deck_size']} · Vote deck {view['vote_deck_size']}"
    if view.get("vote"):
        extra = f"{view['vote']['kind'].title()} vote · " + extra
    if view.get("sudden_death"):
        extra = "Sudden death · " + extra
    out.append(_text(744, 44, extra, size=11, anchor="end", fill=SEA_INK))
    # Ships, with the Galleon between them.
    out.append(_ship(view, ships["FD"], 14, "Flying Dutchman", players, awaited))
    out.append(_ship(view, ships["JR"], 416, "Jolly Roger", players, awaited))
    out.append(
        '<g><title>Galleon treasure</title><path d="M352 178 h56 l-8 30 h-40 z" '
        'fill="#e8b64c" stroke="#8a6d1c" stroke-width="2"/>'
        '<path d="M380 140 v38 M380 146 l16 10 l-16 8" fill="#fff" stroke="#8a6d1c"/>'
        + _text(380, 224, f"Galleon {view['galleon']}", size=11, weight="bold", fill=SEA_INK)
        + "</g>"
    )
    # Tortuga along the bottom.
    out.append(
        '<path d="M24 446 Q40 318 180 306 H580 Q720 318 736 446 Z" fill="#e9d8a6" '
        'stroke="#b08968" stroke-width="2"/>'
    )
    out.append(_text(380, 328, "Tortuga  ·  front → back", size=12, weight="bold",
                     fill="#6b4f2a"))
    out.append(_treasure(50, 408, "British", view["tortuga_british"], "#c92a2a"))
    out.append(_treasure(636, 408, "French", view["tortuga_french"], "#1864ab"))
    out.append(_line(view["tortuga"], 140, 620, 356, players, awaited))
    out.append("</svg>")
    return "".join(out)
