"""The board picture's sections top to bottom (the header, the Event row and the Galleon,
the two ships, Tortuga, the footer): each laid out from the public view and drawn by a
painter, as a :class:`Band` as wide as the picture holding exactly what it shows."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from engine.cards import EventTitle
from pbm.board_image.paint import (
    BRITISH,
    CARD_BACK,
    CARD_TEXT,
    DECK,
    DRAWING_LANGUAGE,
    FRENCH,
    GOLD,
    GREEN,
    HULL,
    INK,
    MARGIN,
    MIN_TEXT,
    MUTED,
    NAVY,
    SAND,
    SAND_EDGE,
    SEA_LINE,
    SHIP_NAMES,
    WHITE,
    WIDTH,
    WOOD,
    Color,
    Painter,
    drawable,
    game_word,
    line_height,
    rank_tag,
    team_name,
    text_width,
    translated_label,
    wrap,
)
from pbm.i18n.glossary import event_name

# ---------------------------------------------------------------- sections
#
# Each section is measured first (``_*_height``) so the picture is made at its final
# height, then drawn (``_draw_*``) from a top y, from nothing but its arguments (what a
# band of the picture shows is its key in :func:`drawn_band`'s memo).


def _title(title: str) -> str:
    try:
        label = EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()
    language = DRAWING_LANGUAGE.get()
    return label if language == "en" else event_name(title, language)


def _name(player: Mapping[str, Any]) -> str:
    return drawable(str(player["name"]))


class _Crew(NamedTuple):
    """What a crew line shows of a player (:func:`_draw_crew`)."""

    seat: int
    name: str
    ranks: tuple[str, ...]


def _crew(player: Mapping[str, Any]) -> _Crew:
    return _Crew(player["seat"], str(player["name"]), tuple(player.get("ranks") or ()))


class _Rower(NamedTuple):
    """What a rowboat's line shows of the player in it (:func:`_rowboat_lines`)."""

    seat: int
    name: str


class _Ship(NamedTuple):
    """What a ship's panel shows (:func:`_draw_ship`): its crew front to back, its holds
    and who is in its rowboat."""

    code: str
    crew: tuple[_Crew, ...]
    british: int
    french: int
    rower: _Rower | None


def _header_lines(public: Mapping[str, Any], players: Mapping[int, Mapping[str, Any]]
                  ) -> tuple[str, ...]:
    status = public["status"]
    if status == "over":
        winner = public.get("winner")
        text = translated_label("Game over: the {team} win", team=team_name(winner.capitalize())) \
            if winner else translated_label("Game over")
    elif status == "playing" and public["turn_seat"] in players:
        text = translated_label("{name} to play", name=_name(players[public['turn_seat']]))
    else:
        text = translated_label("Waiting to begin")
    if public.get("sudden_death"):
        text += translated_label(" · sudden death")
    return wrap(text, 22, False, WIDTH - 2 * MARGIN)


HEADER_TOP = 52


def _header_height(lines: Sequence[str]) -> int:
    return HEADER_TOP + len(lines) * line_height(22) + 10


def _draw_header(p: Painter, y: int, turn_number: int, french: int, british: int,
                 lines: tuple[str, ...]) -> None:
    frame = (0, y, WIDTH, y + _header_height(lines))
    p.draw.rectangle(frame, fill=NAVY)
    p.text(MARGIN, y + 12, translated_label("Tortuga 1667 · turn {n}", n=turn_number), 24,
           CARD_TEXT, frame, bold=True)
    x = WIDTH - MARGIN
    for label, color in ((f"{team_name('French')} {french}", FRENCH),
                         (f"{team_name('British')} {british}", BRITISH)):
        w = text_width(label, 21, True) + 20
        pill = (x - w, y + 8, x, y + 42)
        p.rounded(pill, radius=16, fill=color)
        p.text(x - w + 10, y + 13, label, 21, WHITE, pill, bold=True)
        x -= w + 8
    p.lines(MARGIN, y + HEADER_TOP, lines, 22, WHITE, frame)


