"""Turn a ``MessageContext`` into what a player receives: email text, email HTML, SMS.

Templates (Jinja2, ``templates/``) only see a per-seat model built here from the
recipient's own ``SeatView`` dict and the events that seat may see; never the game state.
HTML is autoescaped and has its CSS inlined; undefined template variables are errors.

Every message of one game carries the same subject (``subject_for``) so mail clients keep
each game in one thread; the service adds Message-ID / In-Reply-To. Email prompts show the
board picture ``cid:<board_content_id>``: :func:`board_png` draws it from the *public* view
only, so the service renders it once per game version and reuses it;
``RenderedMessage.board_image_key`` is set exactly when the HTML shows the picture.

``ctx.extra`` keys, by ``MessageKind`` (all optional; "a | b" = either name works):

- every kind: ``reply_to`` (str) the reply address, shown in the footer; ``players``
  (list of ``{"seat", "number", "name"}`` or of names); ``table_talk`` (list of
  ``{"name", "text"}``) SAY messages folded into this message (SMS-only players).
- ``INVITATION`` (``seat_view`` None): ``inviter`` (str), ``message`` (a note from the
  organiser), ``respond_by_hours`` (float), ``timing`` (``{"action_hours", "vote_hours",
  "other_hours"}``: how long players get per decision); ``ctx.deadline`` = answer by.
- ``GAME_STARTED`` / ``PROMPT`` / ``STATUS``: nothing more (``events`` = the recap,
  ``deadline`` = when the decision is due); ``started`` (bool) marks the first prompt of
  the game (it then also lists the seats); ``vote_ledger`` (``pbm.vote_ledger``: the
  seat's own last votes, shown by email only).
- ``NOTICE``: ``headline`` (str) what happened to this seat, else the latest event.
- ``VOTE_RESULT``: ``result`` (the ``vote.result`` event dict), else found in ``events``.
- ``REMINDER`` / ``FINAL_WARNING``: ``invitation`` (bool: a reminder to JOIN or DECLINE),
  ``policy`` = ``"default"`` (a safe default is played at the deadline, the default) or
  ``"pause"`` (the game pauses and the admin is told); ``if_silent`` / ``if_silent_sms``
  what is played for this decision if no answer comes (``engine.describe_default``).
- ``TIMED_OUT``: ``played`` (canonical command played; None when it is a secret, e.g. a
  vote card), ``you`` (bool: it was this seat's decision, default True), ``who`` (name of
  the seat that timed out); ``paused`` (bool) when the policy paused the game instead;
  ``why`` (str) why that default favours no team.
- ``PAUSED``: ``reason``; ``RESUMED``: ``reason``, ``paused_hours``.
- ``SEAT_REPLACED``: ``old_name | previous_player``, ``new_name``, ``briefing`` (bool: this
  is the newcomer's briefing pack: secrets, board, recent history in ``events``),
  ``you_were_replaced`` (bool: to the player who leaves).
- ``TABLE_TALK``: ``from_name | from`` (speaker, required), ``text`` (required).
- ``REPLY``: ``reply`` (``ReplyResult.to_dict()``), ``done`` (list of str applied, in
  display form), ``rejected`` (list of ``{"command", "reason"}``: well formed but refused);
  without those two, ``result`` (``pbm.games.Result.to_dict()``) supplies them;
  ``help`` (topic str, "" for general help; None for no help) and ``log`` (bool: list
  ``events`` as the recent public history).
- ``GAME_OVER``: ``aborted`` (bool), ``reason`` (str); the public view carries the winner
  and every loyalty; ``unmasking`` (``pbm.unmasking.story``), ``unmasking_chart`` (the
  chart's Content-ID) and ``inline_images`` ([(Content-ID, PNG)]: pictures the HTML shows
  as ``cid:``, returned in ``RenderedMessage.inline_images``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import css_inline
from anyascii import anyascii
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from engine.cards import EventTitle
from pbm.messages import (
    Channel,
    MessageContext,
    MessageKind,
    RenderedMessage,
    board_content_id,
    board_image_key,
)
from pbm.replies.extract import REPLY_MARKER
from pbm.replies.menu import MenuOption, build_menu, display_command

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)

SHIP_NAMES = {"FD": "Flying Dutchman", "JR": "Jolly Roger"}
RANK_NAMES = {"CAPTAIN": "Captain", "FIRST_MATE": "First Mate", "CABIN_BOY": "Cabin Boy",
              "GOVERNOR": "Governor"}
TEAM_NAMES = {"BRITISH": "British", "FRENCH": "French", "DUTCH": "Dutch"}
SYMBOL_NAMES = {"CANNON": "Cannon", "TORCH": "Torch", "WATER": "Water", "BRITISH": "British",
                "FRENCH": "French", "SKULL": "Skull", "HELM": "Helm"}
VOTE_SECTION = {"ATTACK": "top", "BRAWL": "middle", "MUTINY": "bottom"}
VOTE_RULE = {
    "ATTACK": "Attack counts the top symbols: it succeeds with at least 1 Cannon and more "
              "Torches than Waters; then the Captain takes 1 treasure.",
    "BRAWL": "Brawl counts the flags: the side with more flags gets both Tortuga treasures "
             "(a tie splits them 1 and 1).",
    "MUTINY": "Mutiny counts the bottom symbols: more Skulls than Helms maroons the Captain.",
}
#: HELP topics -> templates/help/<file>.txt
HELP_FILES = {
    "": "general", "VOTE": "vote", "ATTACK": "vote", "MUTINY": "vote", "BRAWL": "vote",
    "TURN": "turn", "VIEW": "turn", "REVEAL": "turn", "FORCE": "turn", "ROW": "turn",
    "BOARD": "turn", "LAND": "turn", "MAROON": "turn", "SHIFT": "turn", "ACTIONS": "turn",
    "RANKS": "turn", "VOTES": "vote",
    "CARDS": "cards", "MARQUE": "cards", "SAVE": "cards", "SHOOT": "cards", "GIVE": "cards",
    "MAP": "cards", "TAKE": "cards", "PLACE": "cards", "FOUNTAIN": "cards", "ACCEPT": "cards",
    "ATLANTIS": "cards", "CHOOSE": "cards", "EVENTS": "cards",
    "SAY": "talk", "STATUS": "talk", "LOG": "talk", "STOP": "talk", "START": "talk",
    "JOIN": "talk", "DECLINE": "talk", "TALK": "talk", "HELP": "general",
    "SETTINGS": "settings", "ZONE": "settings", "QUIET": "settings", "AWAY": "settings",
    "BACK": "settings", "VIA": "settings", "DIGEST": "settings", "CALENDAR": "settings",
}

#: Events left out of recaps (noise there; LOG still lists them).
RECAP_SKIP = frozenset({"event.refilled", "vote.cast", "turn.started"})
RECAP_LIMIT = 25


def title_label(title: str) -> str:
    """``"LETTER_OF_MARQUE"`` -> ``"Letter of Marque"``."""
    try:
        return EventTitle(title).label
    except ValueError:
        return title.replace("_", " ").title()


def subject_for(game_name: str) -> str:
    """The subject of every message of one game (constant, so a game is one thread)."""
    return f"[Tortuga: {game_name}] Tortuga 1667 by mail"


def board_key_of(ctx: MessageContext) -> str | None:
    """The key of the board picture of this message's game version (None without a view)."""
    if ctx.seat_view is None:
        return None
    return board_image_key(ctx.game_id, int(ctx.seat_view["public"]["version"]))


def board_png(public_view: dict[str, Any]) -> bytes:
    """The public board as a PNG (see :mod:`pbm.board_image`)."""
    from pbm.board_image import draw_board

    return draw_board(public_view)


# ------------------------------------------------------------------ GSM-7 and SMS

