"""Corrections are never a wrong move (issue 25): a reply made of a command, a correction
marker and a second command applies the second command or nothing; a command taken back
with nothing in its place applies nothing."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from pbm.replies import ParseContext, read_sms_reply
from tests.pbm.test_replies_ambiguity import game_states

#: Markers after which the player says what they want instead, as players write them.
MARKERS = [
    "no wait", "No wait,", "no, wait", "wait no", "sorry, I meant", "sorry I meant",
    "Sorry - I meant", "oops, I meant", "I meant", "I mean", "scratch that", "Scratch that!",
    "actually", "Actually,", "actually no,", "forget that.", "forget that,", "correction:",
    "Correction -", "make that", "on second thought", "never mind,", "cancel that,",
    "hmm, no.", "wait,", "instead",
]

#: Markers that take a command back, and what players write after them.
RETRACTIONS = ["forget that", "scratch that", "never mind", "hmm, no.", "actually no",
               "cancel that", "no wait", "ignore that", "wait, no"]
CHATTER = ["", "let me think", "I'll sleep on it.", "not sure yet", "talk tomorrow",
           "let me ask the crew first", "still thinking!"]

SEPARATORS = [" ", ", ", ". ", " - ", "... ", "\n", "\n\n", " / "]


def readings(index: int) -> tuple[engine.GameState, int, list[str], ParseContext]:
    states = game_states()
    state, seat = states[index % len(states)]
    view = engine.view(state, seat).to_dict()
    ctx = ParseContext.from_seat_view(view)
    legal = [c for c in ctx.legal if c != "ATLANTIS"]
    return state, seat, legal, ctx


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0), picks=st.tuples(st.integers(0), st.integers(0)),
       marker=st.sampled_from(MARKERS), before=st.sampled_from(SEPARATORS),
       after=st.sampled_from(SEPARATORS), shown=st.booleans(), lower=st.booleans())
def test_a_command_corrected_by_a_second_applies_the_second_or_nothing(
        index: int, picks: tuple[int, int], marker: str, before: str, after: str,
        shown: bool, lower: bool) -> None:
    state, seat, legal, ctx = readings(index)
    first, second = legal[picks[0] % len(legal)], legal[picks[1] % len(legal)]
    if first == second:
        second = legal[(picks[1] + 1) % len(legal)]
    texts = [ctx.display(c) if shown else c for c in (first, second)]
    if lower:
        texts = [t.lower() for t in texts]
    if marker == "instead":
        body = f"{texts[0]}{before}{texts[1]} instead"
    else:
        body = f"{texts[0]}{before}{marker}{after}{texts[1]}"

    result = read_sms_reply(body, engine.view(state, seat).to_dict())

    assert [str(c) for c in result.commands] in ([], [second]), body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0), pick=st.integers(0),
       marker=st.sampled_from(RETRACTIONS), chatter=st.sampled_from(CHATTER),
       before=st.sampled_from(SEPARATORS), after=st.sampled_from(SEPARATORS))
def test_a_command_taken_back_with_nothing_in_its_place_applies_nothing(
        index: int, pick: int, marker: str, chatter: str, before: str, after: str) -> None:
    state, seat, legal, ctx = readings(index)
    command = ctx.display(legal[pick % len(legal)])
    body = f"{command}{before}{marker}{after}{chatter}"

    result = read_sms_reply(body, engine.view(state, seat).to_dict())

    assert result.commands == [], body
    assert [r.display for r in result.retracted] in ([command], []), body
    assert result.retracted or result.not_understood, body  # never silently dropped


#: Corrections as players write them (issue 36): (reply, scenario, what is applied).
WRITTEN = [
    ("REVEAL 2\n*5", "turn", ["REVEAL 5"]),
    ("VOTE 1\nedit: VOTE 3", "vote", ["VOTE 3"]),
    ("VOTE 1\nEDIT - 3", "vote", ["VOTE 3"]),
    ("REVEAL 2\nREVEAL 5 (ignore the line above)", "turn", ["REVEAL 5"]),
    ("REVEAL 2\nREVEAL 5 (ignore the first line)", "turn", ["REVEAL 5"]),
    ("REVEAL ~~2~~ 5", "turn", ["REVEAL 5"]),
    ("~~REVEAL 2~~ REVEAL 5", "turn", ["REVEAL 5"]),
    ("REVEAL 5 not 2", "turn", ["REVEAL 5"]),
    ("not 2, REVEAL 5", "turn", ["REVEAL 5"]),
    ("not REVEAL 2, 4", "turn", ["REVEAL 4"]),
    ("not vote 2, 3", "vote", ["VOTE 3"]),
    ("reveal 2 no 5", "turn", ["REVEAL 5"]),
    ("vote 2 no 3", "vote", ["VOTE 3"]),
    ("Give Cleo the map, not Ann", "give", ["GIVE 3"]),
    ("REVEAL 2 — sorry, Dave", "turn", ["REVEAL 2"]),
    ("VOTE 2 – nein, VOTE 1", "vote", ["VOTE 1"]),
    ("REVEAL 2, perdón, quise decir 5", "turn", ["REVEAL 5"]),
    ("GIVE Ann, anzi no, GIVE Cleo", "give", ["GIVE 3"]),
    ("VOTE 1, non, VOTE 3", "vote", ["VOTE 3"]),
    ("VOTE 1 ... ik bedoel VOTE 3", "vote", ["VOTE 3"]),
    ("VOTE 1 aliás VOTE 3", "vote", ["VOTE 3"]),
    ("REVEAL 3 plutôt REVEAL 4", "turn", ["REVEAL 4"]),
    ("VOTE 2 desculpa, VOTE 3", "vote", ["VOTE 3"]),
    ("REVEAL 1, ich meinte REVEAL 4", "turn", ["REVEAL 4"]),
    ("REVEAL 4 instead of 2", "turn", ["REVEAL 4"]),
    ("give Cleo rather than Ann", "give", ["GIVE 3"]),
    ("reveal 2 ups 4", "turn", ["REVEAL 4"]),
    ("vote 1 hoppla 3", "vote", ["VOTE 3"]),
    # traps: not retractions
    ("No, I want REVEAL 5", "turn", ["REVEAL 5"]),
    ("REVEAL 2. No regrets!", "turn", ["REVEAL 2"]),
    ("REVEAL 2\nActually, great move last turn, Ann", "turn", ["REVEAL 2"]),
]


def test_corrections_as_players_write_them_apply_the_corrected_command() -> None:
    from tests.fixtures.seatviews import scenario

    wrong = {body: [str(c) for c in read_sms_reply(body, scenario(name)).commands]
             for body, name, want in WRITTEN}
    assert wrong == {body: want for body, _, want in WRITTEN}
