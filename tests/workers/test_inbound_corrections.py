"""Issue 25 through the real pipeline (PostgreSQL): a correction is never a wrong move, a
secret vote can be changed until it closes, turn actions are final, phone reactions are not
answered. Each test reads the answer as it is stored in the outbox, ready to send."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.cards import VOTE_DECK
from pbm import db, games, inbound, vote_ledger
from pbm.games import audit, unmasking
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply

DOMAIN = "tortuga.test"
#: With this seed the two Captains place their treasure, then Eve (seat 4) takes the first
#: turn; the Jolly Roger is Eve and Dirk (seat 3), so Eve's Attack is voted by both.
SEED = 1
EVE, DIRK = 4, 3


@pytest.fixture
def setup(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    apply(env, monkeypatch)
    yield env


def started() -> int:
    """A 5-player game at Eve's first turn."""
    game_id = h.new_game(h.email_players(5), seed=SEED)
    for _ in range(2):
        decision = h.pending(game_id)[0]
        play(game_id, decision.seat, "PLACE BRITISH")
    assert h.pending(game_id)[0].seat == EVE
    return game_id


def play(game_id: int, seat: int, command: str) -> None:
    result = db.run_transaction(lambda s: games.submit(
        s, game_id, seat, [command], origin="cli", now=h.utcnow()))
    assert result.ok, result.message


def reply(game_id: int, seat: int, body: str, *, threaded: bool = True) -> str:
    """The seat's email reply, processed; what became of it. ``threaded``: it answers the
    seat's latest prompt (In-Reply-To), as mail clients send it."""
    row, player = h.seat_row(game_id, seat)
    prompts = [m for m in h.outbox(game_id, seat=seat, kind="prompt") if m.message_id]
    headers = {"In-Reply-To": str(prompts[-1].message_id)} if threaded and prompts else {}
    stored = h.store_email(h.reply_email(player.email, row.reply_token, body, DOMAIN,
                                         headers=headers))
    return str(inbound.process(stored.id, h.utcnow()))


def sms(phone: str, body: str) -> str:
    return str(inbound.process(h.store_sms(phone, "+15005550006", body).id, h.utcnow()))


def answers(game_id: int, seat: int) -> list[str]:
    return [m.text for m in h.outbox(game_id, seat=seat, kind="reply")]


def played(game_id: int) -> list[tuple[int, str]]:
    return [(seat, command) for seat, command, _ in h.commands(game_id)][2:]


def test_a_same_line_correction_plays_the_corrected_command(setup: Env) -> None:
    game_id = started()

    assert reply(game_id, EVE, "reveal 2, no wait, 4") == "done"

    assert played(game_id) == [(EVE, "REVEAL 4")]
    told = h.outbox(game_id, seat=EVE)[-1].text  # the recap of her next message says so
    assert "We read your reply as REVEAL 4 (instead of REVEAL 2)." in " ".join(told.split())


def test_a_retraction_plays_nothing_and_the_answer_says_so(setup: Env) -> None:
    game_id = started()

    assert reply(game_id, EVE, "REVEAL 3\nActually no, forget that.") == "done"

    assert played(game_id) == []
    (answer,) = answers(game_id, EVE)
    assert "REVEAL 3: you took it back" in answer


def test_a_vote_changed_before_it_closes_replaces_the_seats_vote_and_tells_nobody_else(
        setup: Env) -> None:
    game_id = started()
    play(game_id, EVE, "ATTACK")
    assert reply(game_id, DIRK, "VOTE 1") == "done"
    others = {s: len(h.outbox(game_id, seat=s)) for s in range(5) if s != DIRK}

    assert reply(game_id, DIRK, "sorry, I meant VOTE 3") == "done"

    assert played(game_id)[-2:] == [(DIRK, "VOTE 1"), (DIRK, "REVOTE 3")]
    assert "Your vote is now card 3 (" in answers(game_id, DIRK)[-1]
    assert {s: len(h.outbox(game_id, seat=s)) for s in others} == others  # the table: nothing
    hand_before = h.state_of(game_id).stage.hand_before(DIRK)  # type: ignore[union-attr]
    assert hand_before is not None and h.state_of(game_id).hands[DIRK] == [
        hand_before[0], hand_before[1]]
    with db.session_scope(write=False) as session:
        assert audit.replay_matches(session, game_id)
        card = VOTE_DECK[hand_before[2]].describe()
        assert vote_ledger.ledger(session, game_id, DIRK)[-1]["played"] == card
    play(game_id, EVE, "VOTE 1")  # the vote closes with Dirk's card 3
    assert h.state_of(game_id).stage is None or h.pending(game_id)[0].kind.value != "VOTE"
    with db.session_scope(write=False) as session:  # the story told when the game is over
        plays = unmasking.story(session, game_id)["votes"][-1]["plays"]
    assert [p for p in plays if p.startswith("Dirk")] == [f"Dirk played {card}"]


def test_a_vote_can_be_changed_in_words_until_it_closes_but_not_after(setup: Env) -> None:
    game_id = started()
    play(game_id, EVE, "ATTACK")
    reply(game_id, DIRK, "VOTE 2")

    reply(game_id, DIRK, "change my vote to 1")
    play(game_id, EVE, "VOTE 1")
    reply(game_id, DIRK, "VOTE 3")

    assert played(game_id)[1:4] == [(DIRK, "VOTE 2"), (DIRK, "REVOTE 1"), (EVE, "VOTE 1")]
    assert len(played(game_id)) == 4  # the vote was closed: VOTE 3 changed nothing


@pytest.mark.parametrize("correction", ["sorry I meant REVEAL 4", "actually no, reveal 4",
                                        "Actually, no - REVEAL 4", "wait, REVEAL 4 instead"])
@pytest.mark.parametrize("threaded", [True, False], ids=["in-thread", "unthreaded"])
def test_an_applied_turn_action_is_final_and_the_answer_says_so(setup: Env, threaded: bool,
                                                                correction: str) -> None:
    game_id = started()
    assert reply(game_id, EVE, "REVEAL 3") == "done"
    after_reveal = h.commands(game_id)

    # In the thread of the turn prompt (a settled question now), or with nothing to say
    # which message it answers: either way the answer names what was played.
    assert reply(game_id, EVE, correction, threaded=threaded) == "done"

    assert h.commands(game_id) == after_reveal
    answer = answers(game_id, EVE)[-1]
    assert "your REVEAL 3 was already played and is final (a turn action cannot be" in answer


def test_a_phone_reaction_is_ignored_and_not_answered(setup: Env) -> None:
    sam = games.PlayerSpec("Sam", phone="+15557770001", channel="sms")
    game_id = h.new_game([sam, *h.email_players(4)], seed=SEED)
    before = len(h.outbox(game_id, seat=0))

    outcome = sms("+15557770001", "Reacted 😮 to “Tortuga by Mail: place your treasure”")

    assert outcome.startswith("ignored: a phone reaction")
    assert len(h.outbox(game_id, seat=0)) == before
    assert h.commands(game_id) == []