_GSM7_BASIC = (
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
    "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
)
_GSM7_EXTENDED = "^{}\\[~]|€\f"
_GSM7_SET = frozenset(_GSM7_BASIC) | frozenset(_GSM7_EXTENDED)
_GSM7_REPLACE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2026": "...", "\u00a0": " ",
    "\u2022": "*", "\u00b7": "*", "\u2192": "->", "\u2190": "<-", "\t": " ",
})
SMS_MAX_SEPTETS = 306  # 2 concatenated segments of 153 septets


def is_gsm7(text: str) -> bool:
    """True if every character of ``text`` is in the GSM 03.38 alphabet (basic or extended)."""
    return all(ch in _GSM7_SET for ch in text)


def gsm7_septets(text: str) -> int:
    """Length in septets: extended characters (``[]{}^~|\\€``) take two."""
    return sum(2 if ch in _GSM7_EXTENDED else 1 for ch in text)


def sms_segments(text: str) -> int:
    """How many SMS segments ``text`` needs (UCS-2 counting if it is not GSM-7)."""
    if not text:
        return 1
    if is_gsm7(text):
        n = gsm7_septets(text)
        return 1 if n <= 160 else -(-n // 153)
    units = len(text.encode("utf-16-le")) // 2
    return 1 if units <= 70 else -(-units // 67)


def to_gsm7(text: str) -> str:
    """Text made GSM-7 safe, never with a ``?`` for a letter: straight quotes, accents
    dropped where GSM-7 lacks them, other scripts transliterated (``anyascii``:
    "Дмитрий" -> "Dmitriy"); a character with no Latin form is left out."""
    out = []
    for ch in text.translate(_GSM7_REPLACE):
        if ch in _GSM7_SET:
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch)
                       if not unicodedata.combining(c))
        if not (base and all(c in _GSM7_SET for c in base)):
            base = "".join(c for c in anyascii(ch) if c in _GSM7_SET)
        out.append(base)
    return "".join(out)


#: UCS-2 budget: a message that must keep characters outside GSM-7 (table talk in another
#: script, an emoji) is sent as UCS-2 in at most 2 segments of 67 UTF-16 units.
SMS_MAX_UCS2_UNITS = 134


def utf16_units(text: str) -> int:
    """Length in UTF-16 code units (an emoji outside the BMP takes two)."""
    return len(text.encode("utf-16-le")) // 2


def cut_utf16(text: str, units: int) -> str:
    """``text`` cut to at most ``units`` UTF-16 units, never inside a character or before a
    combining mark (the cut moves back to the start of that letter)."""
    out, used = [], 0
    for ch in text:
        size = 2 if ord(ch) > 0xFFFF else 1
        if used + size > units:
            break
        out.append(ch)
        used += size
    while out and unicodedata.combining(out[-1]):
        out.pop()
    return "".join(out)


def relay_sms(head: str, quote: str, tail: str, more: str) -> str:
    """A relayed text (table talk) kept faithful: GSM-7 in 2 segments when it can be,
    else UCS-2 within ``SMS_MAX_UCS2_UNITS``; cut with ``more`` (a pointer to the full text)
    when it does not fit. Only ``quote`` may leave GSM-7; ``head`` and ``tail`` are made
    GSM-7 safe."""
    head, tail = to_gsm7(head), to_gsm7(tail)
    plain = quote.translate(_GSM7_REPLACE)
    if is_gsm7(plain):
        whole = f'{head} "{plain}" {tail}'.strip()
        if gsm7_septets(whole) <= SMS_MAX_SEPTETS:
            return whole
        room = SMS_MAX_SEPTETS - gsm7_septets(f'{head} ""... {more}') - 1
        cut = plain[:max(room, 0)]
        while gsm7_septets(cut) > room:
            cut = cut[:-1]
        return f'{head} "{cut.rstrip()}..." {more}'
    whole = f'{head} "{quote}" {tail}'.strip()
    if utf16_units(whole) <= SMS_MAX_UCS2_UNITS:
        return whole
    room = SMS_MAX_UCS2_UNITS - utf16_units(f'{head} "…" {more}')
    return f'{head} "{cut_utf16(quote, max(room, 0)).rstrip()}…" {more}'


def fit_sms(parts: Sequence[Sequence[str]], limit: int = SMS_MAX_SEPTETS,
            priority: Sequence[int] | None = None) -> str:
    """Join SMS parts, taking for each part the longest variant that still fits.

    ``parts`` is a list of alternatives, longest first (the last may be ``""``); parts are
    fitted in ``priority`` order (default: first to last) and joined in their own order.
    The result is GSM-7 and at most ``limit`` septets.
    """
    chosen = [to_gsm7(p[-1]) for p in parts]

    def size(items: Sequence[str]) -> int:
        return gsm7_septets(" ".join(x for x in items if x))

    for i in priority if priority is not None else range(len(parts)):
        for option in parts[i]:
            trial = [*chosen[:i], to_gsm7(option), *chosen[i + 1 :]]
            if size(trial) <= limit:
                chosen = trial
                break
    text = " ".join(x for x in chosen if x)
    if gsm7_septets(text) > limit:  # only if even the shortest variants overflow
        cut = text[: limit - 3]
        while gsm7_septets(cut) > limit - 3:  # extended characters take two septets
            cut = cut[:-1]
        text = cut.rstrip() + "..."
    return text


def short_game(name: str, width: int = 20) -> str:
    """A game name cut at a word boundary to at most ``width`` characters."""
    name = " ".join(name.split())
    if len(name) <= width:
        return name
    cut = name[:width].rsplit(" ", 1)[0]
    return cut if len(cut) >= width // 2 else name[:width]


def short_name(name: str, width: int = 12) -> str:
    """A name cut to ``width`` characters (a prefix still resolves in replies if unique)."""
    name = " ".join(name.split())
    return name if len(name) <= width else name[:width].rstrip()


# ------------------------------------------------------------------ time


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def format_deadline(deadline: datetime | None, time_zone: str) -> dict[str, str] | None:
    """The deadline in the player's zone and in UTC (``local``, ``utc``, ``short``)."""
    if deadline is None:
        return None
    if deadline.tzinfo is None:
        deadline = deadline.replace(tzinfo=UTC)
    local = deadline.astimezone(_zone(time_zone))
    utc = deadline.astimezone(UTC)
    zone = local.tzname() or time_zone
    return {
        "local": f"{local:%a %d %b %Y, %H:%M} {zone}",
        "utc": f"{utc:%a %d %b, %H:%M} UTC",
        "short": f"{local:%a %d %b %H:%M} {zone}",
        "same": "1" if local.utcoffset() == utc.utcoffset() else "",
    }


# ------------------------------------------------------------------ the per-seat model


def _ranks(player: Mapping[str, Any]) -> str:
    return " + ".join(RANK_NAMES.get(r, r) for r in player.get("ranks") or [])


def _where(player: Mapping[str, Any]) -> str:
    loc = player["location"]
    ranks = _ranks(player)
    if loc in SHIP_NAMES:
        return f"{ranks or 'crew'} of the {SHIP_NAMES[loc]}"
    if loc == "TORTUGA":
        return "Governor of Tortuga" if ranks else "on Tortuga"
    ship = loc.split("_")[0]
    return f"in the {SHIP_NAMES.get(ship, ship)}'s rowboat"


def _short_where(player: Mapping[str, Any]) -> str:
    """``"FD Captain+Cabin Boy"``, ``"Tortuga Governor"``, ``"in the JR rowboat"``."""
    loc = player["location"]
    ranks = "+".join(RANK_NAMES.get(r, r) for r in player.get("ranks") or [])
    if loc.endswith("_ROWBOAT"):
        return f"in the {loc.split('_')[0]} rowboat"
    place = "Tortuga" if loc == "TORTUGA" else loc
    return f"{place} {ranks}" if ranks else f"on {place}"


