"""The unmasking: the whole story of a finished game, told only once it is over.

``story(session, game_id)`` replays the command log through the engine and collects what
the table never saw during play: for every vote, who called it and who played which card;
the turn each treasure moved; the treasure per team after every turn. ``chart_png`` draws
that last series (Pillow). Only ``pbm.games`` calls it, when the game ends: nothing of it
is ever put in a message before GAME_OVER (the privacy scan checks that).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlmodel import Session

import engine
from engine.cards import VOTE_DECK
from pbm.board_image import load_font
from pbm.config import get_settings

# games' read-only lookups, below pbm.games.lifecycle (which calls this module at the end)
from pbm.games.audit import command_log
from pbm.games.base import get_game, options_of, seats_of

TEAM_COLOURS = {"british": (179, 32, 46), "french": (31, 79, 160)}


def story(session: Session, game_id: int) -> dict[str, Any]:
    """``{"votes": [...], "moves": [...], "treasure": [{turn, british, french}]}``.

    The English sentences (``plays``, ``outcome``, ``text``) come with the data they were
    written from (``key``, ``cast``: ``[{seat, cards}]``, ``result``, ``event``), from which
    ``pbm.render.mail_words.story`` tells a reader of another language."""
    game = get_game(session, game_id)
    names = [p.display_name for _, p in seats_of(session, game_id)]
    state = engine.new_game(names, game.seed, options_of(game))

    def replay() -> Iterator[tuple[int, list[engine.Event], engine.GameState]]:
        nonlocal state
        for row in command_log(session, game_id):
            turn = state.turn_number
            state, events = engine.apply(state, row.seat, engine.parse_command(row.command))
            yield turn, list(events), state

    return tell(names, replay())


def tell(names: Sequence[str],
         steps: Iterable[tuple[int, Sequence[engine.Event], engine.GameState]]
         ) -> dict[str, Any]:
    """The story from a game's steps in order: (turn before the step, its events, the
    state after it)."""
    votes: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    treasure: dict[int, dict[str, int]] = {}
    for turn, events, state in steps:
        for event in events:
            data = dict(event.data)
            if event.kind == "vote.called":
                votes.append({"turn": turn, "vote": str(data["vote"]).capitalize(),
                              "caller": names[data["caller"]], "plays": [], "outcome": "",
                              "key": str(data["vote"]), "caller_seat": data["caller"],
                              "cast": [], "result": None})
            elif event.kind in ("vote.cast", "vote.changed") and "cards" in data and votes:
                cards = " and ".join(VOTE_DECK[c].describe() for c in data["cards"])
                played = f"{names[data['seat']]} played "
                plays = [p for p in votes[-1]["plays"] if not p.startswith(played)]
                votes[-1]["plays"] = [*plays, played + cards]  # a changed vote: the last
                votes[-1]["cast"] = [*(c for c in votes[-1]["cast"] if c["seat"] != data["seat"]),
                                     {"seat": data["seat"], "cards": list(data["cards"])}]
            elif event.kind == "vote.result" and votes:
                votes[-1]["outcome"] = event.text
                votes[-1]["result"] = {"kind": event.kind, "data": data}
            elif event.kind in ("treasure.moved", "treasure.tortuga", "treasure.stormy"):
                moves.append({"turn": turn, "text": event.text,
                              "event": {"kind": event.kind, "data": data, "audience": None}})
        score = engine.score(state)
        treasure[state.turn_number] = {"british": score.british, "french": score.french}
    return {"votes": votes, "moves": moves,
            "treasure": [{"turn": t, **v} for t, v in sorted(treasure.items())]}


def chart_cid(game_id: int) -> str:
    """The Content-ID of a game's treasure chart: the HTML's ``cid:`` and the image part's
    ``Content-ID`` are both this (``RenderedMessage.inline_images``)."""
    return f"treasure-{game_id}@{get_settings().mail_domain}"


#: The chart's label size in image pixels. The email shows the 640 px picture in about
#: 330 CSS px on a 390 px phone, so 24 px labels read at about 12 CSS px (issue 23: >= 11).
CHART_LABEL_PX = 24
CHART_WIDTH = 640


def chart_png(series: list[dict[str, int]], width: int = CHART_WIDTH, height: int = 380) -> bytes:
    """Treasure per team over the turns, as a PNG line chart with a turn axis; labels
    large enough to read on a phone (``CHART_LABEL_PX``)."""
    from PIL import Image, ImageDraw  # here: Pillow only when a chart is drawn

    font = load_font(CHART_LABEL_PX)
    bold = load_font(CHART_LABEL_PX, bold=True)
    image = Image.new("RGB", (width, height), (255, 253, 248))
    draw = ImageDraw.Draw(image)
    left, right, top, bottom = 52, width - 20, 52, height - 70
    turns = [p["turn"] for p in series] or [0]
    most = max([p[t] for p in series for t in TEAM_COLOURS] + [1])
    span = max(turns[-1] - turns[0], 1)

    def xy(turn: int, value: int) -> tuple[float, float]:
        return (left + (right - left) * (turn - turns[0]) / span,
                bottom - (bottom - top) * value / most)

    draw.text((left, 8), "Treasure", font=bold, fill=(29, 43, 58))
    draw.line([(left, top), (left, bottom), (right, bottom)], fill=(138, 109, 59), width=2)
    step = max(1, (most + 3) // 4)
    for value in range(0, most + 1, step):
        y = xy(turns[0], value)[1]
        draw.text((left - 10, y), str(value), font=font, fill=(90, 80, 66), anchor="rm")
        draw.line([(left, y), (right, y)], fill=(235, 225, 205))
    tick = max(1, -(-span // 6))  # at most about 7 turn labels
    for turn in range(turns[0], turns[-1] + 1, tick):
        x = xy(turn, 0)[0]
        draw.line([(x, bottom), (x, bottom + 6)], fill=(138, 109, 59), width=2)
        draw.text((x, bottom + 10), str(turn), font=font, fill=(90, 80, 66), anchor="mt")
    draw.text(((left + right) // 2, height - 4), "turn", font=font, fill=(90, 80, 66),
              anchor="mb")
    for team, colour in TEAM_COLOURS.items():
        points = [xy(p["turn"], p[team]) for p in series]
        if len(points) > 1:
            draw.line(points, fill=colour, width=4)
        for x, y in points[-1:]:
            draw.ellipse([x - 6, y - 6, x + 6, y + 6], fill=colour)
    for i, (team, colour) in enumerate(TEAM_COLOURS.items()):
        x = right - 250 + i * 130
        draw.rectangle([x, 16, x + 16, 32], fill=colour)
        draw.text((x + 22, 24), team.capitalize(), font=bold, fill=colour, anchor="lm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
