"""The email sections built from what the service computed in English, told again in the
reader's language (issue 24): the unmasking (``pbm.games.unmasking.story``), the vote ledger
(``pbm.vote_ledger.ledger``), the game's end reason and lengths of time.

The service computes these once per game (the story) or per seat (the ledger) with English
sentences, which English readers get exactly as before. Both also carry the data the
sentences were written from (vote keys, card ids, the result event's data); a reader of
another language gets sentences written here from that data with the catalogue's words
(``pbm.i18n.translate``) and the glossary's game terms. An entry without that data (a
message queued before this was added) keeps a line with no English in it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from engine.cards import VOTE_DECK
from pbm.humanize import hours
from pbm.i18n import dates, glossary
from pbm.i18n.translate import N_, _, current
from pbm.render.news import voice

#: The engine's reasons a game ended (``engine.board.end_game``), for the catalogue.
END_REASONS = (
    N_("sudden death: took the lead"),
    N_("the Spanish Armada arrived"),
    N_("the Spanish Armada arrived with the teams tied"),
    N_("stopped by the admin"),
)

_VOTES = ("ATTACK", "BRAWL", "MUTINY")


def hours_text(value: float) -> str:
    """A number of hours for the reader ("24 hours" / "24시간"; English: ``pbm.humanize``)."""
    if current() == "en":
        return hours(value)
    length = timedelta(hours=value)
    return dates.length_text(length, current()) or _("less than a minute")


def vote_word(key: str) -> str:
    """``"ATTACK"`` -> the reader's word for that vote."""
    key = str(key).upper()
    if key in _VOTES:
        return glossary.term("actions", key, current())
    return key.capitalize()


def _symbol(key: str) -> str:
    key = str(key).upper()
    if ("symbols", key) in glossary.terms():
        return glossary.term("symbols", key, current())
    return key.capitalize()


def vote_card(card_id: int) -> str:
    """A Vote card by its three sections, in the reader's words ("대포 / 영국 / 해골";
    a double card: "횃불 2개 / 프랑스 2개 / 해골 2개")."""
    return described(VOTE_DECK[int(card_id)].describe())


def described(text: str) -> str:
    """The engine's description of a Vote card (``VoteCard.describe``: "Cannon / British /
    Skull", "2 Torch / 2 French / 2 Skull") in the reader's words."""
    if current() == "en":
        return text
    parts = []
    for part in str(text).split(" / "):
        count, _space, word = part.strip().rpartition(" ")
        symbol = _symbol(word)
        parts.append(_("{symbol} x{n}").format(symbol=symbol, n=count)
                     if count.isdigit() else symbol)
    return " / ".join(parts)


def _cards(ids: Sequence[Any]) -> str:
    return _(" and ").join(vote_card(c) for c in ids)


def outcome_text(vote: str, outcome: str) -> str:
    """The result of a vote in a few words ("the Attack succeeds")."""
    word = vote_word(vote)
    if outcome == "SUCCESS":
        return _("the {vote} succeeds").format(vote=word)
    if outcome == "FAILURE":
        return _("the {vote} fails").format(vote=word)
    if outcome in ("BRITISH", "FRENCH"):
        return _("the {team} flags win").format(
            team=glossary.term("teams", outcome, current()))
    if outcome == "TIE":
        return _("a tie")
    return ""


def _result_sentence(result: Mapping[str, Any] | None) -> str:
    if not isinstance(result, Mapping):
        return ""
    data = result.get("data") or {}
    shown = ", ".join(_symbol(s) for s in data.get("symbols") or []) or _("no cards")
    return _("The {vote} vote shows {symbols}: {outcome}.").format(
        vote=vote_word(str(data.get("vote", ""))), symbols=shown,
        outcome=outcome_text(str(data.get("vote", "")), str(data.get("outcome", ""))))


def _event_line(move: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """A move of the unmasking as news tells its event (``pbm.render.news.voice``)."""
    event = move.get("event")
    said = voice(event, None, names) if isinstance(event, Mapping) else None
    if said is not None:
        return said[1]
    return str(move.get("text", "")) if current() == "en" else _("A treasure was moved.")


def story(story: Mapping[str, Any], names: Mapping[int, str]) -> Mapping[str, Any]:
    """The unmasking in the reader's language (English: ``story`` itself, its moves told
    as news tells them)."""
    if not story:
        return story
    if current() == "en":
        return {**story, "moves": [{**m, "text": _event_line(m, names)}
                                   for m in story.get("moves") or []]}
    votes = []
    for v in story.get("votes") or []:
        key = str(v.get("key") or v.get("vote") or "")
        plays = [_("{name} played {cards}").format(
            name=names.get(int(c["seat"]), str(c["seat"])), cards=_cards(c["cards"]))
            for c in v.get("cast") or []]
        votes.append({**v, "vote": vote_word(key), "plays": plays,
                      "outcome": _result_sentence(v.get("result"))})
    moves = [{**m, "text": _event_line(m, names)} for m in story.get("moves") or []]
    return {**story, "votes": votes, "moves": moves}


def ledger(votes: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The vote ledger in the reader's language (English: as the service wrote it)."""
    if current() == "en":
        return list(votes)
    out: list[Mapping[str, Any]] = []
    for v in votes:
        result = v.get("result")
        data = result.get("data") or {} if isinstance(result, Mapping) else {}
        if isinstance(result, Mapping):
            shown = ", ".join(_symbol(s) for s in data.get("symbols") or []) or _("no cards")
            outcome = outcome_text(str(data.get("vote", "")), str(data.get("outcome", "")))
        else:
            shown, outcome = "", _("waiting for the other votes")
        out.append({**v, "vote": vote_word(str(v.get("key") or v.get("vote") or "")),
                    "played": _cards(v.get("cards") or []), "shown": shown,
                    "outcome": outcome})
    return out