CARD_W, CARD_H, CARD_GAP = 60, 80, 8
ROW_HEIGHT = 40 + CARD_H + 10 + line_height(21) + 8


def _draw_row(p: Painter, y: int, down: frozenset[int], deck_size: int, exhausted: bool,
              galleon: int) -> None:
    """The Event row: the cards face down (``down``, 1 to 5) and the deck; the Galleon."""
    frame = (0, y, WIDTH, y + ROW_HEIGHT)
    p.text(MARGIN, y + 10, translated_label("Event row"), 22, NAVY, frame, bold=True)
    cy = y + 40
    for i in range(5):
        cx = MARGIN + i * (CARD_W + CARD_GAP)
        card = (cx, cy, cx + CARD_W, cy + CARD_H)
        label = str(i + 1)
        lx = cx + (CARD_W - text_width(label, 28, True)) // 2
        if i + 1 in down:
            p.rounded(card, radius=6, fill=CARD_BACK, outline=INK)
            p.rounded((cx + 4, cy + 4, cx + CARD_W - 4, cy + CARD_H - 4),
                                     radius=4, outline=GOLD)
            p.text(lx, cy + 22, label, 28, CARD_TEXT, card, bold=True)
        else:
            p.rounded(card, radius=6, outline=SEA_LINE, width=2)
            p.text(lx, cy + 22, label, 28, SEA_LINE, card, bold=True)
    info = translated_label("Deck: {n}", n=deck_size)
    if exhausted:
        info += translated_label(", not refilled")
    p.text(MARGIN, cy + CARD_H + 10, info, 21, MUTED, frame)
    _draw_galleon(p, MARGIN + 5 * (CARD_W + CARD_GAP) + 10, y + 10, galleon)


