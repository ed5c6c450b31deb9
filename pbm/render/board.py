"""The per-seat board and seat models templates see: the board, the recipient's own
secrets and position, what is awaited from them (with the reply menu), the board picture."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.events import DecisionKind
from pbm.board_image import draw_board
from pbm.i18n.languages import traits
from pbm.i18n.translate import N_, _, current
from pbm.messages import MessageContext, board_image_key
from pbm.render.names import (
    RANK_NAMES,
    SHIP_NAMES,
    SYMBOL_NAMES,
    TEAM_NAMES,
    VOTE_RULE,
    game_word,
    title_label,
)
from pbm.replies.menu import MenuOption, build_menu


def board_key_of(ctx: MessageContext) -> str | None:
    """The key of the board picture of this message's game version (None without a view)."""
    if ctx.seat_view is None:
        return None
    return board_image_key(ctx.game_id, int(ctx.seat_view["public"]["version"]),
                           ctx.language)


def board_png(public_view: dict[str, Any], language: str = "en") -> bytes:
    """The public board as a PNG, labelled in ``language`` (see :mod:`pbm.board_image`)."""
    return draw_board(public_view, language)


def _ranks(player: Mapping[str, Any]) -> str:
    return " + ".join(game_word("ranks", r, RANK_NAMES[r]) if r in RANK_NAMES else r
                      for r in player.get("ranks") or [])


def _where(player: Mapping[str, Any]) -> str:
    if traits(current()).short_places:
        return _short_where(player)
    loc = player["location"]
    ranks = _ranks(player)
    if loc in SHIP_NAMES:
        return _("{ranks} of the {ship}").format(ranks=ranks or _("crew"),
                                                 ship=game_word("ships", loc, SHIP_NAMES[loc]))
    if loc == "TORTUGA":
        return _("Governor of Tortuga") if ranks else _("on Tortuga")
    ship = loc.split("_")[0]
    return _("in the {ship}'s rowboat").format(
        ship=game_word("ships", ship, SHIP_NAMES[ship]) if ship in SHIP_NAMES else ship)


def _short_where(player: Mapping[str, Any]) -> str:
    """``"FD Captain+Cabin Boy"``, ``"Tortuga Governor"``, ``"in the JR rowboat"`` (in the
    reader's language: ``"FD 선장"``, ``"JR 보트"``, ``"토르투가"``)."""
    loc = player["location"]
    ranks = "+".join(game_word("ranks", r, RANK_NAMES.get(r, r))
                     for r in player.get("ranks") or [])
    if loc == "TORTUGA" and game_word("places", "TORTUGA", "Tortuga") in ranks:
        return ranks  # 토르투가 총독: the rank names the place
    if loc.endswith("_ROWBOAT"):
        return _("in the {ship} rowboat").format(ship=loc.split("_")[0])
    place = game_word("places", "TORTUGA", "Tortuga") if loc == "TORTUGA" else loc
    return f"{place} {ranks}" if ranks else _("on {place}").format(place=place)


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
            "code": code, "name": game_word("ships", code, SHIP_NAMES[code]),
            "crew": crew(ship["line"]),
            "british": ship["british"], "french": ship["french"],
            "rowboat": None if rower is None else players[rower]["name"],
            "rowboat_you": rower is not None and rower == me,
            "rowboat_seat": rower,
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
            "kind": vote["kind"],
            "name": game_word("actions", vote["kind"], vote["kind"].capitalize()),
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
        # whom the game waits for now (the turn's player, or another: a seat forced to
        # choose, a captain placing treasure before the first turn)
        "awaiting_names": list(dict.fromkeys(
            players[seat]["name"] for seat, _kind in public.get("awaiting") or ()
            if seat in players)),
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
        "winner_name": game_word("teams", public["winner"], TEAM_NAMES[public["winner"]])
        if public.get("winner") in TEAM_NAMES else "",
        "end_reason": score.get("reason"),
        "loyalties": None if loyalties is None else [
            {"name": players[s]["name"], "key": x,
             "loyalty": game_word("teams", x, TEAM_NAMES[x]) if x in TEAM_NAMES else x,
             "won": x == public.get("winner"), "you": s == me}
            for s, x in enumerate(loyalties)
        ],
        "players": [{"number": p["seat"] + 1, "name": p["name"], "where": _where(p),
                     "hand_size": p["hand_size"], "you": p["seat"] == me}
                    for p in public["players"]],
    }


