"""What happened, told to each player (issue 23): the answer to a move says what it did,
in the second person, with every Event card explained; newcomers' "pass", "undo", "what
are my options" get answers that help; deadlines say the time left."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import engine
from engine.simulate import random_game
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import render
from pbm.render.gsm7 import SMS_MAX_SEPTETS, gsm7_septets
from pbm.render.news import CARDS, card_effect, news
from tests.fixtures.messages import make_context
from tests.fixtures.seatviews import scenario

NOW = datetime(2025, 3, 3, 22, 0, tzinfo=UTC)


def _reply(view: dict[str, Any] | None, seat: int, done: list[str],
           events: list[dict[str, Any]], **extra: Any) -> MessageContext:
    base: dict[str, Any] = {
        "reply": {"understood": [], "meta": [], "not_understood": [], "ignored": []},
        "done": done, "rejected": [], "help": None, "log": False,
        "result": {"events": events}}
    base.update(extra)
    return make_context(kind=MessageKind.REPLY, game_id=1, game_name="Nassau", seat=seat,
                          player_name="P", seat_view=view, events=[], extra=base,
                          deadline=NOW + timedelta(hours=44), now=NOW)


def _moves(players: int, seed: int) -> list[tuple[int, Any, engine.GameState, list[Any]]]:
    out = []

    def observe(before: Any, seat: int, command: Any, after: Any, events: Any) -> None:
        out.append((seat, command, after, list(events)))

    random_game(players, seed, observe=observe)
    return out


def test_the_answer_to_every_reveal_says_the_card_its_effect_and_what_it_did_to_you() -> None:
    """In random games, the SMS and email answering a REVEAL / CHOOSE / VOTE name the card
    revealed, explain it, and say in the second person what happened to the sender."""
    checked = {"reveal": 0, "maroon": 0, "vote": 0}
    for players, seed in ((5, 1), (4, 2), (6, 3), (3, 4), (2, 5)):
        for seat, command, state, events in _moves(players, seed):
            if state.over:
                continue
            visible = [dict(e.to_dict(), seq=i) for i, e in enumerate(events)
                       if e.visible_to(seat)]
            view = engine.view(state, seat).to_dict()
            ctx = _reply(view, seat, [str(command)], visible)
            sms = render(ctx, Channel.SMS).sms or ""
            text = " ".join(render(ctx, Channel.EMAIL).text.split())  # unwrapped
            assert gsm7_septets(sms) <= SMS_MAX_SEPTETS
            for e in visible:
                data = e["data"]
                if e["kind"] == "event.revealed" and data.get("seat") == seat:
                    name, effect = CARDS[data["title"]]
                    assert f"You revealed {name}" in sms, sms
                    assert f"You revealed {name}" in text and effect[1:20] in text, text
                    checked["reveal"] += 1
                if e["kind"] == "pawn.marooned" and data.get("seat") == seat:
                    assert "You were marooned" in text, text
                    checked["maroon"] += 1
                if e["kind"] == "vote.result":
                    first = e["text"].split(":")[-1].strip()
                    assert first in text, (first, text)
                    assert first in sms or "Your " in sms, sms
                    checked["vote"] += 1
            assert "(s)" not in text + sms and "Tortuga to Tortuga" not in text + sms
    assert checked["reveal"] >= 20 and checked["maroon"] >= 3 and checked["vote"] >= 3, checked


def test_a_black_spot_on_tortuga_says_you_lost_a_vote_card_and_never_tortuga_to_tortuga(
        ) -> None:
    events = [
        {"seq": 1, "kind": "pawn.marooned", "audience": None,
         "text": "Anne was marooned from Tortuga to Tortuga.",
         "data": {"seat": 0, "source": "TORTUGA", "cause": "BLACK_SPOT"}},
        {"seq": 2, "kind": "vote_card.lost", "audience": None, "data": {"seat": 0, "lost": True},
         "text": "Anne was marooned on Tortuga again and lost a Vote card."},
        {"seq": 3, "kind": "vote_card.lost", "audience": [0], "data": {"seat": 0, "card": 1},
         "text": "You lost the Vote card Cannon / British / Skull."}]
    lines = [n["text"] for n in news(events, 0, {0: "Anne", 1: "Bart"})]
    assert lines == ["You were marooned on Tortuga again by the Black Spot.",
                     "You lost the Vote card Cannon / British / Skull."]
    other = [n["text"] for n in news(events[:2], 1, {0: "Anne", 1: "Bart"})]
    assert other == ["Anne was marooned on Tortuga again by the Black Spot.",
                     "Anne lost a Vote card."]  # the marooning is told once (issue 37)
    alone = [n["text"] for n in news(events[1:2], 1, {0: "Anne", 1: "Bart"})]
    assert alone == ["Anne was marooned on Tortuga again and lost a Vote card."]


def test_a_gift_and_a_look_are_said_to_the_reader_not_about_them() -> None:
    names = {0: "Anne", 1: "Bart"}
    gift = {"kind": "card.given", "audience": None, "text": "Bart gave the Treasure Map to Anne.",
            "data": {"seat": 1, "target": 0, "title": "TREASURE_MAP"}}
    assert news([gift], 0, names)[0]["text"] == "Bart gave you the Treasure Map."
    assert news([gift], 0, names)[0]["cards"][0].startswith("Treasure Map: give it")
    kept = {**gift, "text": "Bart gave the Treasure Map to Bart.",
            "data": {"seat": 1, "target": 1, "title": "TREASURE_MAP"}}
    assert news([kept], 0, names)[0]["text"] == "Bart kept the Treasure Map."
    looked = [{"kind": "event.viewed", "audience": None, "data": {"seat": 0},
               "text": "Anne looked at Event card(s) 1 and 3."},
              {"kind": "event.viewed", "audience": [0], "text": "You looked at ...",
               "data": {"seat": 0, "cards": {"1": "ALBATROSS", "3": "SPANISH_ARMADA"}}}]
    said = news(looked, 0, names)
    assert [n["text"] for n in said] == [
        "You looked: card 1 is Albatross; card 3 is Spanish Armada."]
    assert len(said[0]["cards"]) == 2
    old_text = {"kind": "event.viewed", "audience": None, "data": {"seat": 1, "positions": [2, 4]},
                "text": "Bart looked at Event card(s) 2 and 4."}  # told from its data
    assert news([old_text], 0, names)[0]["text"] == "Bart looked at Event cards 2 and 4."


def test_card_effects_come_from_the_engine_table_by_code_or_name() -> None:
    assert card_effect("BLACK_SPOT") == CARDS["BLACK_SPOT"]
    assert card_effect("black spot") == CARDS["BLACK_SPOT"]
    assert card_effect("albatros") == CARDS["ALBATROSS"]
    assert card_effect("crows nest") == CARDS["CROWS_NEST"]
    assert card_effect("zzz") is None


def test_pass_undo_and_what_are_my_options_are_answered_with_help() -> None:
    view = scenario("turn")
    assert view is not None
    for line, words in (("pass", "no passing"), ("sorry I meant 2", "final"),
                        ("undo", "final"), ("what are my options", "options are below")):
        ctx = _reply(view, view["seat"], [], [], last_applied="REVEAL 3",
                     reply={"understood": [], "meta": [], "ignored": [],
                            "not_understood": [{"line": line, "reason": "not a command",
                                                "suggestion": "STATUS"}]})
        sms = render(ctx, Channel.SMS).sms or ""
        text = render(ctx, Channel.EMAIL).text
        assert words in sms and words in text, (line, sms)
        assert "Did you mean STATUS" not in sms, sms


def test_deadlines_are_a_sentence_with_the_time_left() -> None:
    view = scenario("turn")
    assert view is not None
    ctx = make_context(kind=MessageKind.PROMPT, game_id=1, game_name="Nassau",
                         seat=view["seat"], player_name="P", seat_view=view,
                         time_zone="Europe/Berlin", deadline=NOW + timedelta(hours=44),
                         now=NOW)
    email = render(ctx, Channel.EMAIL)
    assert email.text.splitlines()[0].endswith("Reply by Wed 05 Mar 19:00 CET, in 44 hours.")
    assert ", in 44 hours" in (render(ctx, Channel.SMS).sms or "")


def test_table_talk_in_the_news_names_the_speaker_and_quotes_their_words() -> None:
    """A SAY told in a recap is who spoke and what they wrote, as written, in every
    language (not "a player spoke")."""
    from pbm.i18n.translate import reading
    from pbm.render import event_lines

    talk = {"kind": "table.talk", "data": {"seat": 4, "name": "esme", "text": "Trust me, mates"}}
    for lang in ("en", "ko"):
        with reading(lang):
            assert event_lines.line(talk, 0, {0: "Anne", 4: "esme"}).text == \
                "esme: Trust me, mates", lang


def test_the_cabin_boy_reads_his_own_shift_in_the_second_person() -> None:
    """The player who moved the treasure is told "You moved ...", in every language; the
    others are told who did it."""
    from pbm.i18n.translate import reading
    from pbm.render import event_lines

    shift = {"kind": "treasure.moved", "data": {"by": "SHIFT", "cabin_boy": 2, "seat": 2,
                                                "source": "FD_FRENCH", "to": "FD_BRITISH"}}
    names = {0: "Anne", 2: "Cleo"}
    with reading("en"):
        assert event_lines.line(shift, 2, names).text == \
            "You moved 1 treasure on the Flying Dutchman into the British hold."
        assert event_lines.line(shift, 0, names).text.startswith("Cabin Boy Cleo moved")
    with reading("ko"):
        assert event_lines.line(shift, 2, names).text.startswith("당신이")
        assert "Cleo" in event_lines.line(shift, 0, names).text
