"""No message for seat A ever depends on, or shows, another seat's secrets.

Two checks over thousands of random game states (engine.simulate), before the game ends:

1. Differential: scramble every other seat's loyalty, Vote hand, peeks, seen cards and
   played vote cards; seat A's rendered email (text and HTML) and SMS must not change by a
   single byte. Any leak of those secrets, anywhere from the engine's view to the
   templates, makes the two renderings differ.
2. Marker scan: events addressed only to other seats carry a unique marker in their text
   and data and are handed to the renderer unfiltered; the marker must never appear.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import engine
from engine.cards import EVENT_CARDS, VOTE_DECK, Loyalty
from engine.state import VoteStage
from pbm.messages import Channel, MessageKind
from pbm.render import render
from tests.fixtures.messages import context_for, simulated_states

#: Every kind a seat can receive while the game runs (GAME_OVER reveals loyalties).
RUNNING_KINDS = [k for k in MessageKind if k not in (MessageKind.GAME_OVER,
                                                      MessageKind.INVITATION)]


def scramble_secrets(state: engine.GameState, keep: int, rng: random.Random
                     ) -> engine.GameState:
    """A copy of ``state`` whose other seats' secrets are all different."""
    other = {Loyalty.BRITISH: Loyalty.FRENCH, Loyalty.FRENCH: Loyalty.DUTCH,
             Loyalty.DUTCH: Loyalty.BRITISH}
    s = state.copy()
    for seat in range(s.n):
        if seat == keep:
            continue
        s.loyalties[seat] = other[s.loyalties[seat]]
        old = set(s.hands[seat])
        fresh = [c for c in range(len(VOTE_DECK)) if c not in old]
        s.hands[seat] = rng.sample(fresh, len(s.hands[seat]))
        s.peeks[seat] = {p: rng.randrange(len(EVENT_CARDS)) for p in range(1, 6)}
        s.seen[seat] = rng.sample(range(len(EVENT_CARDS)), 6)
    if isinstance(s.stage, VoteStage):
        played = tuple(
            (seat, cards if seat == keep else tuple(rng.sample(range(len(VOTE_DECK)),
                                                               len(cards))))
            for seat, cards in s.stage.played)
        # The hand each seat voted from (it may change its vote from it) is a secret too.
        hands = tuple((seat, hand if seat == keep else (*s.hands[seat], *dict(played)[seat]))
                      for seat, hand in s.stage.hands)
        s.stage = replace(s.stage, played=played, hands=hands)
    return s


def rendered(kind: MessageKind, state: engine.GameState, seat: int,
             events: list[engine.Event]) -> list[str]:
    ctx = context_for(kind, state, seat, events)
    email = render(ctx, Channel.EMAIL)
    sms = render(ctx, Channel.SMS)
    return [email.subject, email.text, email.html or "", sms.sms or ""]


@pytest.mark.slow
def test_scrambling_other_seats_secrets_never_changes_a_seats_messages() -> None:
    rng = random.Random(1667)
    checked = 0
    for n in range(2, 10):
        for seed in range(3):
            steps = list(simulated_states(n, 500 + seed))
            for step in steps:
                if step.state.over:
                    continue
                seat = rng.randrange(n)
                kind = RUNNING_KINDS[checked % len(RUNNING_KINDS)]
                twin = scramble_secrets(step.state, seat, rng)
                assert engine.view(twin, (seat + 1) % n) != engine.view(step.state,
                                                                         (seat + 1) % n)
                assert rendered(kind, step.state, seat, step.events) == rendered(
                    kind, twin, seat, step.events), (n, seed, step.index, kind)
                checked += 1
    assert checked >= 1500


def test_events_for_other_seats_never_reach_a_message_even_if_passed_in() -> None:
    checked = 0
    for n in (2, 3, 5, 9):
        for step in list(simulated_states(n, 900 + n))[::3]:
            if step.state.over:
                continue
            for seat in range(n):
                marker = f"ZZSECRET{seat}ZZ"
                planted = [engine.Event("vote_card.drawn", f"{marker} drew a card",
                                        frozenset({s}), {"note": marker})
                           for s in range(n) if s != seat]
                events = [*step.events, *planted]
                kind = RUNNING_KINDS[checked % len(RUNNING_KINDS)]
                for part in rendered(kind, step.state, seat, events):
                    assert marker not in part, (n, step.index, kind)
                checked += 1
    assert checked >= 500


def test_a_private_event_for_the_recipient_is_shown_and_marked_as_only_theirs() -> None:
    step = next(s for s in simulated_states(4, 3) if not s.state.over and s.index > 5)
    mine = engine.Event("vote_card.drawn", "You drew Torch / British / Helm.", frozenset({1}))
    text = rendered(MessageKind.PROMPT, step.state, 1, [mine])[1]
    assert "[only you] You drew Torch / British / Helm." in text
