"""The SMS form of a message: the menu in few characters, one text per kind, STATUS and
LOG in two texts, the short HELP, and the answer to a reply; GSM-7, 2 segments each."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pbm.i18n.translate import _, is_korean
from pbm.message_payloads import GameStarted, Prompt, Reminder, Reply, asks_to_join
from pbm.messages import MessageContext, MessageKind
from pbm.render.email import TEMPLATES
from pbm.render.gsm7 import (
    SMS_MAX_KO_UNITS,
    SMS_MAX_SEPTETS,
    fit_sms,
    gsm7_septets,
    relay_sms,
    to_gsm7,
    utf16_units,
)
from pbm.render.model import RECAP_SKIP, help_cards
from pbm.render.names import (
    HELP_FILES,
    VOTE_SECTION,
    help_file,
    short_game,
    short_name,
    title_label,
)
from pbm.render.names import command_words as _command_words
from pbm.render.refusals import nothing_awaited
from pbm.render.sms_news import (
    STARTED_KIND,
    explain_ships,
    fit_with_news,
    news_left_out,
    news_parts,
    said_by_prompt,
    ship_legend,
)
from pbm.replies.menu import MenuOption

_BY_ARGUMENT_VERBS = ("VOTE", "CHOOSE", "SHOOT", "GIVE")


#: Optional decisions: offered after the menu by their word, never numbered into it.
OPTIONAL_VERBS = frozenset({"ATLANTIS"})


def _sms_options(menu: Sequence[MenuOption], width: int | None, collapse: bool,
                 hand: Mapping[int, str] | None = None) -> str:
    """The menu for an SMS: ``1=VIEW _ _ 2=REVEAL _ ...``, or ``SHOOT: 1=Ann 3=Cleo`` when
    every option is one verb picked by number; names cut to ``width``; with ``collapse``
    long lists of targets become one template (``MAROON name``). An optional decision
    (ATLANTIS) is never numbered among them: it follows as ``Or ATLANTIS (optional)``."""
    optional = [o for o in menu if o.verb in OPTIONAL_VERBS]
    menu = [o for o in menu if o.verb not in OPTIONAL_VERBS]
    if not menu:
        return " ".join(_("{verb} (optional)").format(verb=_command_words(o.verb))
                        for o in optional)
    tail = "".join(_(" Or {verb} (optional).").format(verb=_command_words(o.verb))
                   for o in optional)
    return _sms_menu(menu, width, collapse, hand) + tail


def _korean_verbs(menu: Sequence[MenuOption]) -> str:
    """The shortest Korean menu: each option's number and verb (``1=확인 2=공개``), one
    template per verb whose targets are many."""
    items: list[str] = []
    for option in menu:
        if option.verb in OPTIONAL_VERBS:
            continue
        word = _command_words(option.verb)
        if option.is_template:
            items.append(_command_words(option.display))
        elif option.verb == "VOTE":
            items.append(f"{option.number}")
        else:
            items.append(f"{option.number}={word}")
    return " ".join(items)


def _sms_menu(menu: Sequence[MenuOption], width: int | None, collapse: bool,
              hand: Mapping[int, str] | None = None) -> str:
    plain = [o for o in menu if not o.is_template]
    verbs = {o.verb for o in plain}
    if plain and len(verbs) == 1 and next(iter(verbs)) in _BY_ARGUMENT_VERBS:
        verb = next(iter(verbs))
        items: list[str] = []
        for option in menu:
            if option.is_template or option.verb != verb:
                items.append(f"{option.number}={_command_words(option.display)}")
                continue
            arg = option.display.split(" ", 1)[1] if " " in option.display else ""
            if verb == "VOTE" and hand is not None:
                arg = hand.get(option.number, arg)
            elif width is not None:
                arg = short_name(arg, width)
            items.append(f"{option.number}={arg}")
        if verb == "CHOOSE":
            return " ".join(_("{n}=card {n}").format(n=o.number) for o in plain)
        if collapse and verb in ("SHOOT", "GIVE"):
            return _("{verb} name or seat no.").format(verb=_command_words(verb))
        return ("" if verb == "VOTE" else f"{_command_words(verb)}: ") + " ".join(items)
    items = []
    seen_templates: set[str] = set()
    for option in menu:
        display = option.display
        if collapse and not option.is_template and option.verb in (
                "MAROON", "MARQUE", "SHOOT", "GIVE") and len(
                [o for o in menu if o.verb == option.verb]) > 1:
            template = {"MAROON": _("MAROON name"), "MARQUE": _("MARQUE name FD/JR"),
                        "SHOOT": _("SHOOT name"), "GIVE": _("GIVE name")}[option.verb]
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
            verb, _sep, rest = display.partition(" ")
            if option.verb == "MARQUE":
                name, _sep, ship = rest.rpartition(" ")
                display = f"{verb} {short_name(name, width)} {ship}"
            else:
                display = f"{verb} {short_name(rest, width)}"
        items.append(f"{option.number}={_command_words(display)}")
    return " ".join(items)


def _sms_awaited(model: Mapping[str, Any], heads: Sequence[str]) -> str:
    """A prompt by SMS: ``heads`` (the game's name and what comes before the prompt, e.g.
    the game-start facts; longest first, one always kept), the news, what is awaited, the
    menu, the face-down row, the deadline (always) and the pointer to more."""
    awaited = model["awaited"]
    deadline = model["deadline"]
    # a prompt never drops its deadline: its short form at least (``By Tue 18:00 UTC.``)
    by = [deadline["sentence"], _("By {when}.").format(when=deadline["short"])] \
        if deadline else [""]
    menu = awaited["menu"]
    hand = _vote_hand(model)
    info = awaited["sms_info"]
    reply = _("Reply ")
    options = [
        reply + _sms_options(menu, None, False, hand),
        reply + _sms_options(menu, 10, False, hand),
        reply + _sms_options(menu, 6, False, hand),
        reply + _sms_options(menu, 6, True, hand),
        _("Reply STATUS for your options."),
    ]
    head_alts = [awaited["sms_head"], awaited["sms_head"][:60]]
    if is_korean():  # shorter forms before giving up the menu
        options[-1:-1] = [reply + _sms_options(menu, 4, True, hand),
                          reply + _korean_verbs(menu)]
        head_alts = [awaited["sms_head"], awaited["sms_short"] or awaited["sms_head"][:40]]
    payload = model["ctx"].payload  # "Game on!" says the game has begun
    started = isinstance(payload, Prompt | GameStarted) and payload.started
    said = said_by_prompt(model)
    lines = [line for line in model["recap"]["lines"] if line["seq"] not in said
             and not (started and line["kind"] == STARTED_KIND)]
    news, news_order, news_rank = news_parts(lines, model["table_talk"])
    left_out = news_left_out(lines, model["table_talk"]) + model["recap"]["dropped"]
    legend = ship_legend(" ".join([*heads[:1], head_alts[0], options[0], info]))
    parts = [
        list(heads),
        *news,
        head_alts,
        options,
        [f"({legend})" if legend else "", ""],
        [info, info[:80], ""],
        by,
        [_("NEWS/STATUS=more") if news else _("STATUS=full picture"), _("STATUS=all")],
    ]
    n = len(news)
    at_head, at_menu, at_legend, at_info, at_by, at_more = range(n + 1, n + 7)
    urgent = [1 + k for k in news_order if news_rank[k] < 3]  # the reader's own, talk
    first = (at_menu, at_head) if is_korean() else (at_head, at_menu)  # Korean: menu first
    # the deadline's short form is always kept (a part without ""), its sentence after the
    # menu; the face-down row before the news; FD/JR spelled out before the news for a
    # Korean reader (who has the room: KO_SMS_PARTS), after it for an English one
    early, late = ((at_legend,), ()) if is_korean() else ((), (at_legend,))
    priority = (*first, at_by, 0, at_more, at_info, *early, *urgent,
                *[1 + k for k in news_order if news_rank[k] >= 3], *late)
    return fit_with_news(parts, range(1, n + 1), left_out, priority)


def _sms(ctx: MessageContext, model: Mapping[str, Any]) -> str:
    """The SMS form: at most 2 GSM-7 segments, the game named, STATUS for the full picture."""
    kind, payload = ctx.kind, ctx.payload
    msg = model["msg"]
    game = short_game(ctx.game_name)
    head = _("Tortuga {game}:").format(game=game)
    awaited = model["awaited"]
    me = model["me"]
    if asks_to_join(payload):
        inviter = msg["inviter"]
        players = msg["players"]
        who = _("{name} invites you").format(name=short_name(inviter, 20)) if inviter \
            else _("You are invited")
        size = _(" ({n} players)").format(n=len(players)) if players else ""
        deadline = model["deadline"]
        again = _("Reminder: ") if kind is not MessageKind.INVITATION else ""
        return fit_sms([
            [_("{again}Tortuga 1667 by text: {who} to game {game}{size}.").format(
                again=again, who=who, game=game, size=size)],
            [_("Reply JOIN to play or DECLINE.")],
            [_("Answer by {when}.").format(when=deadline["short"]) if deadline else ""],
            [_("Times are {zone}: ZONE city changes it.").format(zone=model["time_zone"]),
             _("ZONE city sets your time."), ""],
            [_("HELP for how to play."), ""],
        ])
    if kind is MessageKind.TABLE_TALK:
        speaker = short_name(str(msg["from"]), 20)
        return relay_sms(_("{head} {name} says:").format(head=head, name=speaker),
                         str(msg["text"]), _("Reply SAY text to answer all."),
                         _("(cut: LOG or email has it all)"))
    if kind is MessageKind.PAUSED:
        reason = msg["reason"] or _("the admin paused it")
        return fit_sms([[head], [_("game paused ({reason}).").format(reason=reason),
                                 _("game paused.")],
                        [_("Nothing is awaited until it resumes.")]])
    if kind is MessageKind.REPLY:
        return _sms_reply(model, head)
    if awaited and kind in (MessageKind.PROMPT, MessageKind.STATUS, MessageKind.REMINDER,
                            MessageKind.FINAL_WARNING, MessageKind.RESUMED,
                            MessageKind.SEAT_REPLACED, MessageKind.GAME_STARTED,
                            MessageKind.NOTICE):
        prefix = {MessageKind.REMINDER: _("Reminder!"),
                  MessageKind.FINAL_WARNING: _("LAST CALL!"),
                  MessageKind.RESUMED: _("Game resumed."),
                  MessageKind.SEAT_REPLACED: _("You took over seat {n}, you are {team}.").format(
                      n=me["number"], team=me["loyalty_name"]) if me
                  else _("You took over a seat."),
                  MessageKind.GAME_STARTED: _sms_start(me) if me else _("Game on!"),
                  }.get(kind, "")
        prefixes = [prefix]
        if me and (kind is MessageKind.GAME_STARTED or (
                isinstance(payload, Prompt) and payload.started)):
            # the first prompt of a seat that must act at once (the Captains placing the
            # starting treasure) carries the game-start facts: its team above all
            prefixes = [_sms_start(me), _sms_start(me, short=True)]
        if isinstance(payload, Reminder) and payload.if_silent_sms:
            # what is played for this decision if no reply comes
            prefixes = [p + _(" No reply = {default}.").format(default=payload.if_silent_sms)
                        for p in prefixes]
        folded = " ".join(model["folded"])
        return _sms_awaited(model, [" ".join(x for x in (head, folded, p) if x)
                                    for p in prefixes])
    if kind is MessageKind.GAME_STARTED and me:
        return fit_sms([[f"{head} {_sms_start(me)}"],
                        [_("You are {where}.").format(where=me["where"])],
                        [_("Reply STATUS for the board."), _("STATUS=board")]])
    if kind is MessageKind.TIMED_OUT:
        if model["played"]:
            return fit_sms([[head], [_("time ran out, {move} was played for you.").format(
                move=_command_words(str(model["played"])))], [_("STATUS=full picture"), ""]])
        return fit_sms([[head], [_("time ran out; the game is paused.")]])
    if kind is MessageKind.GAME_OVER:
        return _sms_game_over(model, head)
    if kind in (MessageKind.VOTE_RESULT, MessageKind.NOTICE):
        first = model["vote_result"]["text"] if kind is MessageKind.VOTE_RESULT and \
            model["vote_result"] else model["headline"].rstrip(".") + "."
        lines = list(model["recap"]["lines"])
        # the headline's event stays where it happened (after its cause); told first only
        # when it is no news line
        at = next((k for k, line in enumerate(lines)
                   if line["text"].rstrip(".") + "." == first), None)
        if at is not None:
            lines[at] = {**lines[at], "priority": -1}  # kept whatever else is dropped
        news, order, _ranks = news_parts(lines, model["table_talk"])
        left_out = news_left_out(lines, model["table_talk"]) + model["recap"]["dropped"]
        heads = [[first]] if at is None else []
        top = len(heads) + 1
        return fit_with_news([[head], *heads, *news, [_("NEWS/STATUS=more") if news else
                                                     _("STATUS=full picture"), ""]],
                             range(top, len(news) + top), left_out,
                             priority=[*range(top), len(news) + top,
                                       *[top + k for k in order]])
    if kind is MessageKind.STATUS:
        return fit_sms([[head], [_("Nothing is awaited from you now.")],
                        [_("You are {where}.").format(where=me["where"]) if me else ""],
                        [_("LOG=recent history"), ""]])
    return fit_sms([[head], [model["headline"]], [_("STATUS=full picture"), ""]])


def _sms_start(me: Mapping[str, Any], short: bool = False) -> str:
    """The game-start facts: the seat's number and team (and, with 2 players, the
    other's) and its Vote cards, whole (top/middle/bottom; ``short``: without saying so)."""
    hand = " ".join(f"{c['number']}={sms_card(c['sections'])}" for c in me["hand"])
    other = f" {me['other_team']}" if me.get("other_team") else ""
    cards = (_(" Vote cards: {hand}.") if short else
             _(" Vote cards (top/mid/bottom): {hand}.")).format(hand=hand) if hand else ""
    return _("Game on! Seat {n}: you are {team}.{other}{cards}").format(
        n=me["number"], team=me["loyalty_name"], other=other, cards=cards)


