"""SMS: GSM-7 only, at most 2 segments, numbered options, STATUS and the game name, for
every prompt of thousands of random game states (engine.simulate) and 2 to 9 players."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

import engine
from engine.simulate import random_game
from pbm.messages import Channel, MessageKind, board_content_id
from pbm.render import (
    SMS_MAX_SEPTETS,
    fit_sms,
    gsm7_septets,
    is_gsm7,
    render,
    sms_segments,
    to_gsm7,
)
from pbm.render.names import short_game
from tests.fixtures.messages import context_for, simulated_states, with_fields

PROMPT_KINDS = {"PLACE", "ACTION", "VOTE", "CHOOSE", "LETTER_OF_MARQUE", "SHOOT", "GIVE",
                "TAKE", "FOUNTAIN"}
LONG_NAMES = ("Bartholomew Roberts", "Zoë Ångström-Éclair", "Captain \U0001F3F4 Flint",
              "Anne Bonny", "Mary Read of the Seven Seas", "Jean Lafitte", "Ching Shih",
              "Henry Morgan", "Grace O\u2019Malley")
#: GSM 03.38 (3GPP TS 23.038): the basic table in code order (0x1B is the escape to the
#: extension table) and the extension table's characters, two septets each.
GSM7_BASIC = ("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
              "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà")
GSM7_EXTENDED = "\f^{}\\[~]|€"


def test_the_gsm7_check_accepts_its_alphabet_and_rejects_curly_quotes_and_emoji() -> None:
    assert is_gsm7("Reply 1=VIEW _ _ @ £5 [ok] {x} ~ € Ä ñ ü")
    assert not is_gsm7("it\u2019s")
    assert not is_gsm7("\u201cquoted\u201d")
    assert not is_gsm7("thumbs \U0001F44D")
    assert not is_gsm7("Zoë")  # ë is not in GSM 03.38


def test_extended_characters_take_two_septets_and_segments_follow_the_standard() -> None:
    assert gsm7_septets("[a]") == 5
    assert sms_segments("x" * 160) == 1
    assert sms_segments("x" * 161) == 2
    assert sms_segments("x" * 306) == 2
    assert sms_segments("x" * 307) == 3
    assert sms_segments("€" * 80) == 1 and sms_segments("€" * 81) == 2
    assert sms_segments("ë" * 70) == 1 and sms_segments("ë" * 71) == 2  # UCS-2


def test_septets_and_the_alphabet_check_count_character_by_character() -> None:
    """Counted in C (``str.count``, ``frozenset.issuperset``): the same as one character
    at a time by the GSM 03.38 tables, for texts of every mix of basic, extended and other
    characters."""
    rng = random.Random(26)
    pool = GSM7_BASIC + GSM7_EXTENDED * 3 + "ëЖ\u2019\U0001F3F4"
    for size in [0, 1, 2, 5, 40, 160, 400] * 30:
        text = "".join(rng.choice(pool) for _ in range(size))
        assert gsm7_septets(text) == sum(2 if ch in GSM7_EXTENDED else 1 for ch in text)
        assert is_gsm7(text) == all(ch in GSM7_BASIC + GSM7_EXTENDED for ch in text)


def test_text_is_made_gsm7_safe_without_losing_plain_letters() -> None:
    assert to_gsm7("Zoë\u2019s \u201cboat\u201d \u2014 ok\u2026") == "Zoe's \"boat\" - ok..."
    assert to_gsm7("flag \U0001F3F4") == "flag :flag_black:"  # never a "?"
    assert is_gsm7(to_gsm7("Ångström ÿ ő ł \u00a0 \t"))


def test_fitting_prefers_long_variants_and_never_exceeds_the_limit() -> None:
    text = fit_sms([["head"], ["a" * 200, "a" * 50], ["b" * 200, "b" * 10, ""]])
    assert text == "head " + "a" * 200 + " " + "b" * 10
    huge = fit_sms([["x" * 400], ["y" * 400]])
    assert gsm7_septets(huge) <= SMS_MAX_SEPTETS and is_gsm7(huge)


def asked_seats(n_players: int, seed: int, rename: bool) -> Iterator[tuple[engine.GameState, int]]:
    """(state, seat) for every seat asked something, after every command of one game."""
    found: list[tuple[engine.GameState, int]] = []

    def observe(before: object, seat: int, command: object, after: engine.GameState,
                events: object) -> None:
        for decision in engine.pending(after):
            found.append((after, decision.seat))

    random_game(n_players, seed, observe=observe)
    for state, seat in found:
        if rename:
            state = state.copy()
            state.names = LONG_NAMES[: state.n]
        yield state, seat


def _check_sms(sms: str, game: str) -> None:
    assert is_gsm7(sms), sms
    assert gsm7_septets(sms) <= SMS_MAX_SEPTETS, (len(sms), sms)
    assert sms_segments(sms) <= 2
    assert "STATUS" in sms, sms
    assert sms.startswith(f"Tortuga {short_game(game)}:"), sms  # the game, cut to fit


@pytest.mark.slow
def test_every_sms_prompt_fits_two_gsm7_segments_in_thousands_of_random_states() -> None:
    checked = 0
    kinds_seen: set[str] = set()
    for n in range(2, 10):
        for seed in range(5):
            rename = seed >= 3
            game = "The Very Long Name of Our Caribbean Game" if rename else "Nassau"
            for state, seat in asked_seats(n, 1000 + seed, rename):
                kinds_seen.update(d.kind.value for d in engine.pending(state) if d.seat == seat)
                for kind in (MessageKind.PROMPT, MessageKind.REMINDER,
                             MessageKind.FINAL_WARNING):
                    if kind is not MessageKind.PROMPT and checked % 7:
                        continue
                    sms = render(context_for(kind, state, seat, [], game_name=game),
                                 Channel.SMS).sms
                    assert sms is not None
                    _check_sms(sms, game)
                    assert re.search(r"\b\d+=", sms), sms  # numbered options
                checked += 1
    assert checked >= 3000
    assert kinds_seen == PROMPT_KINDS


def test_every_other_message_kind_fits_two_segments_too() -> None:
    for n in (2, 5, 9):
        steps = [(step.state, step.events) for step in simulated_states(n, 77)]
        for state, events in steps[:: max(1, len(steps) // 40)]:
            for kind in MessageKind:
                sms = render(context_for(kind, state, 0, events), Channel.SMS).sms
                assert sms is not None and is_gsm7(sms) and sms_segments(sms) <= 2, sms
                assert "Tortuga" in sms


def _states_covering_every_prompt_kind(n: int) -> dict[str, tuple[engine.GameState, int]]:
    covered: dict[str, tuple[engine.GameState, int]] = {}
    for seed in range(40):
        for state, seat in asked_seats(n, seed, rename=False):
            for d in engine.pending(state):
                if d.seat == seat:
                    covered.setdefault(d.kind.value, (state, seat))
        if set(covered) == PROMPT_KINDS:
            break
    return covered


def test_every_prompt_kind_renders_for_two_to_nine_players() -> None:
    for n in range(2, 10):
        covered = _states_covering_every_prompt_kind(n)
        assert set(covered) == PROMPT_KINDS, (n, set(covered))
        for kind, (state, seat) in covered.items():
            ctx = context_for(MessageKind.PROMPT, state, seat, [])
            email = render(ctx, Channel.EMAIL)
            sms = render(ctx, Channel.SMS).sms
            assert sms is not None
            _check_sms(sms, "Nassau")
            legal = [str(c) for d in engine.pending(state) if d.seat == seat for c in d.legal]
            assert "Reply above this line" in email.text
            assert "WHAT YOU CAN DO NOW" in email.text
            assert " 1 = " in email.text or any(f" {c.split()[1]} = " in email.text
                                                 for c in legal if len(c.split()) > 1), kind
            assert email.html is not None and email.board_image_key is not None
            assert f'src="cid:{board_content_id(email.board_image_key)}"' in email.html
            assert email.subject == "[Tortuga: Nassau] Tortuga 1667 by mail"


def _reply_sms(state: engine.GameState, *, suggestion: str | None,
               help_asked: bool) -> tuple[str, tuple[str, ...]]:
    """The SMS answer to a reply with one line not understood (a suggestion or none) and
    nothing else: with HELP asked, the reply SMS comes first and the help after it."""
    ctx = context_for(MessageKind.REPLY, state, 0)
    rendered = render(with_fields(
        ctx, reply={"understood": [], "meta": [], "ignored": [],
                    "not_understood": [{"line": "atack now!", "reason": "not a command",
                                        "suggestion": suggestion}]},
        done=[], rejected=[], help="" if help_asked else None, log=False), Channel.SMS)
    assert rendered.sms is not None
    return rendered.sms, rendered.sms_more


def test_a_reply_not_understood_ends_with_the_help_hint_unless_help_follows() -> None:
    state = next(iter(simulated_states(3, 5))).state
    for suggestion in (None, "ATTACK"):
        sms, more = _reply_sms(state, suggestion=suggestion, help_asked=False)
        assert "Not understood" in sms and not more, sms
        assert sms.endswith("HELP=how to reply"), (suggestion, sms)
        assert ("Did you mean ATTACK?" in sms) is (suggestion is not None), sms
        # HELP asked: the help itself follows, so the reply SMS does not point to it
        sms, more = _reply_sms(state, suggestion=suggestion, help_asked=True)
        assert "Not understood" in sms and more, sms
        assert "HELP=how to reply" not in sms, (suggestion, sms)