def board_model(public: Mapping[str, Any], seat_view: Mapping[str, Any] | None) -> dict[str, Any]:
    """The board as templates see it (peeks only of the recipient)."""
    me = seat_view["seat"] if seat_view else None
    players = {p["seat"]: p for p in public["players"]}

    def crew(line: Sequence[int]) -> list[dict[str, Any]]:
        return [{"seat": s, "number": s + 1, "name": players[s]["name"],
                 "ranks": _ranks(players[s]), "you": s == me,
                 "kept": [title_label(t) for t in players[s].get("kept") or []]}
                for s in line]

    ships = []
    for ship in public["ships"]:
        code = ship["ship"]
        rower = public["rowboats"].get(code)
        ships.append({
            "code": code, "name": SHIP_NAMES[code], "crew": crew(ship["line"]),
            "british": ship["british"], "french": ship["french"],
            "rowboat": None if rower is None else players[rower]["name"],
            "rowboat_you": rower is not None and rower == me,
            "full": len(ship["line"]) >= 5,
        })
    peeks = {int(k): title_label(v) for k, v in (seat_view or {}).get("peeks", {}).items()}
    down = set(public["row"])
    row = [{"position": p, "down": p in down, "peek": peeks.get(p) if p in down else None}
           for p in range(1, 6)]
    vote = public.get("vote")
    vote_model = None
    if vote:
        answered = set(vote["answered"])
        vote_model = {
            "kind": vote["kind"], "name": vote["kind"].capitalize(),
            "caller": players[vote["caller"]]["name"],
            "participants": [players[s]["name"] for s in vote["participants"]],
            "waiting": [players[s]["name"] for s in vote["participants"] if s not in answered],
        }
    loyalties = public.get("loyalties")
    score = public["score"]
    return {
        "version": public["version"],
        "status": public["status"],
        "turn_number": public["turn_number"],
        "turn_name": players[public["turn_seat"]]["name"] if public["turn_seat"] in players
        else "",
        "action": public["action"],
        "actions_per_turn": public["actions_per_turn"],
        "ships": ships,
        "tortuga": {"crew": crew(public["tortuga"]), "british": public["tortuga_british"],
                    "french": public["tortuga_french"]},
        "galleon": public["galleon"],
        "row": row,
        "deck_size": public["deck_size"],
        "discard": [title_label(t) for t in public["discard"]],
        "vote_deck_size": public["vote_deck_size"],
        "kept": [{"name": p["name"], "cards": [title_label(t) for t in p["kept"]]}
                 for p in public["players"] if p.get("kept")],
        "score": {"british": score["british"], "french": score["french"],
                  "galleon": score["galleon"]},
        "vote": vote_model,
        "exhausted": public.get("exhausted", False),
        "sudden_death": public.get("sudden_death", False),
        "winner": public.get("winner"),
        "winner_name": TEAM_NAMES.get(public.get("winner") or "", ""),
        "end_reason": score.get("reason"),
        "loyalties": None if loyalties is None else [
            {"name": players[s]["name"], "loyalty": TEAM_NAMES.get(x, x),
             "won": x == public.get("winner"), "you": s == me}
            for s, x in enumerate(loyalties)
        ],
        "players": [{"number": p["seat"] + 1, "name": p["name"], "where": _where(p),
                     "hand_size": p["hand_size"], "you": p["seat"] == me}
                    for p in public["players"]],
    }


_LOYALTY_TEXT = {
    "BRITISH": "British: you win if the British holds and area hold more treasure than the "
               "French at the end.",
    "FRENCH": "French: you win if the French holds and area hold more treasure than the "
              "British at the end.",
    "DUTCH": "Dutch: you win alone if the game ends in a tie.",
}


def me_model(seat_view: Mapping[str, Any]) -> dict[str, Any]:
    """The recipient's own secrets and position."""
    public = seat_view["public"]
    player = next(p for p in public["players"] if p["seat"] == seat_view["seat"])
    hand = [{
        "number": c["number"],
        "text": c["text"],
        "top": " + ".join(SYMBOL_NAMES.get(s, s) for s in c["top"]),
        "middle": " + ".join(SYMBOL_NAMES.get(s, s) for s in c["middle"]),
        "bottom": " + ".join(SYMBOL_NAMES.get(s, s) for s in c["bottom"]),
        "sections": {"top": c["top"], "middle": c["middle"], "bottom": c["bottom"]},
    } for c in seat_view["hand"]]
    n = len(public["players"])
    loyalty = seat_view["loyalty"]
    team_note = ""
    if n == 2:
        team_note = "In a 2-player game each of you knows the other's team."
    return {
        "seat": seat_view["seat"],
        "number": seat_view["seat"] + 1,
        "name": seat_view["name"],
        "loyalty": loyalty,
        "loyalty_name": TEAM_NAMES.get(loyalty, loyalty),
        "loyalty_text": _LOYALTY_TEXT.get(loyalty, loyalty),
        "team_note": team_note,
        "hand": hand,
        "peeks": [{"position": int(p), "title": title_label(t)}
                  for p, t in sorted(seat_view["peeks"].items(), key=lambda kv: int(kv[0]))],
        "kept": [title_label(t) for t in seat_view["kept"]],
        "seen": sorted({title_label(t) for t in seat_view["seen"]}),
        "where": _where(player),
        "atlantis_ordered": seat_view.get("atlantis_ordered", False),
    }


def _names(seat_view: Mapping[str, Any]) -> dict[int, str]:
    return {p["seat"]: p["name"] for p in seat_view["public"]["players"]}


def _cause_text(cause: str) -> str:
    return {"MAROON": "the Captain's maroon order", "MUTINY": "a successful Mutiny",
            "PISTOL": "a Pistol shot", "BLACK_SPOT": "the Black Spot"}.get(
        cause, cause.replace("_", " ").lower())


