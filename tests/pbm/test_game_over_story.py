"""The game-over message says why the game ended and answers the move that ended it
(issue 37): whole games played through the service to their end; every seat's game-over
email and SMS, in English and in Korean, names the rule that ended it, and the seat whose
move ended it reads that move in the second person ("You revealed Spanish Armada")."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine

import engine
from engine.simulate import random_command
from pbm import db, games
from pbm.i18n import glossary
from pbm.models import GameEvent, OutboundMessage
from tests.pbm.conftest import rows, state_of, submit

#: What a game-over message says for each end reason, by language.
WHY = {  # the rule in full, or in fewer words when an SMS is short of room
    "en": {"the Spanish Armada arrived": "The Spanish Armada end",
           "the Spanish Armada arrived with the teams tied": "The Spanish Armada end",
           "sudden death: took the lead": "Sudden death: "},
    "ko": {"the Spanish Armada arrived": "스페인 무적 함대가 게임을",
           "the Spanish Armada arrived with the teams tied": "스페인 무적 함대가 게임을",
           "sudden death: took the lead": "서든 데스: "},
}
#: How the mover reads its own reveal of the Armada.
YOU_REVEALED = {"en": "You revealed Spanish Armada",
                "ko": "당신: {name} 공개 ({n}번 카드)"}


def _play_to_the_end(eng: Engine, now: datetime, lang: str, seed: int
                     ) -> tuple[int, engine.GameState, int]:
    """A 5-player game (seats 1, 3 by SMS, the rest by email) played at random to its end:
    (game id, final state, the seat whose move ended it)."""
    specs = [games.PlayerSpec(f"P{i + 1}", email=f"p{i + 1}@example.org",
                              phone=f"+1555000{i + 1:04d}",
                              channel="sms" if i in (0, 2) else "email", language=lang)
             for i in range(5)]
    game_id = db.run_transaction(lambda s: games.create_game(
        s, f"over-{lang}-{seed}", specs, now=now, seed=seed).id, eng)
    assert game_id is not None
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    for seat in range(5):
        db.run_transaction(lambda s, seat=seat: games.respond(s, game_id, seat, join=True,
                                                               now=now), eng)
    rng = random.Random(seed)
    for _ in range(3000):
        state = state_of(eng, game_id)
        decision = rng.choice(engine.pending(state))
        now += timedelta(minutes=20)
        assert submit(eng, game_id, decision.seat, random_command(rng, decision), now).ok
        state = state_of(eng, game_id)
        if state.over:
            return game_id, state, decision.seat
    raise AssertionError("the game did not end")


def test_the_game_over_message_says_why_and_answers_the_move_that_ended_it(
    eng: Engine, now: datetime
) -> None:
    mover_checked: set[tuple[str, str]] = set()
    for lang in ("en", "ko"):
        for seed in range(1, 13):
            if seed > 3 and {(lang, "sms"), (lang, "email")} <= mover_checked:
                break
            game_id, state, mover = _play_to_the_end(eng, now, lang, seed)
            why = WHY[lang][str(state.end_reason)]
            for row in rows(eng, OutboundMessage, game_id=game_id, kind="game_over"):
                text = " ".join(str(row.sms_body if row.channel == "sms" else row.text).split())
                assert text and why in text, f"{lang} {row.channel}: no {why!r} in\n{text}"
                if row.seat != mover or "Armada" not in str(state.end_reason):
                    continue
                position = _armada_position(eng, game_id)
                you = YOU_REVEALED[lang].format(
                    n=position, name=glossary.event_name("SPANISH_ARMADA", "ko"))
                assert you in text, f"{lang} {row.channel}: the mover's move unanswered\n{text}"
                mover_checked.add((lang, row.channel))
    assert {("en", "sms"), ("en", "email"), ("ko", "sms"), ("ko", "email")} <= mover_checked


def _armada_position(eng: Engine, game_id: int) -> int:
    revealed = [e for e in rows(eng, GameEvent, game_id=game_id, kind="event.revealed")
                if '"SPANISH_ARMADA"' in (e.data_json or "")]
    return int(json.loads(revealed[-1].data_json)["position"])
