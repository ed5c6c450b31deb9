"""The board section rendered once per game version and language (``pbm.render.shared``):
seats of one version share its public part and still each get only their own marks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

import engine
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import render, shared, title_label
from tests.fixtures.messages import context_for, simulated_states


@pytest.fixture(autouse=True)
def cold_cache() -> Iterator[None]:
    shared.clear()
    yield
    shared.clear()


def two_seats_with_their_own_peeks() -> tuple[engine.GameState, int, int]:
    """A state where two seats know different face-down Event cards of the row."""
    for step in simulated_states(5, 7):
        state = step.state
        known = [{p: t for p, t in state.peeks[s].items() if p in state.row}
                 for s in range(state.n)]
        for a in range(state.n):
            for b in range(state.n):
                if a != b and known[a] and known[b] and known[a] != known[b]:
                    return state, a, b
    raise AssertionError("no state with two seats' different peeks")


def both(ctx: MessageContext) -> tuple[str, str]:
    email = render(ctx, Channel.EMAIL)
    return email.text, email.html or ""


def cold(ctx: MessageContext) -> tuple[str, str]:
    shared.clear()
    return both(ctx)


def test_two_seats_of_one_version_share_the_public_board_and_get_their_own_marks() -> None:
    state, a, b = two_seats_with_their_own_peeks()
    ctx_a = context_for(MessageKind.STATUS, state, a)
    ctx_b = context_for(MessageKind.STATUS, state, b)
    alone_a, alone_b = cold(ctx_a), cold(ctx_b)
    assert alone_a != alone_b

    shared.clear()
    first = both(ctx_a)
    kept = shared.cached()
    second = both(ctx_b)
    assert shared.cached() == kept == 2  # b's board came from a's public renders
    assert (first, second) == (alone_a, alone_b)

    text_a, _html_a = first
    text_b, _html_b = second
    assert text_a.count("<- you") == 1 and text_b.count("<- you") == 1
    peeks_a = engine.view(state, a).to_dict()["peeks"]
    peeks_b = engine.view(state, b).to_dict()["peeks"]
    only_a = [(int(p), t) for p, t in peeks_a.items()
              if int(p) in state.row and peeks_b.get(p) != t]
    assert only_a
    for position, title in only_a:  # a's secret: in a's row, never in b's
        assert f"[{position}: {title_label(title)}*]" in text_a
        assert f"[{position}: {title_label(title)}*]" not in text_b


def test_a_seat_rendered_after_another_is_the_seat_rendered_alone() -> None:
    state, a, b = two_seats_with_their_own_peeks()
    for kind in (MessageKind.PROMPT, MessageKind.STATUS, MessageKind.NOTICE,
                 MessageKind.VOTE_RESULT, MessageKind.GAME_STARTED):
        ctx_a, ctx_b = (context_for(kind, state, s) for s in (a, b))
        alone = cold(ctx_b)
        shared.clear()
        both(ctx_a)
        assert both(ctx_b) == alone, kind


def test_one_version_in_two_languages_is_rendered_once_for_each() -> None:
    state, a, b = two_seats_with_their_own_peeks()
    english = context_for(MessageKind.STATUS, state, a)
    korean = context_for(MessageKind.STATUS, state, b)
    korean = replace(korean, language="ko")
    alone = cold(korean)
    shared.clear()
    both(english)
    assert both(korean) == alone
    assert shared.cached() == 4


def test_two_games_with_one_id_and_version_number_never_share_a_board() -> None:
    """The key is the public view itself, not only the picture's game and version."""
    one = next(s.state for s in simulated_states(5, 1) if s.state.version == 9)
    two = next(s.state for s in simulated_states(5, 2) if s.state.version == 9)
    assert engine.public_view(one) != engine.public_view(two)
    ctx_one, ctx_two = (context_for(MessageKind.STATUS, s, 0) for s in (one, two))
    alone = cold(ctx_two)
    shared.clear()
    both(ctx_one)
    assert both(ctx_two) == alone


def test_the_shared_renders_are_bounded() -> None:
    for step in simulated_states(5, 3):
        if step.state.over:
            break
        render(context_for(MessageKind.STATUS, step.state, 0), Channel.EMAIL)
    assert step.index > shared.KEPT
    assert shared.cached() == shared.KEPT
