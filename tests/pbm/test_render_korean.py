"""Korean readers (issue 24): their SMS in Korean, UCS-2 within its budget, for every
prompt of thousands of random game states of 2 to 9 players; English readers' messages are
unchanged (tests/pbm/test_render_golden.py).

The Korean SMS budget: a prompt (and a reminder, a last call, an answer) is one SMS of at
most ``KO_SMS_PARTS`` UCS-2 parts (67 UTF-16 units each when concatenated; issue 37 set it
so that a Korean prompt carries what an English one carries)."""

from __future__ import annotations

import dataclasses
import re

import pytest

import engine
from pbm.i18n import glossary
from pbm.messages import Channel, MessageKind
from pbm.render import SMS_MAX_KO_UNITS, render, sms_segments, utf16_units
from pbm.render.gsm7 import KO_SMS_PARTS
from tests.fixtures.messages import context_for
from tests.pbm.test_render_sms import PROMPT_KINDS, asked_seats

HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: English words of the game's vocabulary that must not reach a Korean reader.
ENGLISH_VOCABULARY = sorted({w for w in glossary.all_words("en") if len(w) > 2} | {
    "REVEAL", "VIEW", "FORCE", "ROW", "BOARD", "LAND", "ATTACK", "MAROON", "MUTINY", "SHIFT",
    "BRAWL", "VOTE", "CHOOSE", "SHOOT", "GIVE", "TAKE", "PLACE", "SAVE", "MARQUE",
    "FOUNTAIN", "ACCEPT", "STATUS", "HELP", "NEWS", "Reply", "Done", "Your turn",
    "Cannon", "Torch", "Water", "Skull", "Helm", "Brit", "Fren", "Vote card", "Event card"},
    key=len, reverse=True)


def korean(ctx):  # type: ignore[no-untyped-def]
    return dataclasses.replace(ctx, language="ko", time_zone="Asia/Seoul")


def english_words(text: str, names: list[str]) -> list[str]:
    """The game's English words in ``text`` (player and game names taken out)."""
    for name in sorted(names + [w for n in names for w in n.split()], key=len, reverse=True):
        text = text.replace(name, " ")  # names (and the cut names of a short menu)
    return [w for w in ENGLISH_VOCABULARY if re.search(rf"(?<![A-Za-z]){re.escape(w)}"
                                                        rf"(?![A-Za-z])", text)]


def check_korean_sms(sms: str, names: list[str], game: str = "Nassau") -> None:
    assert utf16_units(sms) <= SMS_MAX_KO_UNITS, (utf16_units(sms), sms)
    assert sms_segments(sms) <= KO_SMS_PARTS, sms
    assert HANGUL.search(sms), sms
    assert sms.startswith("토르투가 "), sms
    assert "?" not in sms.replace("?", "") and "\ufffd" not in sms, sms
    assert english_words(sms, [*names, game]) == [], (english_words(sms, names), sms)


@pytest.mark.slow
def test_every_korean_sms_prompt_fits_its_ucs2_parts_in_thousands_of_random_states() -> None:
    checked = 0
    kinds_seen: set[str] = set()
    for n in range(2, 10):
        for seed in range(4):
            for state, seat in asked_seats(n, 2000 + seed, rename=seed == 3):
                kinds_seen.update(d.kind.value for d in engine.pending(state) if d.seat == seat)
                for kind in (MessageKind.PROMPT, MessageKind.REMINDER,
                             MessageKind.FINAL_WARNING):
                    if kind is not MessageKind.PROMPT and checked % 7:
                        continue
                    sms = render(korean(context_for(kind, state, seat, [])), Channel.SMS).sms
                    assert sms is not None
                    check_korean_sms(sms, list(state.names))
                    assert re.search(r"\d+=", sms), sms  # numbered options
                checked += 1
    assert checked >= 2000
    assert kinds_seen == PROMPT_KINDS


def test_the_same_state_reads_in_english_for_an_english_seat_at_the_same_table() -> None:
    state, seat = next(asked_seats(4, 2001, rename=False))
    ctx = context_for(MessageKind.PROMPT, state, seat, [])
    english = render(ctx, Channel.SMS).sms
    assert english is not None and english.startswith("Tortuga Nassau: ")
    assert not HANGUL.search(english)
    assert render(korean(ctx), Channel.SMS).sms != english


def test_a_korean_status_is_two_messages_within_the_korean_budget() -> None:
    checked = 0
    for n in (2, 5, 9):
        for state, seat in list(asked_seats(n, 2100 + n, rename=n == 9))[::2]:
            rendered = render(korean(context_for(MessageKind.STATUS, state, seat, [])),
                              Channel.SMS)
            texts = [rendered.sms, *rendered.sms_more]
            assert len(texts) == 2
            for text in texts:
                assert text is not None
                assert utf16_units(text) <= SMS_MAX_KO_UNITS, text
                assert sms_segments(text) <= KO_SMS_PARTS, text
                assert HANGUL.search(text) and text.startswith("토르투가 "), text
                assert english_words(text, [*state.names, "Nassau"]) == [], (
                    english_words(text, [*state.names, "Nassau"]), text)
            checked += 1
    assert checked > 100, checked


#: Kinds whose Korean SMS is checked word by word for English game vocabulary (the answer
#: to a reply with HELP and LOG included); table talk, which quotes a player, is checked for
#: Hangul, size and encoding.
KOREAN_SMS_KINDS = frozenset(MessageKind) - {MessageKind.TABLE_TALK}


@pytest.mark.slow
def test_every_message_kind_for_a_korean_seat_is_korean_well_formed_and_fits() -> None:
    from tests.fixtures.messages import simulated_states

    checked = 0
    for n in (2, 5, 9):
        steps = [(step.state, step.events) for step in simulated_states(n, 77)]
        for state, events in steps[:: max(1, len(steps) // 25)]:
            for kind in MessageKind:
                ctx = korean(context_for(kind, state, 0, events))
                sms = render(ctx, Channel.SMS)
                email = render(ctx, Channel.EMAIL)
                assert email.subject.startswith("[토르투가: "), email.subject
                for text in (email.text, email.html or "", sms.sms or "", *sms.sms_more):
                    assert "\ufffd" not in text and "Ã" not in text and "ì" not in text
                assert HANGUL.search(email.text), (kind, email.text)
                assert sms.sms is not None and HANGUL.search(sms.sms), (kind, sms.sms)
                limit = SMS_MAX_KO_UNITS
                for text in (sms.sms, *sms.sms_more):
                    assert utf16_units(text) <= limit, (kind, utf16_units(text), text)
                if kind in KOREAN_SMS_KINDS:
                    names = [*state.names, "Nassau", "Long John"]
                    leaked = english_words(sms.sms.replace("ZONE", ""), names)
                    assert leaked == [], (kind, leaked, sms.sms)
                checked += 1
    assert checked > 500
