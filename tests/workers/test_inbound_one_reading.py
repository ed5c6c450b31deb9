"""Issue 36 through the real pipeline (PostgreSQL): a reply holding two different answers to
one decision plays nothing and the player is asked, naming both, in their language, by
email and by SMS. Each test reads the answer as it is stored in the outbox, ready to send."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbm import games, inbound
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply
from tests.workers.test_inbound_corrections import (
    DIRK,
    EVE,
    SEED,
    answers,
    played,
    reply,
    started,
)

TWILIO_NUMBER = "+15005550006"


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    apply(env, monkeypatch)
    yield env


def texted(game_id: int, phone: str, body: str) -> list[str]:
    """The texts ``body`` from ``phone`` got back."""
    before = {row.id for row in h.outbox(game_id)}
    assert str(inbound.process(h.store_sms(phone, TWILIO_NUMBER, body).id, h.utcnow())) == "done"
    return [str(row.sms_body) for row in h.outbox(game_id)
            if row.id not in before and row.to_address == phone]


def test_two_reveals_by_email_play_nothing_and_ask_naming_both(setup: Env) -> None:
    game_id = started()

    assert reply(game_id, EVE, "REVEAL 1\nREVEAL 5") == "done"

    assert played(game_id) == []
    (answer,) = answers(game_id, EVE)
    flat = " ".join(answer.split())
    assert ('"REVEAL 1 / REVEAL 5": that gives two different commands. '
            "Did you mean REVEAL 1 or REVEAL 5?") in flat
    assert "IGNORED" not in flat  # both named in the question, not listed again


def test_an_unknown_correction_word_by_sms_plays_nothing_and_asks(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557772001", channel="sms")
    game_id = h.new_game([sam, *h.email_players(4)], seed=SEED)
    decision = h.pending(game_id)[0]
    assert decision.seat == 0 and decision.kind.value == "PLACE"

    (text,) = texted(game_id, sam.phone, "PLACE BRITISH – blimey, PLACE FRENCH")

    assert h.commands(game_id) == []
    assert "PLACE BRITISH" in text.upper() or "BRITISH" in text.upper()
    assert "FRENCH" in text.upper()


def test_a_korean_player_is_asked_in_korean_naming_both(setup: Env) -> None:
    min = games.PlayerSpec("Min", phone="+15557772002", channel="sms", language="ko")
    game_id = h.new_game([min, *h.email_players(4)], seed=SEED)
    assert h.pending(game_id)[0].seat == 0

    (text,) = texted(game_id, min.phone, "영국\n프랑스")

    assert h.commands(game_id) == []
    assert "영국 / 프랑스" in text, text  # the lines as written, both readings named
    assert "놓기 영국 또는 놓기 프랑스" in text, text  # both readings, in Korean words
    assert "understood" not in text.lower(), text  # said in Korean


def answer_to_table_talk(game_id: int, seat: int, body: str) -> str:
    """The seat's email reply to the last table talk it was sent, processed."""
    row, player = h.seat_row(game_id, seat)
    talk = [m for m in h.outbox(game_id, seat=seat, kind="table_talk") if m.message_id]
    assert talk, "no table talk was sent to the seat"
    stored = h.store_email(h.reply_email(player.email, row.reply_token, body, "tortuga.test",
                                         headers={"In-Reply-To": str(talk[-1].message_id)}))
    return str(inbound.process(stored.id, h.utcnow()))


def test_a_bare_number_answering_relayed_table_talk_is_not_a_menu_pick(setup: Env) -> None:
    game_id = started()
    assert reply(game_id, DIRK, "SAY Eve, 2 or 4?") == "done"

    assert answer_to_table_talk(game_id, EVE, "4") == "done"

    assert played(game_id) == []  # option 4 of Eve's menu (ROW) was not played
    answer = " ".join(answers(game_id, EVE)[-1].split())
    assert '"4": that answers table talk, not your menu, so nothing was played' in answer
    # a whole command in reply to table talk is still the player's order
    assert answer_to_table_talk(game_id, EVE, "REVEAL 4") == "done"
    assert played(game_id) == [(EVE, "REVEAL 4")]


def test_a_question_about_a_card_is_answered_with_that_card_by_sms(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557772003", channel="sms")
    min = games.PlayerSpec("Min", phone="+15557772004", channel="sms", language="ko")
    game_id = h.new_game([sam, min, *h.email_players(3)], seed=SEED)

    (english,) = texted(game_id, sam.phone, "how does the Black Spot work?")
    (korean,) = texted(game_id, min.phone, "검은 딱지는 어떻게 돼요?")

    assert "Black Spot: the revealer is marooned" in english, english
    assert "검은 딱지:" in korean, korean
    (zone,) = texted(game_id, sam.phone, "how do I change my time zone?")
    assert "ZONE Paris (your time zone: a city or UTC+2)" in zone, zone
    assert h.commands(game_id) == []


def test_a_bare_number_texted_after_relayed_table_talk_is_not_a_menu_pick(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557772005", channel="sms")
    game_id = h.new_game([sam, *h.email_players(4)], seed=SEED)
    assert h.pending(game_id)[0].seat == 0  # Sam places his starting treasure: 1 or 2
    texted(game_id, sam.phone, "TALK ON")
    assert reply(game_id, 1, "SAY Sam, 1 or 2?") == "done"

    (text,) = texted(game_id, sam.phone, "2")

    assert h.commands(game_id) == []
    assert 'Not understood: "2". Did you mean PLACE FRENCH?' in text, text
    texted(game_id, sam.phone, "PLACE FRENCH")  # a whole command still plays
    assert [c for _, c, _ in h.commands(game_id)] == ["PLACE FRENCH"]