def _sms_game_over(model: Mapping[str, Any], head: str) -> str:
    """Game over by SMS: the result, the score, every loyalty unmasked, the winners named,
    the reader's own fate."""
    board = model["board"]
    me = model["me"]
    score = board["score"] if board else None
    result = model["headline"].rstrip(".") + "."
    scored = _("British {british}, French {french}.").format(
        british=score["british"], french=score["french"]) if score else ""
    loyalties = board["loyalties"] if board and board["loyalties"] else []
    winners = [x for x in loyalties if x["won"]]
    won = ""
    if me and loyalties:
        mine = next((x for x in loyalties if x["you"]), None)
        if mine is not None:
            won = (_("You were {team}: you won.") if mine["won"]
                   else _("You were {team}: you lost.")).format(team=mine["loyalty"])
    elif me:
        won = _("You were {team}.").format(team=me["loyalty_name"])
    names = ", ".join(x["name"] for x in winners)
    winners_line = _("Winners: {names}.").format(names=names) if names else ""
    teams = [", ".join(f"{short_name(x['name'], w)} {x['loyalty']}" for x in loyalties)
             for w in (20, 10, 6)] if loyalties else [""]
    told = model["ending"] or {}
    cause, why = told.get("cause") or "", told.get("why") or ""
    short = told.get("short") or why
    notes = " ".join(model["folded"])  # "We read your reply as REVEAL 1."
    return fit_sms([[head], [notes, ""], [result], [to_gsm7(cause), ""], [why, short],
                    [scored, ""], [won], [winners_line, ""],
                    [_("Teams: {teams}.").format(teams=t) for t in teams if t] + [""],
                    [_("Thanks for playing!"), ""]], priority=(0, 2, 3, 6, 8, 7, 5, 4, 1, 9))


