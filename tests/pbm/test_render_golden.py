"""Golden files: the exact email text and SMS of one message of every kind and one prompt
of every decision kind, one HTML email and the board picture (tests/golden/).

Inputs are hand-built seat views (tests/fixtures/seatviews.py), so the goldens change only
when the messages do. After an intended change: ``UPDATE_GOLDEN=1 pytest <this file>``,
then read the diff (and look at the PNG) before committing.
"""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import board_png, render
from tests.fixtures.messages import make_context
from tests.fixtures.seatviews import scenario

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
DEADLINE = datetime(2025, 3, 5, 18, 0, tzinfo=UTC)
NOW = datetime(2025, 3, 3, 22, 0, tzinfo=UTC)  # 1 day 20 hours before the deadline

EVENTS = [
    {"kind": "turn.started", "text": "It is Dmitri's turn.", "audience": None, "data": {}},
    {"kind": "event.viewed", "text": "Dmitri looked at Event card(s) 2 and 4.",
     "audience": None, "data": {"seat": 3, "positions": [2, 4]}},
    {"kind": "pawn.moved", "text": "Bartholomew moved from the Jolly Roger to its rowboat.",
     "audience": None, "data": {}},
    {"kind": "vote_card.drawn", "text": "You drew Torch / British / Helm.", "audience": [0],
     "data": {}},
]
VOTE_RESULT = {"kind": "vote.result", "audience": None,
               "text": "The Attack vote shows cannon, torch, torch, water: success.",
               "data": {"vote": "ATTACK", "caller": 0, "outcome": "SUCCESS",
                        "symbols": ["CANNON", "TORCH", "TORCH", "WATER"],
                        "cards": ["Cannon / British / Skull", "Torch / French / Helm",
                                  "Torch / British / Skull", "Water / French / Helm"],
                        "counts": {"CANNON": 1, "TORCH": 2, "WATER": 1}}}
REVEAL_BLACK_SPOT = [  # seat 3 (Dmitri) revealed a Black Spot while on Tortuga
    {"seq": 10, "kind": "event.revealed", "text": "Dmitri revealed Black Spot (card 4).",
     "audience": None, "data": {"seat": 3, "position": 4, "title": "BLACK_SPOT"}},
    {"seq": 11, "kind": "pawn.marooned", "text": "Dmitri was marooned from Tortuga to Tortuga.",
     "audience": None, "data": {"seat": 3, "source": "TORTUGA", "cause": "BLACK_SPOT"}},
    {"seq": 12, "kind": "vote_card.lost", "audience": None, "data": {"seat": 3, "lost": True},
     "text": "Dmitri was marooned on Tortuga again and lost a Vote card."},
    {"seq": 13, "kind": "vote_card.lost", "audience": [3], "data": {"seat": 3, "card": 12},
     "text": "You lost the Vote card Torch / French / Skull."},
    {"seq": 14, "kind": "event.refilled", "audience": None, "data": {"position": 4},
     "text": "A new face-down Event card was laid at 4."},
]
PLAYERS = [{"seat": i, "number": i + 1, "name": n}
           for i, n in enumerate(("Ann", "Bartholomew", "Cleo", "Dmitri", "Émile"))]


def _over_view() -> dict[str, Any]:
    view = scenario("waiting")
    assert view is not None
    view["loyalty"] = "FRENCH"
    public = view["public"]
    public.update(status="over", winner="FRENCH", loyalties=[
        "BRITISH", "FRENCH", "DUTCH", "FRENCH", "BRITISH"], awaiting=[])
    public["score"].update(over=True, winner="FRENCH", british=2, french=4,
                           reason="the Spanish Armada arrived")
    return view


def _ctx(kind: MessageKind, view: dict[str, Any] | None, **extra: Any) -> MessageContext:
    events = extra.pop("events", EVENTS)
    seat = view["seat"] if view else 0
    name = view["name"] if view else "Ann"
    visible = [e for e in events if e["audience"] is None or seat in e["audience"]]
    if kind is MessageKind.INVITATION:
        extra["players"] = tuple(p["name"] for p in PLAYERS)
    return make_context(kind, {"reply_to": "play+Zq7tK2mB9x@tortuga.example", **extra},
                        game_id=7, game_name="Nassau", seat=seat,
                        player_name=name, time_zone="America/New_York", seat_view=view,
                        events=visible, deadline=DEADLINE, now=NOW)