def awaited_model(seat_view: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What is awaited from the recipient: headline, details, SMS forms and the menu."""
    if not seat_view:
        return None
    decisions = seat_view.get("pending") or []
    menu = build_menu(seat_view)
    if not decisions and not menu:
        return None
    names = _names(seat_view)
    me = seat_view["seat"]
    public = seat_view["public"]
    player = next(p for p in public["players"] if p["seat"] == me)
    details: list[str] = []
    sms_info = ""
    if not decisions:  # only the Atlantis standing order is possible
        headline = "Nothing is awaited from you now, but you may order Atlantis."
        sms_head = "Nothing awaited; you may order ATLANTIS."
        kind = "ATLANTIS"
    else:
        d = decisions[0]
        kind = d["kind"]
        c = d.get("context") or {}
        if kind == "ACTION":
            of = c.get("of", 1)
            step = f" (action {c.get('action', 1)} of {of})" if of > 1 else ""
            headline = f"Your turn{step}: choose one action."
            sms_head = f"Your turn{step}, {_short_where(player)}."
            details.append(f"You are {_where(player)}.")
            if of > 1:
                details.append("In a 2-player game you take 2 actions per turn: you may send "
                               "both now, one per line.")
            down = public["row"]
            peeks = {int(k): title_label(v) for k, v in seat_view["peeks"].items()}
            sms_info = "Face down: " + " ".join(map(str, down)) + "." if down else ""
            known = [f"{p}={t}" for p, t in sorted(peeks.items()) if p in down]
            if known:
                sms_info += " You saw " + ", ".join(known) + "."
        elif kind == "VOTE":
            vote = c.get("vote", "")
            caller = names.get(c.get("caller", -1), "?")
            if c.get("caller") == me:
                caller = "You"
            article = "an" if vote == "ATTACK" else "a"
            headline = f"{caller} called {article} {vote.capitalize()}: play a Vote card."
            counted = {"ATTACK": "Cannon/Torch/Water", "BRAWL": "flags",
                       "MUTINY": "Skull/Helm"}.get(vote, "")
            sms_head = (f"{caller} called {article} {vote.capitalize()} "
                        f"({counted} count). Play a card:")
            details.append(VOTE_RULE.get(vote, ""))
            details.append("Nobody learns who played which card; 1 card from the deck is "
                           "added. You draw a new card afterwards.")
        elif kind == "CHOOSE":
            a, b = c.get("positions", ["?", "?"])
            by = names.get(c.get("forced_by", -1), "Someone")
            headline = (f"{by} forced you to reveal Event card {a} or {b}: choose one. "
                        "You reveal it and resolve it.")
            sms_head = f"{by} forced you: reveal card {a} or {b}."
            peeks = {int(k): title_label(v) for k, v in seat_view["peeks"].items()}
            known = [f"{p}={peeks[p]}" for p in (a, b) if p in peeks]
            if known:
                details.append("You have seen: " + ", ".join(known) + ".")
                sms_info = "You saw " + ", ".join(known) + "."
        elif kind == "LETTER_OF_MARQUE":
            headline = ("You revealed a Letter of Marque: move a player from Tortuga or a "
                        "rowboat to the back of a ship now, or SAVE it for a later turn.")
            sms_head = "Letter of Marque: move someone to a ship, or SAVE it."
        elif kind == "SHOOT":
            headline = "You revealed a Pistol: choose who to shoot. They are marooned."
            sms_head = "Pistol! Who do you shoot?"
        elif kind == "GIVE":
            headline = "You revealed a Treasure Map: choose who gets it (you may keep it)."
            sms_head = "Treasure Map: who gets it?"
        elif kind == "TAKE":
            if c.get("source") == "GALLEON":
                headline = ("Your Attack succeeded! Take 1 treasure from the Galleon: "
                            "choose your hold.")
                sms_head = "Attack won! Galleon treasure to which hold?"
            else:
                headline = ("Your Attack succeeded! The Galleon is empty: take 1 treasure "
                            "from a hold of the other ship into a hold of yours.")
                sms_head = "Attack won! Take from which hold, to which?"
        elif kind == "PLACE":
            ship = SHIP_NAMES.get(c.get("ship", ""), "your ship")
            headline = (f"You are the Captain of the {ship}: choose the hold for its "
                        "starting treasure.")
            sms_head = f"Captain of the {ship}: place your starting treasure."
        elif kind == "FOUNTAIN":
            by = c.get("by")
            who = f" by {names[by]}" if by is not None and by in names else ""
            headline = (f"You are about to be marooned ({_cause_text(c.get('cause', ''))}"
                        f"{who}). You own the Fountain of Youth: stay or go?")
            sms_head = "About to be marooned. Fountain of Youth: stay or go?"
        else:
            headline = "A decision is awaited from you."
            sms_head = "Your decision is awaited."
    return {
        "kind": kind,
        "headline": headline,
        "details": [x for x in details if x],
        "sms_head": sms_head,
        "sms_info": sms_info,
        "vote": (decisions[0].get("context") or {}).get("vote") if decisions else None,
        "menu": menu,
        "example": _example(menu),
    }


def _example(menu: Sequence[MenuOption]) -> str:
    for option in menu:
        if option.example:
            return option.example
    return menu[0].display if menu else "STATUS"


def recap(events: Sequence[Mapping[str, Any]], limit: int = RECAP_LIMIT) -> dict[str, Any]:
    """Event lines for "since your last message": text, private flag; the oldest dropped."""
    lines = [{"text": e["text"], "private": e.get("audience") is not None,
              "kind": e.get("kind", "")}
             for e in events if e.get("kind") not in RECAP_SKIP]
    dropped = max(0, len(lines) - limit)
    return {"lines": lines[dropped:], "dropped": dropped}


# ------------------------------------------------------------------ rendering


def _vote_result(events: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    for e in reversed(events):
        if e.get("kind") == "vote.result":
            data = e.get("data") or {}
            counts = data.get("counts") or {}
            return {
                "text": e["text"],
                "vote": str(data.get("vote", "")).capitalize(),
                "outcome": str(data.get("outcome", "")).lower(),
                "symbols": [SYMBOL_NAMES.get(s, s) for s in data.get("symbols") or []],
                "counts": {SYMBOL_NAMES.get(k, k): v for k, v in sorted(counts.items())},
                "cards": list(data.get("cards") or []),
            }
    return None


#: Optional ``extra`` keys the templates read (missing ones are None).
_OPTIONAL_EXTRA = (
    "inviter", "message", "respond_by", "reason", "policy", "paused", "paused_hours",
    "new_name", "briefing", "you_were_replaced", "aborted", "headline", "invitation", "who",
    "played", "help", "log", "reply", "done", "rejected", "table_talk", "reply_to", "result",
    "started", "you", "answers", "read_as", "timed_out", "timed_out_secret",
)


def _player_names(players: Any) -> list[str]:
    names = []
    for p in players or []:
        names.append(str(p.get("name", "")) if isinstance(p, Mapping) else str(p))
    return [n for n in names if n]


def _normalise_extra(ctx: MessageContext) -> dict[str, Any]:
    """``ctx.extra`` with the aliases folded in (see the module docstring)."""
    extra = dict.fromkeys(_OPTIONAL_EXTRA)
    extra.update(ctx.extra)
    extra["players"] = _player_names(extra.get("players"))
    extra["from"] = str(extra.get("from_name") or extra.get("from") or "A player")
    extra["text"] = str(extra.get("text") or "")
    extra["old_name"] = extra.get("old_name") or extra.get("previous_player")
    timing = extra.get("timing") or {}
    extra["timing"] = {k: _hours_text(v) for k, v in timing.items() if v}
    if extra.get("respond_by_hours"):
        extra["respond_by"] = _hours_text(extra["respond_by_hours"])
    extra["paused_for"] = _hours_text(extra["paused_hours"]) if extra.get("paused_hours") else None
    if extra.get("you") is None:
        extra["you"] = True
    result = extra.get("result")
    if ctx.kind is MessageKind.REPLY and isinstance(result, Mapping):
        # The service's own Result (``pbm.games.Result.to_dict()``), when no parse report.
        view = ctx.seat_view
        if extra.get("done") is None:
            extra["done"] = [display_command(str(c), view) for c in result.get("done") or []]
        if extra.get("rejected") is None:
            extra["rejected"] = [
                {"command": display_command(str(r.get("command", "")), view),
                 "reason": str(r.get("reason", ""))}
                for r in result.get("not_done") or []]
    return extra


def _hours_text(hours: Any) -> str:
    try:
        value = float(hours)
    except (TypeError, ValueError):
        return str(hours)
    from pbm.humanize import hours

    return hours(value)


def visible_events(ctx: MessageContext) -> list[dict[str, Any]]:
    """The context's events this recipient may see (defence in depth: the service filters
    already; an event for other seats never reaches a template)."""
    out = []
    for event in ctx.events:
        audience = event.get("audience")
        if audience is None or (ctx.seat is not None and ctx.seat in audience):
            out.append(event)
    return out


def _model(ctx: MessageContext) -> dict[str, Any]:
    if ctx.seat_view is not None and ctx.seat is not None and ctx.seat_view["seat"] != ctx.seat:
        raise ValueError(f"the seat view of seat {ctx.seat_view['seat']} was given for a "
                         f"message to seat {ctx.seat}")
    events = visible_events(ctx)
    if len(events) != len(ctx.events):
        ctx = replace(ctx, events=events)
    view = ctx.seat_view
    public = view["public"] if view else None
    extra = _normalise_extra(ctx)
    reply = extra.get("reply") or {}
    result_event = extra.get("result") if ctx.kind is MessageKind.VOTE_RESULT else None
    if isinstance(result_event, Mapping) and result_event.get("audience") is not None:
        result_event = None
    model: dict[str, Any] = {
        "ctx": ctx,
        "kind": ctx.kind.value,
        "game": ctx.game_name,
        "player": ctx.player_name,
        "extra": extra,
        "marker": REPLY_MARKER,
        "board": board_model(public, view) if public else None,
        "board_cid": board_content_id(board_image_key(ctx.game_id, public["version"]))
        if public else None,
        "me": me_model(view) if view else None,
        "awaited": awaited_model(view) if ctx.kind is not MessageKind.GAME_OVER else None,
        "deadline": format_deadline(ctx.deadline, ctx.time_zone),
        "recap": recap([e for e in ctx.events if not (
            ctx.kind is MessageKind.VOTE_RESULT and e.get("kind") == "vote.result")]),
        "vote_result": _vote_result(
            [*ctx.events, result_event] if isinstance(result_event, Mapping) else ctx.events),
        "table_talk": list(extra.get("table_talk") or []),
        "reply": {
            "understood": reply.get("understood") or [],
            "meta": reply.get("meta") or [],
            "not_understood": reply.get("not_understood") or [],
            "ignored": reply.get("ignored") or [],
        },
        "done": list(extra.get("done") or []),
        "rejected": list(extra.get("rejected") or []),
        "help": extra.get("help"),
        "help_file": None if extra.get("help") is None
        else HELP_FILES.get(str(extra["help"]).upper(), "general"),
        "show_log": bool(extra.get("log")),
        "reply_to": extra.get("reply_to"),
        "played": display_command(str(extra["played"]), view) if extra.get("played") else None,
        "timed_out_you": bool(extra.get("you", True)),
        "answers": list(extra.get("answers") or []),  # settings (pbm.settings)
        "subject": subject_for(ctx.game_name),  # one-tap mailto: buttons reply in thread
    }
    model["viewed"] = viewed_cards(model) if ctx.kind is MessageKind.REPLY else []
    if ctx.kind is MessageKind.REPLY:
        turn_name = model["board"]["turn_name"] if model["board"] else ""
        model["rejected"] = [
            {**r, "reason": plain_reason(str(r["command"]), str(r["reason"]), view,
                                         model["awaited"], turn_name)}
            for r in model["rejected"]]
    model["folded"] = _folded_notes(extra, view)
    model["headline"] = _headline(ctx, model)
    model["preview"] = _preview(model)
    return model


_ANSWERS_RE = re.compile(r"^\S.* answers [A-Z_]+(?: or [A-Z_]+)*, but .+ is asked for [A-Z_]+$")
_NOTHING_RE = re.compile(r": nothing is awaited from .+ now$")
_NOT_ALLOWED_RE = re.compile(r"^[A-Z]+\b[^:]* is not allowed: (.+)$")


def _legal_of(view: Mapping[str, Any] | None, verb: str | None = None) -> list[str]:
    """The seat's legal answers now, as it reads them (names, not seat numbers)."""
    if not view:
        return []
    legal = [display_command(c, view) for d in view.get("pending") or [] for c in d["legal"]]
    if verb is not None:
        legal = [c for c in legal if c.split()[0] == verb]
    return list(dict.fromkeys(legal))