# ------------------------------------------------------------------ SMS: STATUS, HELP, LOG

SMS_SYMBOL = {"CANNON": "Cannon", "TORCH": "Torch", "WATER": "Water", "BRITISH": "Brit",
              "FRENCH": "Fren", "SKULL": "Skull", "HELM": "Helm"}
#: The symbols in a Korean SMS (the glossary's words, the flags by their country).
SMS_SYMBOL_KO = {"CANNON": "대포", "TORCH": "횃불", "WATER": "물", "BRITISH": "영국",
                 "FRENCH": "프랑스", "SKULL": "해골", "HELM": "키"}
SMS_RANK = {"CAPTAIN": "Capt", "FIRST_MATE": "1stMate", "CABIN_BOY": "CabinBoy",
            "GOVERNOR": "Gov"}
SMS_STATUS_PARTS = 2  # STATUS by SMS: at most this many messages of 2 segments each
SMS_RANK_KO = {"CAPTAIN": "선장", "FIRST_MATE": "항해사", "CABIN_BOY": "초보선원",
               "GOVERNOR": "총독"}


def sms_card(card: Mapping[str, Any], section: str | None = None,
             mark: str | None = None) -> str:
    """A Vote card's symbols for SMS: one section (``Cannon+Torch``) or all three
    (``Cannon/Brit/Skull``: top, middle, bottom), the section ``mark`` (the one a vote
    counts) in capitals (``TORCH/Brit/Skull``)."""
    names = SMS_SYMBOL_KO if is_korean() else SMS_SYMBOL

    def one(symbols: Sequence[str]) -> str:
        return "+".join(names.get(x, x) for x in symbols) or _("blank")

    def few(symbols: Sequence[str]) -> str:  # a special card: 2Torch/2Fren/2Skull
        if len(symbols) > 1 and len(set(symbols)) == 1:
            return f"{len(symbols)}{names.get(symbols[0], symbols[0])}"
        return one(symbols)

    if section is not None:
        return one(card[section])
    if is_korean():  # Hangul has no capitals: the counted part in brackets
        return "/".join(f"[{few(card[part])}]" if part == mark else few(card[part])
                        for part in ("top", "middle", "bottom"))
    return "/".join(few(card[part]).upper() if part == mark else few(card[part])
                    for part in ("top", "middle", "bottom"))


