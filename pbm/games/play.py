"""A seat's commands: ``submit`` applies them through the engine and writes who is told
what (prompts, notices, vote results, the end of the game).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

import engine
from pbm import outbox, txcache
from pbm.games.base import (
    Result,
    due_at_of,
    insert_events,
    load_state,
    lock_game,
    make_result,
    next_seq,
    policy_of,
    save_state,
    seats_of,
    sync_deadlines,
    write_state,
)
from pbm.games.lifecycle import finish_game
from pbm.message_payloads import Notice, Payload, Prompt, VoteResult
from pbm.messages import MessageKind
from pbm.models import CommandLog, Game, GameEvent, GameStatus
from pbm.replies.reasons import (
    GAME_ENDED,
    GAME_NOT_STARTED,
    GAME_PAUSED,
    GAME_STOPPED,
    NO_SEAT_IN,
    QUESTION_CLOSED,
)

HAPPENS_TO_KINDS = {"pawn.marooned", "vote_card.lost", "card.given", "pawn.moved"}


def _parse(command: engine.Command | str) -> engine.Command:
    if isinstance(command, engine.Command):
        return command
    return engine.parse_command(command)


def submit(
    session: Session,
    game_id: int,
    seat: int,
    commands: engine.Command | str | Sequence[engine.Command | str],
    *,
    origin: str,
    now: datetime,
    decision_id: str | None = None,
    inbound_message_id: int | None = None,
    first_tell: Callable[[engine.GameState], None] | None = None,
) -> Result:
    """Apply a seat's command(s) in order, stopping at the first the rules refuse.

    In one transaction: command log, snapshot, events, deadlines, and the outbox (a PROMPT
    for every newly opened decision, a NOTICE to seats something happened to, the vote
    result to voters, GAME_OVER at the end). ``decision_id``, if given, must still be the
    seat's open decision, else nothing is applied (the reply answered a closed question).
    ``origin``: ``"inbound:<id>"``, ``"timeout"``, ``"admin"``, ``"cli"``...
    ``first_tell(post)`` writes messages that must reach seats before the prompts (the
    timeout notice): it runs once the deadlines are synced, before any other message.
    """
    batch = [commands] if isinstance(commands, engine.Command | str) else list(commands)
    game = lock_game(session, game_id)
    refused = _not_playable(session, game, seat)
    if refused is not None:
        refused.ignored = [str(c) for c in batch]
        return refused
    pre = state = load_state(game)
    if decision_id is not None and state.decision_id(seat) != decision_id:
        return make_result(session, game, seat, ok=False, code="command/not_your_decision",
                           state=state, ignored=[str(c) for c in batch],
                           message=QUESTION_CLOSED(),
                           why=QUESTION_CLOSED().to_dict())
    done: list[str] = []
    not_done: list[dict[str, Any]] = []
    ignored: list[str] = []
    logged: list[dict[str, Any]] = []  # command log rows, written together below
    happened: list[tuple[engine.Event, int | None, int]] = []  # and their events
    seq = next_seq(session, CommandLog, game_id)
    for i, raw in enumerate(batch):
        try:
            command = _parse(raw)
            state, events = engine.apply(state, seat, command)
        except engine.EngineError as exc:
            not_done.append({"command": str(raw), "reason": exc.message, "code": exc.code,
                             "why": exc.why.to_dict() if exc.why else None})
            ignored = [str(c) for c in batch[i + 1 :]]
            break
        logged.append({
            "game_id": game_id, "seq": seq, "seat": seat, "command": str(command),
            "state_version": state.version, "origin": origin[:64],
            "inbound_message_id": inbound_message_id, "created_at": now,
        })
        happened += [(e, seq, state.version) for e in events]
        done.append(str(command))
        seq += 1
    if not done:
        failure = not_done[0]
        return make_result(session, game, seat, ok=False, code=failure["code"], state=pre,
                           not_done=not_done, ignored=ignored, message=failure["reason"],
                           why=failure["why"])
    stored = insert_events(session, game, happened, now=now, commands=logged)  # one statement
    if state.over:  # its UPDATE goes with the game's end (``finish_game``'s changes)
        save_state(game, state, now)
        session.add(game)
    else:
        write_state(session, game, state, now)  # now, without the unit of work
    if state.version != pre.version:  # a version of our own making: no picture stored yet
        txcache.memo(session)[("board", game_id, state.version)] = False
    notified = _after_change(session, game, pre, state, stored, actor=seat, now=now,
                             first_tell=first_tell)
    visible = [outbox.event_dict(e) for e in stored if e.visible_to(seat)]
    message = f"done: {', '.join(done)}"
    if not_done:
        message += f"; not done: {not_done[0]['command']} ({not_done[0]['reason']})"
    return make_result(session, game, seat, ok=not not_done, state=state, done=done,
                       not_done=not_done, ignored=ignored, events=visible, notified=notified,
                       code=not_done[0]["code"] if not_done else None, message=message)


def _not_playable(session: Session, game: Game, seat: int) -> Result | None:
    if game.status == GameStatus.RUNNING:
        if not 0 <= seat < len(seats_of(session, game.id)):  # type: ignore[arg-type]
            why = NO_SEAT_IN(n=seat + 1, game=game.name)
            return make_result(session, game, None, ok=False, code="request/invalid",
                               message=why, why=why.to_dict())
        return None
    reasons = {
        GameStatus.PAUSED: ("game/paused", GAME_PAUSED(game=game.name,
                                                       why=str(game.pause_reason))),
        GameStatus.FINISHED: ("game/over", GAME_ENDED(game=game.name)),
        GameStatus.ABORTED: ("game/over", GAME_STOPPED(game=game.name)),
    }
    code, why = reasons.get(GameStatus(game.status),
                            ("game/not_started", GAME_NOT_STARTED(game=game.name)))
    return make_result(session, game, seat, ok=False, code=code, message=why, why=why.to_dict())


def _concerns(event: GameEvent, seat: int) -> bool:
    """True if the event happened *to* ``seat`` (worth a message of its own)."""
    seats = event.audience_seats()
    if seats is not None:
        return seat in seats
    data = json.loads(event.data_json or "{}")
    if data.get("target") == seat:
        return True
    return event.kind in HAPPENS_TO_KINDS and data.get("seat") == seat and data.get("by") not in {
        "ROW", "BOARD", "LAND", "row", "board", "land"}


def _after_change(session: Session, game: Game, pre: engine.GameState, post: engine.GameState,
                  events: list[GameEvent], *, actor: int | None, now: datetime,
                  first_tell: Callable[[engine.GameState], None] | None = None) -> list[int]:
    """Deadlines and messages after the state moved from ``pre`` to ``post``."""
    assert game.id is not None
    if post.over:
        if first_tell is not None:
            first_tell(post)
        return finish_game(session, game, post, now)
    sync_deadlines(session, game, post, policy_of(game), now)
    if first_tell is not None:
        first_tell(post)
    pre_vote = engine.public_view(pre).vote
    voters = set(pre_vote.participants) if pre_vote is not None else set()
    caller = pre_vote.caller if pre_vote is not None else None
    vote_results = [e for e in events if e.kind == "vote.result"]
    notified = []
    for seat, player in seats_of(session, game.id):
        s = seat.seat_index
        decision = post.decision_id(s)
        if decision is not None and decision != pre.decision_id(s):
            kind, dedupe = MessageKind.PROMPT, f"prompt:{decision}"
        elif s != actor and vote_results and (s in voters or s == caller):
            # the actor hears the result in the answer to its move (pbm.render: "outcome")
            kind, dedupe = MessageKind.VOTE_RESULT, f"vote_result:v{post.version}"
        elif s != actor and any(_concerns(e, s) for e in events):
            kind, dedupe = MessageKind.NOTICE, f"notice:v{post.version}"
        else:
            continue
        payload: Payload = Prompt()
        if kind is MessageKind.NOTICE:  # said in the seat's words, with its cause
            first = next(e for e in events if _concerns(e, s))
            payload = Notice(headline=first.text, headline_seq=first.seq)
        if kind is MessageKind.VOTE_RESULT:
            payload = VoteResult(result=outbox.event_dict(vote_results[-1]))
        outbox.notify(session, game, seat, player, payload, now=now,
                      dedupe=f"g{game.id}:s{s}:{dedupe}", state=post,
                      deadline=due_at_of(session, game.id, s))
        notified.append(s)
    return notified