def _either(items: Sequence[str], limit: int = 8) -> str:
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + f" (and {len(items) - limit} more)"
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def plain_reason(command: str, reason: str, view: Mapping[str, Any] | None,
                 awaited: Mapping[str, Any] | None, turn_name: str = "") -> str:
    """Why a command was refused, in the player's words: what is awaited now, and what
    they can reply instead (never the engine's decision kinds)."""
    reason = reason.strip()
    verb = command.split()[0].upper() if command.split() else ""
    options = [o.display for o in awaited["menu"]] if awaited else []
    if _ANSWERS_RE.match(reason) or _NOTHING_RE.search(reason):
        if not awaited:
            whose = f"; it is {turn_name}'s turn" if turn_name else ""
            return f"nothing is awaited from you now{whose}"
        text = f"{verb} is not what is asked of you now. {awaited['headline']}"
        return text + (f" You can reply {_either(options)}." if options else "")
    allowed = _NOT_ALLOWED_RE.match(reason)
    if allowed:
        why = allowed.group(1)
        same = _legal_of(view, verb)
        if same:
            return f"{why}. You can: {_either(same)}"
        return f"{why}." + (f" What you can do now: {_either(options)}." if options else "")
    return reason


def _folded_notes(extra: Mapping[str, Any], view: Mapping[str, Any] | None) -> list[str]:
    """Sentences folded in from what would have been a message of its own (an
    acknowledgement, a timeout notice): see ``pbm.outbox.fold_into_next``."""
    notes = []
    if extra.get("timed_out"):
        played = "a Vote card" if extra.get("timed_out_secret") else \
            display_command(str(extra["timed_out"]), view)
        notes.append(f"Time ran out: {played} was played for you.")
    if extra.get("read_as"):
        notes.append("We read your reply as " + "; ".join(map(str, extra["read_as"])) + ".")
    return notes


def _preview(model: Mapping[str, Any]) -> str:
    """The inbox preview: what is needed and by when ("Your turn: choose one action by
    Tue 18 Mar 18:00 CET"), else the headline."""
    headline = str(model["headline"]).rstrip(".")
    deadline = model["deadline"]
    awaited = model["awaited"]
    if awaited and model["kind"] != MessageKind.GAME_OVER.value:
        needed = str(awaited["headline"]).rstrip(".")
        if needed not in headline:  # an answer or a notice: then what is still needed
            headline = f"{headline}. {needed}"
        return f"{headline} by {deadline['short']}" if deadline else headline
    return headline


def _headline(ctx: MessageContext, m: Mapping[str, Any]) -> str:
    kind = ctx.kind
    awaited = m["awaited"]
    extra = m["extra"]
    if kind is MessageKind.INVITATION or (
            kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and extra.get("invitation")):
        prefix = {MessageKind.REMINDER: "Reminder: ",
                  MessageKind.FINAL_WARNING: "Last call: "}.get(kind, "")
        return f"{prefix}You are invited to play Tortuga 1667: game {ctx.game_name}"
    if kind is MessageKind.GAME_STARTED:
        return f"Game {ctx.game_name} has started"
    if kind in (MessageKind.PROMPT, MessageKind.STATUS, MessageKind.REMINDER,
                MessageKind.FINAL_WARNING, MessageKind.RESUMED) and awaited:
        prefix = {MessageKind.REMINDER: "Reminder: ",
                  MessageKind.FINAL_WARNING: "Last call: "}.get(kind, "")
        return prefix + awaited["headline"]
    if kind is MessageKind.STATUS:
        return "Nothing is awaited from you right now"
    if kind is MessageKind.NOTICE:
        if extra.get("headline"):
            return str(extra["headline"])
        return m["recap"]["lines"][-1]["text"] if m["recap"]["lines"] else "News from your game"
    if kind is MessageKind.VOTE_RESULT:
        vr = m["vote_result"]
        return vr["text"] if vr else "The vote is over"
    if kind is MessageKind.TIMED_OUT:
        if not m["timed_out_you"]:
            who = extra.get("who") or "A player"
            return f"{who} ran out of time" + (
                f": {m['played']} was played for them" if m["played"] else "")
        if m["played"]:
            return f"Time ran out: {m['played']} was played for you"
        if extra.get("paused"):
            return "Time ran out: the game is paused"
        return "Time ran out: a default answer was played for you"
    if kind is MessageKind.PAUSED:
        return f"Game {ctx.game_name} is paused"
    if kind is MessageKind.RESUMED:
        return f"Game {ctx.game_name} is running again"
    if kind is MessageKind.SEAT_REPLACED:
        if extra.get("you_were_replaced"):
            return f"You have left game {ctx.game_name}"
        if extra.get("briefing", m["me"] is not None) and m["me"]:
            return f"Welcome aboard: you take over a seat in game {ctx.game_name}"
        new = extra.get("new_name") or "A new player"
        return f"{new} takes over {extra.get('old_name') or 'a seat'}'s seat"
    if kind is MessageKind.TABLE_TALK:
        return f"{extra.get('from', 'A player')} says"
    if kind is MessageKind.REPLY:
        if m["answers"] and not (m["done"] or m["rejected"]):
            return settings_headline(m["answers"])
        if m["viewed"]:
            return "You saw " + " and ".join(
                f"card {c['position']}: {c['title']}" for c in m["viewed"])
        if m["done"]:
            return "Done: " + "; ".join(m["done"])
        if m["rejected"] or m["reply"]["not_understood"]:
            return "Nothing was changed"
        return "Your reply"
    if kind is MessageKind.GAME_OVER:
        board = m["board"]
        if extra.get("aborted"):
            return "The game was stopped"
        if board and board["winner_name"]:
            return f"Game over: the {board['winner_name']} win"
        return "Game over"
    return f"Game {ctx.game_name}"