def _sms_person(public: Mapping[str, Any], seat: int, me: int | None, width: int,
                kept_cards: bool = True) -> str:
    player = next(p for p in public["players"] if p["seat"] == seat)
    name = _("you") if seat == me else short_name(to_gsm7(player["name"]), width)
    rank_names = SMS_RANK_KO if is_korean() else SMS_RANK
    ranks = "+".join(rank_names.get(r, r) for r in player.get("ranks") or [])
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
                         for s in ship["line"]) or _("empty")
        rower = public["rowboats"].get(code)
        boat = _("; rowboat {who}").format(who=_sms_person(public, rower, me, width, kept)) \
            if rower is not None else ""
        parts.append(_("{ship}: {line}{boat}; holds B{british} F{french}.").format(
            ship=code, line=line, boat=boat, british=ship["british"], french=ship["french"]))
    ashore = ", ".join(_sms_person(public, s, me, width, kept)
                       for s in public["tortuga"]) or _("nobody")
    parts.append(_("Tortuga: {who}; B{british} F{french}.").format(
        who=ashore, british=public["tortuga_british"], french=public["tortuga_french"]))
    score = public["score"]
    parts.append(_("Galleon {galleon}. Score B{british} F{french}.").format(
        galleon=public["galleon"], british=score["british"], french=score["french"]))
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
    limit = SMS_MAX_SEPTETS  # a Korean reader's: SMS_MAX_KO_UNITS (fit_sms scales it)
    first = fit_sms([[_("{head} (1/{n}) Turn {turn}.").format(
                        head=head, n=n, turn=board_view["turn_number"])],
                     [_("You are {team}.").format(team=me["loyalty_name"]) if me else ""],
                     board], limit=limit)
    secrets: list[list[str]] = [[_("{head} (2/{n})").format(head=head, n=n)]]
    if me:
        hand = " ".join(f"{c['number']}={sms_card(c['sections'])}" for c in me["hand"])
        secrets.append([_("Vote cards (top/mid/bottom): {hand}.").format(hand=hand) if hand
                        else _("No Vote cards."),
                        _("Cards: {hand}.").format(hand=hand) if hand else ""])
        known = ", ".join(f"{p['position']}={p['title']}" for p in me["peeks"])
        secrets.append([_("You know: {cards}.").format(cards=known) if known
                        else _("You know no Event card.")])
        if me["kept"]:
            secrets.append([_("In front of you: {cards}.").format(cards=", ".join(me["kept"])),
                            ""])
    awaited = model["awaited"]
    deadline = model["deadline"]
    by = _(", by {when}").format(when=deadline["short"]) if deadline else ""
    if awaited:
        hand_map = _vote_hand(model)
        awaited_now = awaited["sms_head"].rstrip(".:?!")
        secrets.append([f"{awaited_now}{by}.", f"{awaited_now[:60]}{by}."])
        reply = _("Reply ")
        secrets.append([reply + _sms_options(awaited["menu"], None, False, hand_map),
                        reply + _sms_options(awaited["menu"], 8, False, hand_map),
                        reply + _sms_options(awaited["menu"], 6, True, hand_map),
                        _("HELP TURN for the moves.")])
        if awaited["sms_info"]:
            secrets.append([awaited["sms_info"], ""])
    else:
        secrets.append([_("Nothing is awaited from you now.") if board_view.get("vote")
                        else to_gsm7(nothing_awaited(model["board"], sentence=True))])
    secrets.append([_("LOG=recent history"), ""])
    return [first, fit_sms(secrets, limit=limit)]