_LOYALTY_TEXT = {
    "BRITISH": N_("British: you win if the British holds and area hold more treasure than "
                  "the French at the end."),
    "FRENCH": N_("French: you win if the French holds and area hold more treasure than the "
                 "British at the end."),
    "DUTCH": N_("Dutch: you win alone if the game ends in a tie."),
}


def me_model(seat_view: Mapping[str, Any]) -> dict[str, Any]:
    """The recipient's own secrets and position."""
    public = seat_view["public"]
    player = next(p for p in public["players"] if p["seat"] == seat_view["seat"])
    hand = [{
        "number": c["number"],
        "text": c["text"],
        "top": " + ".join(game_word("symbols", s, SYMBOL_NAMES.get(s, s)) for s in c["top"]),
        "middle": " + ".join(game_word("symbols", s, SYMBOL_NAMES.get(s, s))
                             for s in c["middle"]),
        "bottom": " + ".join(game_word("symbols", s, SYMBOL_NAMES.get(s, s))
                             for s in c["bottom"]),
        "sections": {"top": c["top"], "middle": c["middle"], "bottom": c["bottom"]},
    } for c in seat_view["hand"]]
    n = len(public["players"])
    loyalty = seat_view["loyalty"]
    team_note = ""
    other_team = ""
    if n == 2:
        other = next((p for p in public["players"] if p["seat"] != seat_view["seat"]), None)
        theirs = {"BRITISH": "FRENCH", "FRENCH": "BRITISH"}.get(loyalty, "")
        if other is not None and theirs:
            other_team = _("{name} is {team}.").format(
                name=other["name"], team=game_word("teams", theirs, TEAM_NAMES[theirs]))
        team_note = (_("In a 2-player game each of you knows the other's team: {note}").format(
            note=other_team) if other_team
            else _("In a 2-player game each of you knows the other's team."))
    return {
        "seat": seat_view["seat"],
        "number": seat_view["seat"] + 1,
        "name": seat_view["name"],
        "loyalty": loyalty,
        "loyalty_name": game_word("teams", loyalty, TEAM_NAMES.get(loyalty, loyalty))
        if loyalty in TEAM_NAMES else loyalty,
        "loyalty_text": _(_LOYALTY_TEXT[loyalty]) if loyalty in _LOYALTY_TEXT else loyalty,
        "team_note": team_note,
        "other_team": other_team,
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
    return {"MAROON": _("the Captain's maroon order"), "MUTINY": _("a successful Mutiny"),
            "PISTOL": _("a Pistol shot"), "BLACK_SPOT": _("the Black Spot")}.get(
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
    sms_short = ""  # a shorter SMS headline, for the UCS-2 budget of a Korean SMS
    if not decisions:  # only the Atlantis standing order is possible
        headline = _("Nothing is awaited from you now, but you may order Atlantis.")
        sms_head = _("Nothing awaited; you may order ATLANTIS.")
        kind = "ATLANTIS"
    else:
        d = decisions[0]
        kind = d["kind"]
        c = d.get("context") or {}
        if kind == DecisionKind.ACTION:
            of = c.get("of", 1)
            step = _(" (action {n} of {of})").format(n=c.get("action", 1), of=of) \
                if of > 1 else ""
            headline = _("Your turn{step}: choose one action.").format(step=step)
            sms_head = _("Your turn{step}, {where}.").format(step=step,
                                                             where=_short_where(player))
            sms_short = _("Your turn{step}.").format(step=step)
            details.append(_("You are {where}.").format(where=_where(player)))
            if of > 1:
                details.append(_("In a 2-player game you take 2 actions per turn: you may "
                                 "send both now, one per line."))
            down = public["row"]
            peeks = {int(k): title_label(v) for k, v in seat_view["peeks"].items()}
            sms_info = _("Face down: {cards}.").format(cards=" ".join(map(str, down))) \
                if down else ""
            known = [f"{p}={t}" for p, t in sorted(peeks.items()) if p in down]
            if known:
                sms_info += _(" You saw {cards}.").format(cards=", ".join(known))
        elif kind == DecisionKind.VOTE:
            vote = c.get("vote", "")
            caller = names.get(c.get("caller", -1), "?")
            article = "an" if vote == "ATTACK" else "a"
            counted = {"ATTACK": _("Cannon/Torch/Water"), "BRAWL": _("flags"),
                       "MUTINY": _("Skull/Helm")}.get(vote, "")
            word = game_word("actions", vote, vote.capitalize()) if vote else ""
            if c.get("caller") == me:
                headline = _("You called {article} {vote}: play a Vote card.").format(
                    article=article, vote=word)
                sms_head = _("You called {article} {vote} ({counted} count: the part in "
                             "CAPITALS). Play a card:").format(article=article, vote=word,
                                                               counted=counted)
            else:
                headline = _("{caller} called {article} {vote}: play a Vote card.").format(
                    caller=caller, article=article, vote=word)
                sms_head = _("{caller} called {article} {vote} ({counted} count: the part in "
                             "CAPITALS). Play a card:").format(caller=caller, article=article,
                                                               vote=word, counted=counted)
            sms_short = _("{vote} vote: play a card:").format(vote=word)
            details.append(_(VOTE_RULE[vote]) if vote in VOTE_RULE else "")
            details.append(_("Nobody learns who played which card; 1 card from the deck is "
                             "added. You draw a new card afterwards."))
        elif kind == DecisionKind.CHOOSE:
            a, b = c.get("positions", ["?", "?"])
            by = names.get(c.get("forced_by", -1), _("Someone"))
            headline = _("{by} forced you to reveal Event card {a} or {b}: choose one. "
                         "You reveal it and resolve it.").format(by=by, a=a, b=b)
            sms_head = _("{by} forced you: reveal card {a} or {b}.").format(by=by, a=a, b=b)
            peeks = {int(k): title_label(v) for k, v in seat_view["peeks"].items()}
            known = [f"{p}={peeks[p]}" for p in (a, b) if p in peeks]
            if known:
                details.append(_("You have seen: {cards}.").format(cards=", ".join(known)))
                sms_info = _("You saw {cards}.").format(cards=", ".join(known))
        elif kind == DecisionKind.LETTER_OF_MARQUE and not any(o.verb == "MARQUE" for o in menu):
            # nobody on Tortuga or in a rowboat: the menu offers no move, say so
            headline = _("You revealed a Letter of Marque: nobody is on Tortuga or in a "
                         "rowboat to move now, so SAVE it for a later turn.")
            sms_head = _("Letter of Marque: nobody to move now; SAVE it.")
        elif kind == DecisionKind.LETTER_OF_MARQUE:
            headline = _("You revealed a Letter of Marque: move a player from Tortuga or a "
                         "rowboat to the back of a ship now, or SAVE it for a later turn.")
            sms_head = _("Letter of Marque: move someone to a ship, or SAVE it.")
        elif kind == DecisionKind.SHOOT:
            headline = _("You revealed a Pistol: choose who to shoot. They are marooned.")
            sms_head = _("Pistol! Who do you shoot?")
        elif kind == DecisionKind.GIVE:
            headline = _("You revealed a Treasure Map: choose who gets it (you may keep it).")
            sms_head = _("Treasure Map: who gets it?")
        elif kind == DecisionKind.TAKE:
            if c.get("source") == "GALLEON":
                headline = _("Your Attack succeeded! Take 1 treasure from the Galleon: "
                             "choose your hold.")
                sms_head = _("Attack won! Galleon treasure to which hold?")
            else:
                headline = _("Your Attack succeeded! The Galleon is empty: take 1 treasure "
                             "from a hold of the other ship into a hold of yours.")
                sms_head = _("Attack won! Take from which hold, to which?")
        elif kind == DecisionKind.PLACE:
            ship = game_word("ships", c["ship"], SHIP_NAMES[c["ship"]]) \
                if c.get("ship", "") in SHIP_NAMES else _("your ship")
            headline = _("You are the Captain of the {ship}: choose the hold for its "
                         "starting treasure.").format(ship=ship)
            sms_head = _("Captain of the {ship}: place your starting treasure.").format(
                ship=ship)
        elif kind == DecisionKind.FOUNTAIN:
            marooner = c.get("by")
            who = _(" by {name}").format(name=names[marooner]) \
                if marooner is not None and marooner in names else ""
            headline = _("You are about to be marooned ({cause}{who}). You own the Fountain "
                         "of Youth: stay or go?").format(cause=_cause_text(c.get("cause", "")),
                                                         who=who)
            sms_head = _("About to be marooned. Fountain of Youth: stay or go?")
        else:
            headline = _("A decision is awaited from you.")
            sms_head = _("Your decision is awaited.")
    return {
        "kind": kind,
        "headline": headline,
        "details": [x for x in details if x],
        "sms_head": sms_head,
        "sms_info": sms_info,
        "sms_short": sms_short,
        "vote": (decisions[0].get("context") or {}).get("vote") if decisions else None,
        "menu": menu,
        "example": _example(menu),
    }


def _example(menu: Sequence[MenuOption]) -> str:
    for option in menu:
        if option.example:
            return option.example
    return menu[0].display if menu else "STATUS"
