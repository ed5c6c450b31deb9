"""Table talk as an SMS player reads it: each line once, never one's own words back."""

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


def texted(phone: str, body: str) -> str:
    return str(inbound.process(h.store_sms(phone, TWILIO_NUMBER, body).id, h.utcnow()))


def test_the_next_text_carries_the_others_talk_once_and_not_the_readers_own(
        setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557771234", channel="sms")
    tia = games.PlayerSpec("Tia", phone="+15557771235", channel="sms")
    game_id = h.new_game([sam, tia, *h.email_players(1)],
                         seed=h.seed_opening_with(["Sam", "Tia", "Ann"], 0))
    assert h.pending(game_id)[0].seat == 0  # Sam acts first, then Tia is asked
    assert texted(tia.phone, "SAY hello all") == "done"
    assert texted(tia.phone, "SAY second line") == "done"
    assert texted(sam.phone, "SAY me too") == "done"
    before = {row.id for row in h.outbox(game_id)}

    assert texted(sam.phone, str(h.pending(game_id)[0].legal[0])) == "done"

    prompt = [row for row in h.outbox(game_id, kind="prompt")
              if row.id not in before and row.to_address == tia.phone]
    assert len(prompt) == 1
    text = prompt[0].sms_body
    assert text.count("me too") == 1 and 'Sam says: "me too"' in text, text
    assert "hello all" not in text and "second line" not in text, text