def settings_headline(answers: Sequence[str]) -> str:
    """The subject line of an answer to settings: ``Your settings`` or ``Set: ZONE, VIA``."""
    verbs = [a.split(" ", 1)[0].rstrip(":") for a in answers]
    return "Your settings" if verbs == ["SETTINGS"] else "Set: " + ", ".join(verbs)


def _render_text(model: Mapping[str, Any]) -> str:
    text = _env.get_template("email/message.txt").render(**model)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def _render_html(model: Mapping[str, Any]) -> str:
    return css_inline.inline(_env.get_template("email/message.html").render(**model))


#: The sections of an email, in order, by kind (templates/email/_<section>.txt / .html).
SECTIONS: dict[MessageKind, tuple[str, ...]] = {
    MessageKind.INVITATION: ("invitation",),
    MessageKind.GAME_STARTED: ("started", "awaited", "secrets", "board"),
    MessageKind.PROMPT: ("awaited", "talk", "recap", "secrets", "board"),
    MessageKind.NOTICE: ("recap", "awaited", "board"),
    MessageKind.VOTE_RESULT: ("vote_result", "recap", "board"),
    MessageKind.REMINDER: ("awaited", "policy", "talk", "recap", "secrets", "board"),
    MessageKind.FINAL_WARNING: ("policy", "awaited", "talk", "recap", "secrets", "board"),
    MessageKind.TIMED_OUT: ("timed_out", "recap", "board"),
    MessageKind.PAUSED: ("paused",),
    MessageKind.RESUMED: ("resumed", "awaited", "secrets", "board"),
    MessageKind.SEAT_REPLACED: ("replaced", "awaited", "secrets", "recap", "board"),
    MessageKind.TABLE_TALK: ("table_talk",),
    MessageKind.REPLY: ("reply", "help", "log", "awaited"),
    MessageKind.STATUS: ("awaited", "talk", "secrets", "board", "recap"),
    MessageKind.GAME_OVER: ("game_over", "recap", "board"),
}


def _sections(ctx: MessageContext, model: Mapping[str, Any]) -> tuple[str, ...]:
    """The email sections of this message (``SECTIONS``, adjusted by ``extra``)."""
    extra = model["extra"]
    kind = ctx.kind
    if kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and extra.get("invitation"):
        return ("invitation",)
    if kind is MessageKind.SEAT_REPLACED:
        if extra.get("you_were_replaced"):
            return ("left",)
        if not (extra.get("briefing", True) and model["me"]):
            return ("recap", "awaited")
    if kind is MessageKind.TIMED_OUT and not model["timed_out_you"]:
        return ("recap", "awaited", "board")
    sections = SECTIONS.get(kind, ())
    if kind is MessageKind.GAME_OVER and extra.get("unmasking"):  # pbm.unmasking
        sections = (*sections[:1], "unmasking", *sections[1:])
    if kind is MessageKind.REPLY and model["answers"]:
        sections = ("answers", *sections)
    if extra.get("vote_ledger") and "board" in sections:  # pbm.vote_ledger, before the board
        at = sections.index("board")
        sections = (*sections[:at], "ledger", *sections[at:])
    if kind is MessageKind.PROMPT and extra.get("started"):
        sections = ("started", *sections)
    if model["me"] is None:
        sections = tuple(x for x in sections if x not in ("secrets", "started", "replaced"))
    return sections


_BY_ARGUMENT_VERBS = ("VOTE", "CHOOSE", "SHOOT", "GIVE")


def _sms_options(menu: Sequence[MenuOption], width: int | None, collapse: bool,
                 hand: Mapping[int, str] | None = None) -> str:
    """The menu for an SMS: ``1=VIEW _ _ 2=REVEAL _ ...``, or ``SHOOT: 1=Ann 3=Cleo`` when
    every option is one verb picked by number; names cut to ``width``; with ``collapse``
    long lists of targets become one template (``MAROON name``)."""
    plain = [o for o in menu if not o.is_template]
    verbs = {o.verb for o in plain}
    if plain and len(verbs) == 1 and next(iter(verbs)) in _BY_ARGUMENT_VERBS:
        verb = next(iter(verbs))
        items = []
        for option in menu:
            if option.is_template or option.verb != verb:
                items.append(f"{option.number}={option.display}")
                continue
            arg = option.display.split(" ", 1)[1] if " " in option.display else ""
            if verb == "VOTE" and hand is not None:
                arg = hand.get(option.number, arg)
            if width is not None:
                arg = short_name(arg, width)
            items.append(f"{option.number}={arg}")
        if verb == "CHOOSE":
            return " ".join(f"{o.number}=card {o.number}" for o in plain)
        if collapse and verb in ("SHOOT", "GIVE"):
            return f"{verb} name or seat no."
        return ("" if verb == "VOTE" else f"{verb}: ") + " ".join(items)
    items: list[str] = []
    seen_templates: set[str] = set()
    for option in menu:
        display = option.display
        if collapse and not option.is_template and option.verb in (
                "MAROON", "MARQUE", "SHOOT", "GIVE") and len(
                [o for o in menu if o.verb == option.verb]) > 1:
            template = {"MAROON": "MAROON name", "MARQUE": "MARQUE name FD/JR",
                        "SHOOT": "SHOOT name", "GIVE": "GIVE name"}[option.verb]
            if template in seen_templates:
                continue
            seen_templates.add(template)
            items.append(template)
            continue
        if option.verb == "VOTE" and hand is not None and not option.is_template:
            arg = display.split(" ", 1)[1] if " " in display else ""
            items.append(f"{option.number}={hand.get(option.number, arg)}")
            continue
        if width is not None and option.verb in ("MAROON", "SHOOT", "GIVE", "MARQUE") \
                and not option.is_template:
            verb, _, rest = display.partition(" ")
            if option.verb == "MARQUE":
                name, _, ship = rest.rpartition(" ")
                display = f"{verb} {short_name(name, width)} {ship}"
            else:
                display = f"{verb} {short_name(rest, width)}"
        items.append(f"{option.number}={display}")
    return " ".join(items)


def _sms_awaited(model: Mapping[str, Any], head: str) -> str:
    awaited = model["awaited"]
    deadline = model["deadline"]
    by = [f"By {deadline['short']}.", ""] if deadline else [""]
    menu = awaited["menu"]
    hand = _vote_hand(model)
    info = awaited["sms_info"]
    options = [
        "Reply " + _sms_options(menu, None, False, hand),
        "Reply " + _sms_options(menu, 10, False, hand),
        "Reply " + _sms_options(menu, 6, False, hand),
        "Reply " + _sms_options(menu, 6, True, hand),
        "Reply STATUS for your options.",
    ]
    parts = [
        [head],
        [awaited["sms_head"], awaited["sms_head"][:60]],
        options,
        [info, info[:80], ""],
        by,
        ["STATUS=full picture", "STATUS=all"],
    ]
    return fit_sms(parts, priority=(0, 5, 1, 4, 2, 3))


