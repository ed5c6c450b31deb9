"""What a player reads, checked from their seat with real engine states: VIEW's answer names
the cards, refusals speak the player's words and list what is possible, SMS STATUS / HELP /
LOG / vote prompts say what a player needs, and nothing becomes a ``?``."""

from __future__ import annotations

import re

import engine
from engine import reasons
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import (
    SMS_MAX_SEPTETS,
    SMS_MAX_UCS2_UNITS,
    gsm7_septets,
    is_gsm7,
    relay_sms,
    render,
    sms_segments,
    to_gsm7,
    utf16_units,
)
from pbm.replies.words import fold, name_key
from tests.fixtures.messages import make_context, simulated_states
from tests.pbm.test_render_golden import cases

#: Decision kinds and engine words a refusal must not show the player.
ENGINE_WORDS = re.compile(r"\b(ACTION|LETTER_OF_MARQUE|answers|is asked for)\b")


def _reply(view: dict, **extra: object) -> MessageContext:
    return make_context(kind=MessageKind.REPLY, game_id=3, game_name="Nassau",
                        seat=view["seat"], player_name=view["name"], seat_view=view,
                        extra=dict(extra))


def _states() -> list[tuple[engine.GameState, int]]:
    """(state, seat) along two simulated games: every seat awaited in every state."""
    out = []
    for n, seed in ((5, 3), (3, 11)):
        for step in simulated_states(n, seed):
            if not step.state.over:
                out += [(step.state, d.seat) for d in engine.pending(step.state)]
    return out


def _state_with(kind: str) -> tuple[engine.GameState, int]:
    for state, seat in _states():
        if any(d.seat == seat and d.kind.value == kind for d in engine.pending(state)):
            return state, seat
    raise AssertionError(f"no simulated state awaits {kind}")


def test_the_answer_to_view_names_both_cards_by_email_and_by_sms() -> None:
    state, seat = _state_with("ACTION")
    view_cmd = next(c for d in engine.pending(state) if d.seat == seat for c in d.legal
                    if str(c).startswith("VIEW ") and len(str(c).split()) == 3)
    after, _ = engine.apply(state, seat, view_cmd)
    view = engine.view(after, seat).to_dict()
    a, b = str(view_cmd).split()[1:]
    titles = [engine.view(after, seat).peeks[int(p)].label for p in (a, b)]
    ctx = _reply(view, done=[str(view_cmd)], rejected=[])
    email = render(ctx, Channel.EMAIL)
    sms = render(ctx, Channel.SMS).sms or ""
    for title in titles:
        assert title in email.text.split("DONE")[0] and title in sms
    assert email.text.startswith(f"You saw card {a}: {titles[0]} and card {b}: {titles[1]}")
    assert f"You saw {a}={titles[0]}, {b}={titles[1]}" in sms
    # ... and the cards stay listed under the cards you know, in STATUS and in the prompt
    status = render(make_context(kind=MessageKind.STATUS, game_id=3, game_name="Nassau",
                                   seat=seat, player_name="x", seat_view=view), Channel.SMS)
    assert f"You know: {a}={titles[0]}, {b}={titles[1]}" in " ".join(
        [status.sms or "", *status.sms_more])


def test_an_out_of_turn_refusal_says_what_is_awaited_in_plain_words() -> None:
    state, seat = _state_with("VOTE")
    view = engine.view(state, seat).to_dict()
    reason = reasons.ANSWERS_OTHER(cmd="REVEAL 3", kinds="ACTION", name=view["name"],
                                   wanted="VOTE").to_dict()  # as a reply's outcome stores it
    ctx = _reply(view, done=[], rejected=[{"command": "REVEAL 3", "reason": reason}])
    email, sms = render(ctx, Channel.EMAIL), render(ctx, Channel.SMS).sms or ""
    refusal = " ".join(email.text.split("NOT DONE")[1].split("WHAT YOU CAN DO NOW")[0].split())
    assert "REVEAL is not what is asked of you now" in refusal
    assert "play a Vote card" in refusal and "You can reply VOTE 1" in refusal
    assert not ENGINE_WORDS.search(refusal) and not ENGINE_WORDS.search(sms)


