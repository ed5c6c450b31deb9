"""A player nothing is asked of is told whom the game waits for, never that it is their
own turn (the turn's player is not always the one awaited)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbm import games, inbound
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply

TWILIO_NUMBER = "+15005550006"


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    apply(env, monkeypatch)
    yield env


def answers(game_id: int, phone: str, body: str) -> list[str]:
    """The texts ``body`` from ``phone`` got back."""
    before = {row.id for row in h.outbox(game_id)}
    assert str(inbound.process(h.store_sms(phone, TWILIO_NUMBER, body).id, h.utcnow())) == "done"
    return [row.sms_body for row in h.outbox(game_id)
            if row.id not in before and row.to_address == phone]


def test_the_turns_player_waiting_on_another_captain_is_told_who_is_awaited(
        setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557771234", channel="sms")
    game_id = h.new_game([sam, *h.email_players(2)],
                         seed=h.seed_opening_with(["Sam", "Ann", "Bob"], 0))
    assert h.pending(game_id)[0].seat == 0
    answers(game_id, sam.phone, "1")  # Sam's starting treasure placed; the turn stays his
    awaited = {d.seat for d in h.pending(game_id)}
    assert 0 not in awaited and awaited  # another captain places theirs first
    name = h.seat_row(game_id, min(awaited))[1].display_name

    refused = answers(game_id, sam.phone, "look at 1 and 2")
    status = " ".join(answers(game_id, sam.phone, "STATUS"))
    acknowledged = answers(game_id, sam.phone, "ok")  # read as nothing, but answered

    for text in (refused[0], status, acknowledged[0]):
        assert "Sam's turn" not in text, text
        assert f"waits for {name}" in text, text