def cases() -> dict[str, MessageContext]:
    prompts = {f"prompt_{name}": _ctx(MessageKind.PROMPT, scenario(name)) for name in (
        "place", "turn", "vote", "choose", "marque", "shoot", "give", "take", "take_ship",
        "fountain", "two_player", "rowboat", "governor", "vote_el_dorado")}
    turn = scenario("turn")
    return {
        **prompts,
        "invitation": _ctx(MessageKind.INVITATION, None, inviter="Ann", respond_by_hours=72,
                           message="Sunday game night, by mail! <3",
                           timing={"action_hours": 24, "vote_hours": 12, "other_hours": 12}),
        "game_started": _ctx(MessageKind.GAME_STARTED, scenario("waiting"), started=True),
        "notice": _ctx(MessageKind.NOTICE, scenario("waiting"), events=[
            {"kind": "pawn.marooned", "text": "Captain Ann marooned Dmitri to Tortuga.",
             "audience": None, "data": {}}]),
        "vote_result": _ctx(MessageKind.VOTE_RESULT, scenario("waiting"), result=VOTE_RESULT,
                            events=[VOTE_RESULT]),
        "reminder": _ctx(MessageKind.REMINDER, scenario("vote"), events=[]),
        "final_warning": _ctx(MessageKind.FINAL_WARNING, turn, policy="default", events=[],
                               grace_hours=1),
        "timed_out": _ctx(MessageKind.TIMED_OUT, scenario("waiting"), played="VIEW 1 3",
                          you=True, events=[]),
        "paused": _ctx(MessageKind.PAUSED, scenario("waiting"), reason="Ann is on holiday"),
        "resumed": _ctx(MessageKind.RESUMED, turn, paused_hours=26.5, events=[]),
        "seat_replaced": _ctx(MessageKind.SEAT_REPLACED, turn, old_name="Long John",
                              new_name="Ann", briefing=True),
        "table_talk": _ctx(MessageKind.TABLE_TALK, scenario("waiting"), speaker="Cleo",
                           text="Trust me, I'm <b>British</b> & proud!", events=[]),
        "reply": _ctx(MessageKind.REPLY, scenario("shoot"), events=[],
                      reply={"understood": [], "meta": [],
                             "not_understood": [{"line": "shot bart!!1", "reason":
                                                 "not a command", "suggestion": "SHOOT 2"}],
                             "ignored": ["Cheers"]},
                      done=[], rejected=[], help=None, log=False),
        "reply_done_help": _ctx(MessageKind.REPLY, scenario("waiting"), events=[],
                                reply={"understood": [{"line": "revael 3", "text": "REVEAL 3",
                                                       "display": "REVEAL 3", "legal_now": True,
                                                       "note": "read 'revael' as REVEAL"}],
                                       "meta": [], "not_understood": [], "ignored": []},
                                done=["REVEAL 3"], rejected=[], help="VOTE", log=False),
        "status": _ctx(MessageKind.STATUS, turn),
        # the answer to a REVEAL says what it did, to the sender first (issue 23)
        "reply_reveal_black_spot": _ctx(
            MessageKind.REPLY, scenario("waiting"), events=[],
            reply={"understood": [{"line": "4", "text": "REVEAL 4", "display": "REVEAL 4",
                                   "legal_now": True, "note": ""}],
                   "meta": [], "not_understood": [], "ignored": []},
            done=["REVEAL 4"], rejected=[], help=None, log=False,
            result={"events": REVEAL_BLACK_SPOT}),
        "reply_vote_caller": _ctx(
            MessageKind.REPLY, scenario("waiting"), events=[],
            reply={"understood": [], "meta": [], "not_understood": [], "ignored": []},
            done=["VOTE 1"], rejected=[], help=None, log=False,
            result={"events": [
                {"seq": 20, "kind": "vote.cast", "text": "You played Cannon / British / Helm.",
                 "audience": [3], "data": {"seat": 3, "cards": [5]}},
                {**VOTE_RESULT, "seq": 21, "text": "The Mutiny vote shows helm, helm, "
                 "skull: the Mutiny fails.", "data": {
                     **VOTE_RESULT["data"], "vote": "MUTINY", "caller": 3, "outcome": "FAILURE",
                     "symbols": ["HELM", "HELM", "SKULL"]}}]}),
        "notice_marooned": _ctx(MessageKind.NOTICE, scenario("waiting"), headline_seq=31,
                                headline="Ann was marooned from the Jolly Roger to Tortuga.",
                                events=[{"seq": 30, "kind": "event.revealed", "audience": None,
                                         "text": "Bartholomew revealed Pistol (card 2).",
                                         "data": {"seat": 1, "position": 2, "title": "PISTOL"}},
                                        {"seq": 31, "kind": "pawn.marooned", "audience": None,
                                         "text": "Ann was marooned from the Jolly Roger to "
                                                 "Tortuga.",
                                         "data": {"seat": 0, "source": "JR",
                                                  "cause": "PISTOL"}}]),
        "help_cards": _ctx(MessageKind.REPLY, scenario("waiting"), events=[],
                           reply={"understood": [], "meta": [{"name": "HELP", "arg": "CARDS"}],
                                  "not_understood": [], "ignored": []},
                           done=[], rejected=[], help="CARDS", log=False),
        "help_albatross": _ctx(MessageKind.REPLY, scenario("waiting"), events=[],
                               reply={"understood": [],
                                      "meta": [{"name": "HELP", "arg": "ALBATROSS"}],
                                      "not_understood": [], "ignored": []},
                               done=[], rejected=[], help="ALBATROSS", log=False),
        "game_started_two_player": _ctx(MessageKind.GAME_STARTED, scenario("two_player"),
                                        started=True, events=[]),
        "game_over": _ctx(MessageKind.GAME_OVER, _over_view(), aborted=False,
                          reason="the Spanish Armada arrived", events=[
                              {"kind": "game.over", "audience": None, "data": {},
                               "text": "The game is over: the French win."}]),
    }