def test_an_illegal_target_lists_the_legal_ones_by_name() -> None:
    view = cases()["prompt_turn"].seat_view
    assert view is not None
    reason = reasons.NOT_ALLOWED(cmd="MAROON 2", reason=reasons.MAROON_OWN()).to_dict()
    ctx = _reply(view, done=[], rejected=[{"command": "MAROON Bartholomew", "reason": reason}])
    text = render(ctx, Channel.EMAIL).text
    assert ("MAROON Bartholomew: the Captain may maroon only another pawn on his own ship. "
            "You can: MAROON Cleo or MAROON Émile") in " ".join(text.split())
    assert "MAROON 2" not in text
    sms = render(ctx, Channel.SMS).sms or ""
    assert "MAROON Cleo or MAROON Emile" in sms or "MAROON Cleo or MAROON Émile" in sms


def test_sms_status_gives_the_whole_picture_in_two_texts_of_two_segments() -> None:
    checked = 0
    for state, seat in _states()[::7]:
        view = engine.view(state, seat)
        ctx = make_context(kind=MessageKind.STATUS, game_id=3, game_name="Nassau",
                             seat=seat, player_name=view.name, seat_view=view.to_dict())
        rendered = render(ctx, Channel.SMS)
        texts = [rendered.sms or "", *rendered.sms_more]
        assert len(texts) <= 2 and all(sms_segments(t) <= 2 for t in texts), texts
        board, secrets = texts
        public = view.public
        assert "FD: " in board and "JR: " in board and "Tortuga: " in board
        assert f"Galleon {public.galleon}" in board
        assert f"You are {view.loyalty.value.capitalize()}" in board
        for ship in public.ships:
            assert f"holds B{ship.british} F{ship.french}" in board
        assert ("Capt" in board) == any(s.line for s in public.ships)
        for card in view.hand:
            assert f"{card.number}=" in secrets
        if any(d.seat == seat for d in engine.pending(state)):
            assert "Reply " in secrets or "HELP TURN" in secrets
        checked += 1
    assert checked >= 10


def test_every_sms_vote_prompt_shows_the_symbols_even_beside_atlantis() -> None:
    for name in ("prompt_vote", "prompt_vote_el_dorado"):
        sms = render(cases()[name], Channel.SMS).sms or ""
        # each whole card (top/middle/bottom), the part being voted in capitals
        assert re.search(r"1=(?i:Cannon|Torch|Water)[^ /]*/(?i:Brit|Fren)[^ /]*/"
                         r"(?i:Skull|Helm)", sms), sms
        assert re.search(r"=[A-Z+]{4,}(/|\b)", sms), sms
    ctx = cases()["prompt_vote"]
    view = dict(ctx.seat_view or {})
    view["kept"] = ["ATLANTIS"]
    public = dict(view["public"])
    public["players"] = [dict(p, kept=["ATLANTIS"]) if p["seat"] == view["seat"] else p
                         for p in public["players"]]
    view["public"] = public
    sms = render(MessageContext(**{**ctx.__dict__, "seat_view": view}), Channel.SMS).sms or ""
    assert "ATLANTIS" in sms and "VOTE 1" not in sms
    assert re.search(r"1=(?i:Cannon|Torch|Water)", sms), sms