def _vote_hand(model: Mapping[str, Any]) -> dict[int, str] | None:
    """Card number -> its symbols for the section being voted (None if no vote awaited)."""
    awaited = model["awaited"]
    if not awaited or not model["me"] or not awaited.get("vote"):
        return None
    section = VOTE_SECTION.get(awaited["vote"], "top")
    return {c["number"]: sms_card(c["sections"], mark=section) for c in model["me"]["hand"]}


def sms_help_texts(topic: str) -> list[str]:
    """The SMS help for ``topic``: one text, or two for HELP CARDS (the card commands,
    then every card's name and how to have one explained)."""
    cards = help_cards(topic)
    if len(cards) > 1:
        names = ", ".join(line.split(":", 1)[0] for line in cards)
        return [sms_help(topic), _("Event cards: {names}. Reply HELP and a card's name for "
                                   "what it does, e.g. HELP ALBATROSS.").format(names=names)]
    return [sms_help(topic)]


def sms_help(topic: str) -> str:
    """The short SMS help for ``topic`` ("" for the general help); a card's name gives
    that card's effect (HELP ALBATROSS, from the engine's card table)."""
    cards = help_cards(topic)
    if len(cards) == 1:
        return _("{card} HELP CARDS=all cards").format(card=to_gsm7(cards[0]))
    name = HELP_FILES.get(topic.upper(), "general")
    path = TEMPLATES / "help" / f"{help_file(name, sms=True)}.txt"
    return path.read_text(encoding="utf-8").strip()