def _sms(ctx: MessageContext, model: Mapping[str, Any]) -> str:
    """The SMS form: at most 2 GSM-7 segments, the game named, STATUS for the full picture."""
    kind = ctx.kind
    extra = model["extra"]
    game = short_game(ctx.game_name)
    head = f"Tortuga {game}:"
    awaited = model["awaited"]
    me = model["me"]
    if kind is MessageKind.INVITATION or (
            kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and extra.get("invitation")):
        inviter = extra.get("inviter")
        players = extra.get("players") or []
        who = f"{short_name(inviter, 20)} invites you" if inviter else "You are invited"
        size = f" ({len(players)} players)" if players else ""
        deadline = model["deadline"]
        again = "Reminder: " if kind is not MessageKind.INVITATION else ""
        return fit_sms([
            [f"{again}Tortuga 1667 by text: {who} to game {game}{size}."],
            ["Reply JOIN to play or DECLINE."],
            [f"Answer by {deadline['short']}." if deadline else ""],
            ["HELP for how to play.", ""],
        ])
    if kind is MessageKind.TABLE_TALK:
        speaker = short_name(str(extra.get("from") or "A player"), 20)
        return relay_sms(f"{head} {speaker} says:", str(extra.get("text", "")),
                         "Reply SAY text to answer all.", "(cut: LOG or email has it all)")
    if kind is MessageKind.PAUSED:
        reason = extra.get("reason") or "the admin paused it"
        return fit_sms([[head], [f"game paused ({reason}).", "game paused."],
                        ["Nothing is awaited until it resumes."]])
    if kind is MessageKind.REPLY:
        return _sms_reply(model, head)
    if awaited and kind in (MessageKind.PROMPT, MessageKind.STATUS, MessageKind.REMINDER,
                            MessageKind.FINAL_WARNING, MessageKind.RESUMED,
                            MessageKind.SEAT_REPLACED, MessageKind.GAME_STARTED,
                            MessageKind.NOTICE):
        prefix = {MessageKind.REMINDER: "Reminder!", MessageKind.FINAL_WARNING: "LAST CALL!",
                  MessageKind.RESUMED: "Game resumed.",
                  MessageKind.SEAT_REPLACED: f"You took over seat {me['number']}, you are "
                  f"{me['loyalty_name']}." if me else "You took over a seat.",
                  MessageKind.GAME_STARTED: f"Game on! You are {me['loyalty_name']}."
                  if me else "Game on!"}.get(kind, "")
        if kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING) and extra.get(
                "if_silent_sms"):  # what is played for this decision if no reply comes
            prefix += f" No reply = {extra['if_silent_sms']}."
        talk = model["table_talk"]
        if talk:
            prefix = (prefix + f" {len(talk)} new SAY msg(s).").strip()
        if model["folded"]:
            prefix = (" ".join(model["folded"]) + " " + prefix).strip()
        return _sms_awaited(model, f"{head} {prefix}".strip())
    if kind is MessageKind.GAME_STARTED and me:
        return fit_sms([[f"{head} game on! You are {me['loyalty_name']}, {me['where']}."],
                        ["Reply STATUS for the board."]])
    if kind is MessageKind.TIMED_OUT:
        if model["played"]:
            return fit_sms([[head], [f"time ran out, {model['played']} was played for you."],
                            ["STATUS=full picture", ""]])
        return fit_sms([[head], ["time ran out; the game is paused."]])
    if kind is MessageKind.GAME_OVER:
        board = model["board"]
        score = board["score"] if board else None
        result = model["headline"]
        if score:
            result += f", British {score['british']} French {score['french']}."
        you = f"You were {me['loyalty_name']}." if me else ""
        everyone = ""
        if board and board["loyalties"]:
            everyone = "Teams: " + ", ".join(
                f"{short_name(x['name'], 8)} {x['loyalty'][0]}" for x in board["loyalties"])
        return fit_sms([[head], [result], [you], [everyone, ""], ["Thanks for playing!", ""]])
    if kind is MessageKind.VOTE_RESULT and model["vote_result"]:
        return fit_sms([[head], [model["vote_result"]["text"]], ["STATUS=full picture", ""]])
    if kind is MessageKind.STATUS:
        return fit_sms([[head], ["Nothing is awaited from you now."],
                        [f"You are {me['where']}." if me else ""], ["LOG=recent history", ""]])
    return fit_sms([[head], [model["headline"]], ["STATUS=full picture", ""]])


# ------------------------------------------------------------------ SMS: STATUS, HELP, LOG

SMS_SYMBOL = {"CANNON": "Cannon", "TORCH": "Torch", "WATER": "Water", "BRITISH": "Brit",
              "FRENCH": "Fren", "SKULL": "Skull", "HELM": "Helm"}
SMS_RANK = {"CAPTAIN": "Capt", "FIRST_MATE": "1stMate", "CABIN_BOY": "CabinBoy",
            "GOVERNOR": "Gov"}
SMS_STATUS_PARTS = 2  # STATUS by SMS: at most this many messages of 2 segments each


def sms_card(card: Mapping[str, Any], section: str | None = None) -> str:
    """A Vote card's symbols for SMS: one section (``Cannon+Torch``) or all three
    (``Cannon/Brit/Skull``: top, middle, bottom)."""
    def one(symbols: Sequence[str]) -> str:
        return "+".join(SMS_SYMBOL.get(x, x) for x in symbols) or "blank"

    if section is not None:
        return one(card[section])
    return "/".join(one(card[part]) for part in ("top", "middle", "bottom"))


def _sms_person(public: Mapping[str, Any], seat: int, me: int | None, width: int,
                kept_cards: bool = True) -> str:
    player = next(p for p in public["players"] if p["seat"] == seat)
    name = "you" if seat == me else short_name(to_gsm7(player["name"]), width)
    ranks = "+".join(SMS_RANK.get(r, r) for r in player.get("ranks") or [])
    kept = ",".join(title_label(t) for t in player.get("kept") or []) if kept_cards and \
        seat != me else ""
    return name + (f" {ranks}" if ranks else "") + (f" ({kept})" if kept else "")


def sms_board(public: Mapping[str, Any], me: int | None, width: int = 10,
              kept: bool = True) -> str:
    """Both ships' lines with ranks and holds, Tortuga, the Galleon and the score; with
    ``kept``, the cards in front of the others (the player's own are in the second text)."""
    parts = []
    for ship in public["ships"]:
        code = ship["ship"]
        line = ", ".join(_sms_person(public, s, me, width, kept)
                         for s in ship["line"]) or "empty"
        rower = public["rowboats"].get(code)
        boat = f"; rowboat {_sms_person(public, rower, me, width, kept)}" \
            if rower is not None else ""
        parts.append(f"{code}: {line}{boat}; holds B{ship['british']} F{ship['french']}.")
    ashore = ", ".join(_sms_person(public, s, me, width, kept)
                       for s in public["tortuga"]) or "nobody"
    parts.append(f"Tortuga: {ashore}; B{public['tortuga_british']} "
                 f"F{public['tortuga_french']}.")
    score = public["score"]
    parts.append(f"Galleon {public['galleon']}. Score B{score['british']} "
                 f"F{score['french']}.")
    return " ".join(parts)