def test_help_and_log_answer_by_sms_in_short_form() -> None:
    view = cases()["prompt_turn"].seat_view
    assert view is not None
    for topic, word in (("", "VIEW 1 4"), ("VOTE", "Skulls"), ("TURN", "MAROON"),
                        ("CARDS", "MARQUE")):
        rendered = render(_reply(view, help=topic, reply={"meta": [{"name": "HELP"}]}),
                          Channel.SMS)
        texts = [rendered.sms or "", *rendered.sms_more]
        assert any(word in t for t in texts) and all(sms_segments(t) <= 2 for t in texts)
        assert not any("OK: HELP" in t for t in texts)
    events = [{"kind": "event.revealed", "text": f"Ann revealed card {i}.", "audience": None}
              for i in range(1, 40)]
    ctx = make_context(kind=MessageKind.REPLY, game_id=3, game_name="Nassau",
                         seat=view["seat"], player_name="Ann", seat_view=view, events=events,
                         extra={"log": True, "reply": {"meta": [{"name": "LOG"}]}})
    rendered = render(ctx, Channel.SMS)
    texts = [rendered.sms or "", *rendered.sms_more]
    assert "Ann revealed card 39." in texts[-1] and len(texts) <= 2
    assert all(sms_segments(t) <= 2 for t in texts)


def test_names_outside_gsm7_are_transliterated_never_replaced_by_a_question_mark() -> None:
    for name, latin in (("Łukasz", "Lukasz"), ("Дмитрий", "Dmitriy"), ("李雷", "LiLei"),
                        ("Zoë", "Zoe")):
        assert to_gsm7(name) == latin
        assert name_key(latin) == name_key(name) and fold(latin) == fold(name)
    assert "?" not in to_gsm7("Ørjan 😀 Ἀθηνᾶ")


def test_table_talk_is_relayed_faithfully_in_ucs2_and_cut_with_a_pointer() -> None:
    short = relay_sms("Tortuga N: Дмитрий says:", "Привет всем 😀", "Reply SAY.", "(LOG)")
    assert "Привет всем 😀" in short and "Dmitriy says" in short
    assert utf16_units(short) <= SMS_MAX_UCS2_UNITS and "?" not in short
    long = relay_sms("Tortuga N: Ann says:", "Привет " * 60, "Reply SAY.", "(cut: LOG)")
    assert long.endswith("(cut: LOG)") and utf16_units(long) <= SMS_MAX_UCS2_UNITS
    latin = relay_sms("Tortuga N: Ann says:", "hello " * 80, "Reply SAY.", "(cut: LOG)")
    assert is_gsm7(latin) and gsm7_septets(latin) <= SMS_MAX_SEPTETS
    assert latin.endswith("(cut: LOG)")


def test_the_email_preview_says_what_is_needed_and_by_when() -> None:
    email = render(cases()["prompt_turn"], Channel.EMAIL)
    first = email.text.splitlines()[0]
    # the deadline is a sentence of its own, never glued to the headline
    assert first == "Your turn: choose one action. Reply by Wed 05 Mar 13:00 EST, in 44 hours."
    assert email.html is not None
    body = email.html[email.html.index("<body"):]
    preheader = re.search(r'<div class="preheader" style="display:none[^"]*">([^<&]+)', body)
    assert preheader and preheader.group(1).split("\u034f")[0] == first.rstrip(".")


def test_a_question_on_a_line_of_its_own_is_never_listed_as_a_greeting() -> None:
    """Issue 37: "What does the Albatross do?" was listed under "IGNORED (after the first
    line we could not read, or greetings)"."""
    import dataclasses

    from pbm.messages import Channel, MessageKind
    from pbm.render import render
    from tests.fixtures.messages import context_for, fields_of, simulated_states, with_fields

    state = list(simulated_states(4, 5))[6].state
    ctx = context_for(MessageKind.REPLY, state, 0, [])
    questioned = with_fields(ctx, reply={**fields_of(ctx)["reply"],
                                         "ignored": ["What does the Albatross do?", "Cheers"]})
    for lang, heading in (("en", "YOUR QUESTIONS"), ("ko", "질문 (")):
        text = render(dataclasses.replace(questioned, language=lang), Channel.EMAIL).text
        asked = text.index(heading)
        assert asked < text.index('"What does the Albatross do?"'), text
        ignored = text[text.index("IGNORED" if lang == "en" else "무시"):]
        assert "Albatross" not in ignored and '"Cheers"' in ignored, text