def _sms_log(model: Mapping[str, Any], head: str) -> list[str]:
    """LOG by SMS: the newest public events that fit in 2 messages, oldest first."""
    lines = [to_gsm7(e["text"]) for e in model["log_events"] if e.get("audience") is None
             and e.get("kind") not in RECAP_SKIP]
    messages: list[str] = []
    size = utf16_units if is_korean() else gsm7_septets
    budget = (SMS_MAX_KO_UNITS if is_korean() else SMS_MAX_SEPTETS) - size(head) - 12
    for _part in range(SMS_STATUS_PARTS):
        chunk: list[str] = []
        while lines and size(" ".join([lines[-1], *chunk])) <= budget:
            chunk.insert(0, lines.pop())
        if not chunk:
            break
        messages.insert(0, " ".join(chunk))
    if not messages:
        return [fit_sms([[head], [_("LOG: nothing has happened yet.")]])]
    n = len(messages)
    log = _command_words("LOG")
    return [fit_sms([[f"{head} {log}{f' ({i + 1}/{n})' if n > 1 else ''}:"], [text]])
            for i, text in enumerate(messages)]


def sms_messages(ctx: MessageContext, model: Mapping[str, Any]) -> list[str]:
    """Every SMS of one message: STATUS, and a reply asking for HELP or LOG, may take two
    (each at most 2 segments); everything else is one. FD and JR are spelled out once in
    each text that uses them, where that fits (``explain_ships``)."""
    return [explain_ships(text) for text in _sms_messages(ctx, model)]


def _sms_messages(ctx: MessageContext, model: Mapping[str, Any]) -> list[str]:
    head = _("Tortuga {game}:").format(game=to_gsm7(short_game(ctx.game_name)))
    if ctx.kind is MessageKind.STATUS:
        return _sms_status(model, head)
    if ctx.kind is MessageKind.REPLY and (model["help"] is not None or model["show_log"]):
        reply = model["reply"]
        out = []
        if model["done"] or model["rejected"] or reply["not_understood"]:
            out.append(_sms_reply(model, head, hint=False))
        if model["help"] is not None:
            out += [fit_sms([[head], [text]]) for text in sms_help_texts(str(model["help"]))]
        if model["show_log"]:
            out += _sms_log(model, head)
        return out[:SMS_STATUS_PARTS + 1]
    return [_sms(ctx, model)]


