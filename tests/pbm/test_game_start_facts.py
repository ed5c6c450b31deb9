"""The game-start facts reach every seat, whatever prompt they are folded into (issue 37):
its team, its Vote cards and its seat, in the first message of the game, for every seat of
2 to 9 players, by email and by SMS, in English and in Korean. A seat that starts as the
Captain gets a "place your starting treasure" prompt, not the game-start message: it must
learn its team there (before it places the treasure on one side)."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy.engine import Engine

import engine
from pbm import db, games
from pbm.i18n import glossary
from pbm.i18n.translate import reading
from pbm.models import OutboundMessage
from pbm.render.names import SYMBOL_NAMES, game_word
from pbm.render.sms_board import sms_card
from tests.pbm.conftest import rows, state_of

SEAT_WORDS = {"en": "seat {n}", "ko": "{n}번 자리"}
#: How a message says the reader's own team (a team word alone is no proof: PLACE BRITISH)
TEAM_WORDS = {("sms", "en"): "you are {team}", ("email", "en"): "loyalty: {team}",
              ("sms", "ko"): "당신은 {team} 편", ("email", "ko"): "소속: {team}"}


def _start(eng: Engine, now: datetime, n: int, channel: str, lang: str, seed: int) -> int:
    specs = [games.PlayerSpec(f"P{i + 1}", email=f"p{i + 1}@example.org",
                              phone=f"+1555000{i + 1:04d}", channel=channel, language=lang)
             for i in range(n)]
    game_id = db.run_transaction(lambda s: games.create_game(
        s, f"g{n}-{seed}{channel[0]}{lang}", specs, now=now, seed=seed).id, eng)
    assert game_id is not None
    db.run_transaction(lambda s: games.invite(s, game_id, now=now), eng)
    for seat in range(n):
        db.run_transaction(lambda s, seat=seat: games.respond(s, game_id, seat, join=True,
                                                               now=now), eng)
    return int(game_id)


def _first_message(eng: Engine, game_id: int, seat: int, channel: str) -> str:
    first = [r for r in rows(eng, OutboundMessage, game_id=game_id, seat=seat)
             if r.kind in ("prompt", "game_started") and r.channel == channel]
    assert len(first) == 1, f"seat {seat}: {[r.kind for r in first]}"
    return first[0].sms_body or first[0].text if channel == "sms" else first[0].text


def _card_words(card: engine.VoteCard, channel: str, lang: str) -> list[str]:
    """How a Vote card's symbols are written in that channel and language."""
    sections = {"top": [s.value for s in card.top], "middle": [s.value for s in card.middle],
                "bottom": [s.value for s in card.bottom]}
    with reading(lang):
        if channel == "sms":
            return [sms_card(sections)]
        return [game_word("symbols", s, SYMBOL_NAMES.get(s, s))
                for part in sections.values() for s in part]


@pytest.mark.parametrize("lang", ["en", "ko"])
@pytest.mark.parametrize("channel", ["sms", "email"])
def test_every_seat_learns_its_team_vote_cards_and_seat_in_its_first_message(
    eng: Engine, now: datetime, channel: str, lang: str
) -> None:
    missing: list[str] = []
    for n in range(2, 10):
        for seed in (1, 2):  # the Captains sit elsewhere
            game_id = _start(eng, now, n, channel, lang, seed=n * 10 + seed)
            state = state_of(eng, game_id)
            assert state.loyalties is not None
            for seat in range(n):
                text = _first_message(eng, game_id, seat, channel)
                team = glossary.term("teams", state.loyalties[seat].value, lang)
                facts = [TEAM_WORDS[channel, lang].format(team=team),
                         SEAT_WORDS[lang].format(n=seat + 1)]
                facts += [word for card_id in state.hands[seat]
                          for word in _card_words(engine.VOTE_DECK[card_id], channel, lang)]
                lost = [fact for fact in facts if fact.lower() not in text.lower()]
                if lost:
                    missing.append(f"{n} players, seat {seat + 1}: no {lost}:\n{text}")
    assert not missing, f"{len(missing)} first messages lack a fact; " + "\n\n".join(
        missing[:3])