def _check(path: Path, actual: str) -> None:
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8"), f"{path.name} changed"


@pytest.mark.parametrize("name", sorted(cases()))
def test_each_message_matches_its_golden_text_and_sms(name: str) -> None:
    ctx = cases()[name]
    email = render(ctx, Channel.EMAIL)
    sms = render(ctx, Channel.SMS).sms
    _check(GOLDEN / "messages" / f"{name}.txt",
           f"Subject: {email.subject}\n\n{email.text}\n---- SMS ----\n{sms}\n")


def test_the_html_email_of_a_turn_prompt_matches_its_golden_file() -> None:
    email = render(cases()["prompt_turn"], Channel.EMAIL)
    assert email.html is not None
    _check(GOLDEN / "messages" / "prompt_turn.html", email.html)


def test_the_board_picture_matches_its_golden_png() -> None:
    view = scenario("rowboat")
    assert view is not None
    view["public"]["tortuga"] = [1]  # a Governor, too
    view["public"]["rowboats"] = {"FD": 2, "JR": None}
    view["public"]["ships"][0]["line"] = [0, 4]
    view["public"]["players"][0]["kept"] = ["ALBATROSS", "TREASURE_MAP"]
    png = board_png(view["public"])
    path = GOLDEN / "board.png"
    if UPDATE or not path.exists():
        path.write_bytes(png)
    expected = Image.open(path)
    actual = Image.open(io.BytesIO(png))
    assert actual.size == expected.size
    assert actual.convert("RGB").tobytes() == expected.convert("RGB").tobytes()


def test_no_message_says_s_in_brackets_tortuga_to_tortuga_or_a_line_twice() -> None:
    """Plain words (issue 23): no "(s)", no "from Tortuga to Tortuga", no line said twice
    in one message; no SMS lists an optional decision (ATLANTIS) as awaited or numbers it
    into a menu."""
    import re

    for name, ctx in cases().items():
        for text in (render(ctx, Channel.EMAIL).text, render(ctx, Channel.SMS).sms or ""):
            assert "(s)" not in text, (name, text)
            assert "Tortuga to Tortuga" not in text, (name, text)
            lines = [x.strip() for x in text.splitlines()  # sentences, not board rows
                     if len(x.strip()) > 12 and x.strip()[-1] in ".!?"]
            repeated = {x for x in lines if lines.count(x) > 1}
            assert not repeated, (name, repeated)
        sms = render(ctx, Channel.SMS).sms or ""
        assert not re.search(r"awaited: [^.]*ATLANTIS", sms), (name, sms)
        assert not re.search(r"\d+=ATLANTIS", sms), (name, sms)