def _sms_status(model: Mapping[str, Any], head: str) -> list[str]:
    """STATUS by SMS: the board, then the player's secrets and what is awaited."""
    me = model["me"]
    board_view = model["ctx"].seat_view["public"] if model["ctx"].seat_view else None
    if board_view is None:
        return [fit_sms([[head], [model["headline"]], ["HELP=how to play", ""]])]
    seat = me["seat"] if me else None
    board = [sms_board(board_view, seat, w, kept) for kept in (True, False)
             for w in (12, 8, 5)]
    n = SMS_STATUS_PARTS
    first = fit_sms([[f"{head} (1/{n}) Turn {board_view['turn_number']}."],
                     [f"You are {me['loyalty_name']}." if me else ""], board])
    secrets: list[list[str]] = [[f"{head} (2/{n})"]]
    if me:
        hand = " ".join(f"{c['number']}={sms_card(c['sections'])}" for c in me["hand"])
        secrets.append([f"Vote cards (top/mid/bottom): {hand}." if hand
                        else "No Vote cards.", f"Cards: {hand}." if hand else ""])
        known = ", ".join(f"{p['position']}={p['title']}" for p in me["peeks"])
        secrets.append([f"You know: {known}." if known else "You know no Event card."])
        if me["kept"]:
            secrets.append([f"In front of you: {', '.join(me['kept'])}.", ""])
    awaited = model["awaited"]
    deadline = model["deadline"]
    by = f", by {deadline['short']}" if deadline else ""
    if awaited:
        hand_map = _vote_hand(model)
        awaited_now = awaited["sms_head"].rstrip(".:?!")
        secrets.append([f"{awaited_now}{by}.", f"{awaited_now[:60]}{by}."])
        secrets.append(["Reply " + _sms_options(awaited["menu"], None, False, hand_map),
                        "Reply " + _sms_options(awaited["menu"], 8, False, hand_map),
                        "Reply " + _sms_options(awaited["menu"], 6, True, hand_map),
                        "HELP TURN for the moves."])
        if awaited["sms_info"]:
            secrets.append([awaited["sms_info"], ""])
    else:
        waiting = board_view.get("vote")
        who = model["board"]["turn_name"] if model["board"] else ""
        secrets.append(["Nothing is awaited from you now" +
                        (f"; it is {to_gsm7(who)}'s turn." if who and not waiting else ".")])
    secrets.append(["LOG=recent history", ""])
    return [first, fit_sms(secrets)]


def _vote_hand(model: Mapping[str, Any]) -> dict[int, str] | None:
    """Card number -> its symbols for the section being voted (None if no vote awaited)."""
    awaited = model["awaited"]
    if not awaited or not model["me"] or not awaited.get("vote"):
        return None
    section = VOTE_SECTION.get(awaited["vote"], "top")
    return {c["number"]: sms_card(c["sections"], section) for c in model["me"]["hand"]}


def sms_help(topic: str) -> str:
    """The short SMS help for ``topic`` ("" for the general help)."""
    name = HELP_FILES.get(topic.upper(), "general")
    return (TEMPLATES / "help" / "sms" / f"{name}.txt").read_text(encoding="utf-8").strip()


def _sms_log(model: Mapping[str, Any], head: str) -> list[str]:
    """LOG by SMS: the newest public events that fit in 2 messages, oldest first."""
    lines = [to_gsm7(e["text"]) for e in model["ctx"].events if e.get("audience") is None
             and e.get("kind") not in RECAP_SKIP]
    messages: list[str] = []
    budget = SMS_MAX_SEPTETS - gsm7_septets(head) - 12
    for _ in range(SMS_STATUS_PARTS):
        chunk: list[str] = []
        while lines and gsm7_septets(" ".join([lines[-1], *chunk])) <= budget:
            chunk.insert(0, lines.pop())
        if not chunk:
            break
        messages.insert(0, " ".join(chunk))
    if not messages:
        return [fit_sms([[head], ["LOG: nothing has happened yet."]])]
    n = len(messages)
    return [fit_sms([[f"{head} LOG{f' ({i + 1}/{n})' if n > 1 else ''}:"], [text]])
            for i, text in enumerate(messages)]


def viewed_cards(model: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The Event cards a VIEW in this reply showed the player (from its own seat view)."""
    me = model["me"]
    if not me:
        return []
    known = {p["position"]: p["title"] for p in me["peeks"]}
    out = []
    for done in model["done"]:
        words = str(done).split()
        if words and words[0].upper() == "VIEW":
            out += [{"position": int(w), "title": known[int(w)]}
                    for w in words[1:] if w.isdigit() and int(w) in known]
    return out


def _sms_messages(ctx: MessageContext, model: Mapping[str, Any]) -> list[str]:
    """Every SMS of one message: STATUS, and a reply asking for HELP or LOG, may take two
    (each at most 2 segments); everything else is one."""
    head = f"Tortuga {to_gsm7(short_game(ctx.game_name))}:"
    if ctx.kind is MessageKind.STATUS:
        return _sms_status(model, head)
    if ctx.kind is MessageKind.REPLY and (model["help"] is not None or model["show_log"]):
        reply = model["reply"]
        out = []
        if model["done"] or model["rejected"] or reply["not_understood"]:
            out.append(_sms_reply(model, head, hint=False))
        if model["help"] is not None:
            out.append(fit_sms([[head], [sms_help(str(model["help"]))]]))
        if model["show_log"]:
            out += _sms_log(model, head)
        return out[:SMS_STATUS_PARTS + 1]
    return [_sms(ctx, model)]


def _sms_reply(model: Mapping[str, Any], head: str, hint: bool = True) -> str:
    reply = model["reply"]
    parts: list[list[str]] = [[head]]
    for answer in model["answers"]:
        parts.append([answer, answer[:150].rsplit(" ", 1)[0] + "..."])
    seen = model["viewed"]
    if seen:
        cards = ", ".join(f"{c['position']}={c['title']}" for c in seen)
        parts.append([f"You saw {cards} (only you know)."])
    if model["done"]:
        parts.append(["Done: " + "; ".join(model["done"]) + "."])
    for item in model["rejected"][:1]:
        reason = str(item["reason"]).rstrip(".")
        parts.append([f"Not done: {item['command']}: {reason}.",
                      f"Not done: {item['command']}: {reason.split('. ')[-1]}.",
                      f"Not done: {item['command']}."])
    for item in reply["not_understood"][:1]:
        line = short_name(item["line"], 30)
        hint = f" Did you mean {item['suggestion']}?" if item.get("suggestion") else ""
        parts.append([f'Not understood: "{line}".{hint}', f"Not understood.{hint}"])
    if reply["meta"] and not (model["done"] or model["rejected"] or reply["not_understood"]
                              or model["answers"]):
        names = ", ".join(m["name"] for m in reply["meta"])
        parts.append([f"OK: {names}."])
    awaited = model["awaited"]
    if awaited:
        hand = _vote_hand(model)
        options = [
            "Still awaited: " + _sms_options(awaited["menu"], None, False, hand),
            "Still awaited: " + _sms_options(awaited["menu"], 10, False, hand),
            "Still awaited: " + _sms_options(awaited["menu"], 6, True, hand),
            "Reply STATUS for your options.",
        ]
        parts.append(options)
    if hint:
        parts.append(["HELP=how to reply", ""])
    return fit_sms(parts)


def render(ctx: MessageContext, channel: Channel) -> RenderedMessage:
    """Render one message for one recipient on one channel."""
    model = _model(ctx)
    model["sections"] = _sections(ctx, model)
    subject = subject_for(ctx.game_name)
    text = _render_text(model)
    if channel is Channel.SMS:
        first, *more = _sms_messages(ctx, model)
        return RenderedMessage(subject=subject, text=text, sms=first, sms_more=tuple(more))
    html = _render_html(model)
    key = board_key_of(ctx)
    if key is None or f'src="cid:{board_content_id(key)}"' not in html:
        key = None  # no picture shown: none carried (no stray attachment)
    pictures = tuple((str(cid), bytes(png)) for cid, png in ctx.extra.get("inline_images") or ()
                     if f'src="cid:{cid}"' in html)  # the unmasking chart (pbm.unmasking)
    return RenderedMessage(subject=subject, text=text, html=html, board_image_key=key,
                           inline_images=pictures)