def _draw_galleon(p: Painter, x: int, y: int, count: int) -> None:
    w = WIDTH - MARGIN - x
    frame = (x, y, x + w, y + ROW_HEIGHT - 10)
    for mx in (x + w // 4, x + w // 2, x + 3 * w // 4):
        p.draw.rectangle((mx - 2, y + 4, mx + 2, y + 40), fill=WOOD)
        p.draw.rectangle((mx - 16, y + 8, mx + 16, y + 32), fill=DECK, outline=MUTED)
    hull = (x, y + 40, x + w, y + 96)
    p.draw.polygon([(x, y + 40), (x + w, y + 40), (x + w - 20, y + 96), (x + 20, y + 96)],
                   fill=HULL, outline=INK)
    first, second = game_word("ships", "GALLEON", "Spanish Galleon").split(" ", 1)
    p.text(x + 24, y + 44, first, 21, WHITE, hull, bold=True)
    p.text(x + 24, y + 68, second, 21, WHITE, hull, bold=True)
    label = translated_label("{n} treasure", n=count)
    p.text(x, y + 104, label, 21, INK, frame)
    _chests(p, x + text_width(label, 21, False) + 8, y + 108, count, GOLD, x + w)


def _chests(p: Painter, x: int, y: int, count: int, color: Color, right: int) -> None:
    """Treasure chests in a row from x, as many as fit before ``right``."""
    for i in range(count):
        cx = x + i * 19
        if cx + 16 > right:
            return
        p.rounded((cx, y, cx + 16, y + 13), radius=2, fill=color, outline=INK)
        p.draw.line((cx, y + 5, cx + 16, y + 5), fill=INK)
        p.draw.rectangle((cx + 7, y + 4, cx + 9, y + 8), fill=GOLD if color != GOLD else INK)


CREW_SIZE = 22
CIRCLE = 32


def _crew_layout(player: _Crew, width: int) -> tuple[str, tuple[str, ...], bool]:
    """The rank tag, the name's lines and whether the tag goes below the name, for a crew
    line ``width`` px wide: the tag sits at the right of the first line and later lines
    have the whole width; when the name's first word does not fit beside the tag, the tag
    goes on a line of its own below."""
    tags = "/".join(rank_tag(r) for r in player.ranks)
    room = width - CIRCLE - 8
    name = " ".join(drawable(player.name).split())
    whole = wrap(name, CREW_SIZE, False, room)
    if not tags:
        return tags, whole, False
    beside = room - text_width(tags, MIN_TEXT, True) - 24
    first = wrap(name, CREW_SIZE, False, beside)
    if len(first) == 1:
        return tags, first, False
    if text_width(name.split(" ")[0], CREW_SIZE, False) > beside:
        return tags, whole, True
    head = wrap(whole[0], CREW_SIZE, False, beside)[0]  # the words that fit beside the tag
    return tags, (head, *wrap(name[len(head):].strip(), CREW_SIZE, False, room)), False


def _crew_height(player: _Crew, width: int) -> int:
    _, lines, below = _crew_layout(player, width)
    return max(CIRCLE, (len(lines) + below) * line_height(CREW_SIZE)) + 6


def _draw_crew(p: Painter, x: int, y: int, player: _Crew, width: int) -> int:
    tags, lines, below = _crew_layout(player, width)
    height = _crew_height(player, width)
    frame = (x, y, x + width, y + height)
    p.draw.ellipse((x, y, x + CIRCLE, y + CIRCLE), fill=NAVY)
    number = str(player.seat + 1)
    circle = (x, y, x + CIRCLE, y + CIRCLE)
    p.text(x + (CIRCLE - text_width(number, MIN_TEXT, True)) // 2, y + 4, number, MIN_TEXT, WHITE,
           circle, bold=True)
    p.lines(x + CIRCLE + 8, y + 2, lines, CREW_SIZE, INK, frame)
    if tags:
        tag_w = text_width(tags, MIN_TEXT, True) + 16
        ty = y + len(lines) * line_height(CREW_SIZE) if below else y
        pill = (x + width - tag_w, ty + 1, x + width, ty + CIRCLE - 1)
        p.rounded(pill, radius=14, fill=GOLD)
        p.text(pill[0] + 8, ty + 4, tags, MIN_TEXT, INK, pill, bold=True)
    return y + height


SHIP_W = (WIDTH - 2 * MARGIN - 12) // 2
HOLD_H = 40


def _rowboat_lines(occupant: _Rower | None) -> tuple[str, ...]:
    who = (translated_label("empty") if occupant is None
           else f"({occupant.seat + 1}) {drawable(occupant.name)}")
    return wrap(translated_label("Rowboat: {who}", who=who), MIN_TEXT, False, SHIP_W - 24)


def _ship_height(ship: _Ship) -> int:
    crew = sum(_crew_height(player, SHIP_W - 24) for player in ship.crew) or 40
    rowboat = len(_rowboat_lines(ship.rower)) * line_height(MIN_TEXT)
    return 48 + crew + 8 + HOLD_H + 12 + rowboat + 12


def _draw_ships(p: Painter, y: int, height: int, ships: tuple[_Ship, ...]) -> None:
    """The ships side by side, each panel ``height`` px tall (the band is 14 px more)."""
    for i, ship in enumerate(ships):
        _draw_ship(p, MARGIN + i * (SHIP_W + 12), y, height, ship)


def _draw_ship(p: Painter, x: int, y: int, height: int, ship: _Ship) -> None:
    panel = (x, y, x + SHIP_W, y + height)
    p.rounded(panel, radius=12, fill=DECK, outline=WOOD, width=4)
    code = ship.code
    p.rounded((x, y, x + SHIP_W, y + 42), radius=12, fill=WOOD)
    name = game_word("ships", code, SHIP_NAMES[code]) if code in SHIP_NAMES else code
    title = f"{name} ({code})"  # the code is what replies say: ROW FD
    p.text(x + 12, y + 8, title, 22 if text_width(title, 22, True) <= SHIP_W - 24 else MIN_TEXT,
           WHITE, (x, y, x + SHIP_W, y + 42), bold=True)
    cy = y + 48
    inner = SHIP_W - 24
    if not ship.crew:
        p.text(x + 12, cy + 4, translated_label("nobody aboard"), MIN_TEXT, MUTED, panel)
        cy += 40
    for player in ship.crew:
        cy = _draw_crew(p, x + 12, cy, player, inner)
    cy += 8
    half = (inner - 8) // 2
    for i, (label, count, color) in enumerate((("British", ship.british, BRITISH),
                                               ("French", ship.french, FRENCH))):
        hx = x + 12 + i * (half + 8)
        hold = (hx, cy, hx + half, cy + HOLD_H)
        p.rounded(hold, radius=6, fill=WHITE, outline=color, width=2)
        text = f"{team_name(label)} {count}"
        right = p.text(hx + 8, cy + 7, text, MIN_TEXT, color, hold, bold=True)
        _chests(p, hx + 14 + right, cy + 14, count, color, hx + half - 4)
    cy += HOLD_H + 12
    p.lines(x + 12, cy, _rowboat_lines(ship.rower), MIN_TEXT, NAVY if ship.rower else MUTED,
            panel)


TORTUGA_COL = (WIDTH - 2 * MARGIN - 24 - 16) // 2


def _tortuga_columns(ashore: tuple[_Crew, ...]
                     ) -> tuple[tuple[_Crew, ...], tuple[_Crew, ...]]:
    if len(ashore) <= 3:
        return ashore, ()
    half = (len(ashore) + 1) // 2
    return ashore[:half], ashore[half:]


def _tortuga_height(ashore: tuple[_Crew, ...]) -> int:
    columns = _tortuga_columns(ashore)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    crew = max(sum(_crew_height(player, width) for player in column) for column in columns)
    return 52 + max(crew, 40) + 10


def _draw_tortuga(p: Painter, y: int, height: int, ashore: tuple[_Crew, ...], french: int,
                  british: int) -> None:
    """Tortuga: who is ashore (front to back, in two columns past three) and its
    treasure."""
    panel = (MARGIN, y, WIDTH - MARGIN, y + height)
    p.rounded(panel, radius=24, fill=SAND, outline=SAND_EDGE, width=3)
    title = game_word("places", "TORTUGA", "Tortuga")
    p.text(MARGIN + 16, y + 12, title, 22, NAVY, panel, bold=True)
    x = WIDTH - MARGIN - 16
    for label, count, color in (("French", french, FRENCH), ("British", british, BRITISH)):
        text = f"{team_name(label)} {count}"
        x -= text_width(text, MIN_TEXT, True)
        p.text(x, y + 13, text, MIN_TEXT, color, panel, bold=True)
        x -= 18
    # a palm tree, between the title and the treasure
    px = max(MARGIN + 150, MARGIN + 16 + text_width(title, 22, True) + 24)
    p.draw.line((px, y + 40, px + 4, y + 12), fill=WOOD, width=4)
    for dx, dy in ((-14, -2), (14, -2), (-10, 8), (12, 8)):
        p.draw.line((px + 4, y + 12, px + 4 + dx, y + 12 + dy), fill=GREEN, width=4)
    columns = _tortuga_columns(ashore)
    width = TORTUGA_COL if columns[1] else WIDTH - 2 * MARGIN - 24
    if not ashore:
        p.text(MARGIN + 16, y + 56, translated_label("nobody ashore"), MIN_TEXT, MUTED, panel)
    for i, column in enumerate(columns):
        cy = y + 52
        for player in column:
            cy = _draw_crew(p, MARGIN + 12 + i * (width + 16), cy, player, width)


Block = tuple[tuple[str, ...], Color, bool]  # a paragraph of the footer: lines, colour, bold


def _footer_blocks(public: Mapping[str, Any]) -> tuple[Block, ...]:
    """The footer's paragraphs: (lines, colour, bold)."""
    width = WIDTH - 2 * MARGIN
    hang = width - 24
    blocks: list[Block] = [
        ((translated_label("In front of players"),), NAVY, True)]
    kept = [p for p in public["players"] if p.get("kept")]
    for player in kept:
        text = f"({player['seat'] + 1}) {_name(player)}: " + ", ".join(
            _title(t) for t in player["kept"])
        first, *rest = wrap(text, MIN_TEXT, False, width)
        more = wrap(" ".join(rest), MIN_TEXT, False, hang) if rest else ()
        blocks.append(((first, *("  " + line for line in more)), INK, False))
    if not kept:
        blocks.append(((translated_label("nothing"),), MUTED, False))
    discard = public["discard"]
    last = ", ".join(_title(t) for t in discard[-4:]) if discard else translated_label("empty")
    more_cards = translated_label(" (+{n} more)", n=len(discard) - 4) if len(discard) > 4 else ""
    pile = translated_label("Discard pile: {cards}{more}", cards=last, more=more_cards)
    blocks.append((wrap(pile, MIN_TEXT, False, width), MUTED, False))
    blocks.append((wrap(translated_label("Crews run from the front (top) to the back."), MIN_TEXT,
                        False, width), MUTED, False))
    return tuple(blocks)


def _footer_height(blocks: Iterable[Block]) -> int:
    return 10 + sum(len(lines) * line_height(MIN_TEXT) + 6 for lines, _, _ in blocks) + 8


def _draw_footer(p: Painter, y: int, blocks: tuple[Block, ...]) -> None:
    frame = (0, y, WIDTH, y + _footer_height(blocks))
    y += 10
    for lines, color, bold in blocks:
        size = 22 if bold else MIN_TEXT
        for line in lines:
            x = MARGIN + (24 if line.startswith("  ") else 0)
            p.text(x, y, line.strip(), size, color, frame, bold)
            y += line_height(MIN_TEXT)
        y += 6


# ---------------------------------------------------------------- the picture


class Band(NamedTuple):
    """A band of the picture, as wide as it (the header, the Event row, the ships, Tortuga,
    the footer): its height and how it is drawn, ``draw(painter, top, *shows)``, from
    ``shows`` alone (and the picture's language)."""

    height: int
    draw: Callable[..., None]
    shows: tuple[Any, ...]


def picture_bands(public_view: Mapping[str, Any]) -> tuple[Band, ...]:
    """The picture's bands top to bottom, each with exactly what it shows."""
    players = {p["seat"]: p for p in public_view["players"]}
    ships = {s["ship"]: s for s in public_view["ships"]}
    rowboats = public_view["rowboats"]
    rowers = {code: None if rowboats.get(code) is None
              else _Rower(players[rowboats[code]]["seat"], str(players[rowboats[code]]["name"]))
              for code in ("FD", "JR")}
    header = _header_lines(public_view, players)
    score = public_view["score"]
    shown = tuple(_Ship(code, tuple(_crew(players[s]) for s in ships[code]["line"]),
                        ships[code]["british"], ships[code]["french"], rowers[code])
                  for code in ("FD", "JR"))
    ship_h = max(_ship_height(ship) for ship in shown)
    ashore = tuple(_crew(players[s]) for s in public_view["tortuga"])
    tortuga_h = _tortuga_height(ashore)
    footer = _footer_blocks(public_view)
    return (
        Band(_header_height(header), _draw_header,
              (public_view["turn_number"], score["french"], score["british"], header)),
        Band(ROW_HEIGHT, _draw_row, (frozenset(public_view["row"]), public_view["deck_size"],
                                      bool(public_view.get("exhausted")),
                                      public_view["galleon"])),
        Band(ship_h + 14, _draw_ships, (ship_h, shown)),
        Band(tortuga_h, _draw_tortuga, (tortuga_h, ashore, public_view["tortuga_french"],
                                         public_view["tortuga_british"])),
        Band(_footer_height(footer), _draw_footer, (footer,)),
    )