def _sms_reply(model: Mapping[str, Any], head: str, hint: bool = True) -> str:
    reply = model["reply"]
    payload = model["ctx"].payload
    if isinstance(payload, Reply) and payload.brief:  # many replies that did nothing
        return fit_sms([[head], [_("Not understood, nothing changed.")],
                        [_("Reply a number from your last menu, STATUS for it again, or HELP."),
                         _("Reply STATUS or HELP.")]])
    parts: list[list[str]] = [[head]]
    for answer in model["answers"]:
        # Korean: the answer without its asides in brackets first
        shorter = [re.sub(r" ?\([^()]*\)", "", answer)] if is_korean() else []
        parts.append([answer, *shorter, answer[:150].rsplit(" ", 1)[0] + "..."])
    seen = model["viewed"] if not any(
        line["kind"] == "event.viewed" for line in model["outcome"]) else []
    if seen:
        cards = ", ".join(f"{c['position']}={c['title']}" for c in seen)
        parts.append([_("You saw {cards} (only you know).").format(cards=cards)])
    if model["done"]:
        parts.append([_("Done: {moves}.").format(moves="; ".join(
            _command_words(d) for d in model["done"]))])
    outcome, outcome_order, _ranks = news_parts(model["outcome"], limit=6)
    first_outcome = len(parts)
    parts += outcome
    for item in model["rejected"][:1]:
        reason = str(item["reason"]).rstrip(".")
        command = _command_words(str(item["command"]))
        parts.append([_("Not done: {command}: {reason}.").format(command=command, reason=reason),
                      _("Not done: {command}: {reason}.").format(
                          command=command, reason=reason.split(". ")[-1]),
                      _("Not done: {command}.").format(command=command)])
    for reader_hint in model["hints"]:
        parts.append([reader_hint, ""])
    for item in reply["not_understood"][:1]:
        line = short_name(item["line"], 30)
        did_you_mean = _(" Did you mean {suggestion}?").format(
            suggestion=_command_words(str(item["suggestion"]))) if item.get("suggestion") else ""
        parts.append([_('Not understood: "{line}".{hint}').format(line=line, hint=did_you_mean),
                      _("Not understood.{hint}").format(hint=did_you_mean)])
    if reply["meta"] and not (model["done"] or model["rejected"] or reply["not_understood"]
                              or model["answers"]):
        names = ", ".join(_command_words(m["name"]) for m in reply["meta"])
        parts.append([_("OK: {names}.").format(names=names)])
    awaited = model["awaited"]
    if awaited and awaited["kind"] == "ATLANTIS":  # optional: offered, never awaited
        parts.append([_("Nothing awaited. You may reply ATLANTIS (optional)."), ""])
    elif awaited:
        hand = _vote_hand(model)
        still = _("Still awaited: ")
        options = [
            still + _sms_options(awaited["menu"], None, False, hand),
            still + _sms_options(awaited["menu"], 10, False, hand),
            still + _sms_options(awaited["menu"], 6, True, hand),
            _("Reply STATUS for your options."),
        ]
        parts.append(options)
    elif len(parts) == 1 and not outcome:  # "ok", "thanks": nothing read, nothing asked
        parts.append([to_gsm7(nothing_awaited(model["board"], sentence=True)), ""])
    if hint:
        parts.append([_("HELP=how to reply"), ""])
    if not outcome:
        return fit_sms(parts)
    # what the move did comes right after the rest that must be said (done, not done, the
    # menu still awaited), the reader's own lines first; the HELP hint last
    others = [i for i in range(len(parts))
              if not first_outcome <= i < first_outcome + len(outcome)]
    main, last = others[:-1] if hint else others, others[-1:] if hint else []
    return fit_sms(parts, priority=[*main[:first_outcome],
                                    *[first_outcome + k for k in outcome_order],
                                    *main[first_outcome:], *last])
