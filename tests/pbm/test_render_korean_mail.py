"""Korean email (issue 24): every section of every message kind, text and HTML, is Korean
for a Korean reader, over the states of 2 to 9 player games (in progress, paused, over).

The leak check: once the tokens a Korean message may carry in Latin letters are taken out
(player and game names, addresses, zone names, KST/UTC, the ship codes FD/JR, ZONE and
AWAY, which have no Korean word yet, "Ref" and the English half of the reply marker), no
run of three or more ASCII letters is left: any English sentence or game word would leave
one. No "?" from a failed encoding, no U+FFFD, no mojibake; the Korean SMS of every kind
keeps its UCS-2 budget (``KO_SMS_PARTS`` parts; STATUS two such messages)."""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import engine
from pbm import vote_ledger
from pbm.games import unmasking
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import SMS_MAX_KO_UNITS, render, utf16_units
from pbm.render.email import SECTIONS
from tests.fixtures.messages import context_for, simulated_states, with_fields
from tests.pbm.test_render_korean import english_words

HANGUL = re.compile(r"[\uac00-\ud7a3]")
MARKER_EN = "Reply above this line"
#: Latin a Korean message may carry besides names and addresses.
ALLOWED = ("KST", "UTC", "ZONE", "AWAY", "Ref", "FD", "JR", MARKER_EN)
ZONE_NAME = re.compile(r"\b[A-Z][A-Za-z_]+/[A-Za-z_/]+\b")
ADDRESS = re.compile(r"(?:mailto:|https?://)\S+|[\w.+-]+@[\w.-]+")
MOJIBAKE = ("\ufffd", "Ã", "Â", "ì", "í", "ë", "â€")
KOREAN_NOTE = "일요일 밤 게임, 메일로!"  # free text players and admins write themselves
KOREAN_REASON = "관리자 출장 중"


def leaks(text: str, names: list[str]) -> list[str]:
    """The runs of 3+ ASCII letters left in ``text`` once names and allowed tokens go."""
    text = ADDRESS.sub(" ", text)
    text = ZONE_NAME.sub(" ", text)
    for word in sorted([*names, *(w for n in names for w in n.split()), *ALLOWED],
                       key=len, reverse=True):
        text = text.replace(word, " ")
    return re.findall(r"[A-Za-z]{3,}", text)


def visible_html(page: str) -> str:
    """What an HTML email shows: text outside tags, plus alt and title texts."""
    page = re.sub(r"<head>.*?</head>", " ", page, flags=re.DOTALL)
    shown = " ".join(re.findall(r'\b(?:alt|title)="([^"]*)"', page))
    return html.unescape(re.sub(r"<[^>]+>", " ", page) + " " + shown)


def check_korean(text: str, names: list[str], what: object) -> None:
    assert HANGUL.search(text), (what, text)
    for bad in MOJIBAKE:
        assert bad not in text, (what, bad, text)
    assert not re.search(r"\?\?|\w\?\w", text), (what, text)
    assert leaks(text, names) == [], (what, leaks(text, names), text)


def korean(ctx: MessageContext, **extra: Any) -> MessageContext:
    return dataclasses.replace(with_fields(ctx, **extra), language="ko",
                               time_zone="Asia/Seoul")


def _steps(n: int, seed: int) -> tuple[list[Any], list[tuple[int, list[engine.Event], Any]]]:
    steps = list(simulated_states(n, seed))
    told, turn = [], 1
    for step in steps:
        told.append((turn, step.events, step.state))
        turn = step.state.turn_number
    return steps, told


def _ledger(steps: list[Any], seat: int) -> list[dict[str, Any]]:
    events = [(e.kind, e.text, None if e.audience is None else frozenset(e.audience),
               dict(e.data)) for step in steps for e in step.events]
    return vote_ledger.ledger_of(events, seat)


def variants(state: engine.GameState, seat: int, events: list[engine.Event],
             story: dict[str, Any], ledger: list[dict[str, Any]]
             ) -> Iterator[tuple[str, MessageContext]]:
    """Every message kind, and the variants of its sections, for ``seat`` in ``state``."""
    for kind in MessageKind:
        ctx = context_for(kind, state, seat, events)
        yield kind.value, korean(ctx)
        if kind is MessageKind.INVITATION:
            yield "invitation.note", korean(ctx, message=KOREAN_NOTE, inviter=None, timing={
                "action_hours": 36, "vote_hours": 12, "other_hours": 0.5, "away_hours": 96})
            yield "invitation.utc", dataclasses.replace(korean(ctx), time_zone="UTC",
                                                        deadline=None)
        if kind in (MessageKind.REMINDER, MessageKind.FINAL_WARNING):
            yield f"{kind.value}.invitation", korean(ctx, invitation=True)
            yield f"{kind.value}.pause", korean(ctx, policy="pause", grace_hours=2)
            yield f"{kind.value}.if_silent", korean(ctx, if_silent="확인 1 2", grace_hours=1)
        if kind is MessageKind.PROMPT:
            yield "prompt.started", korean(ctx, started=True, vote_ledger=ledger,
                                           table_talk=[{"name": state.names[-1],
                                                        "text": KOREAN_NOTE}])
            yield "prompt.folded", korean(ctx, timed_out="VIEW 1 2", read_as=["REVEAL 3"])
            yield "prompt.folded_secret", korean(ctx, timed_out="VOTE 1",
                                                 timed_out_secret=True)
        if kind is MessageKind.STATUS:
            yield "status.ledger", korean(ctx, vote_ledger=ledger)
        if kind is MessageKind.TIMED_OUT:
            yield "timed_out.other", korean(ctx, you=False)
            yield "timed_out.other_secret", korean(ctx, you=False, played=None)
            yield "timed_out.paused", korean(ctx, played=None, paused=True)
            yield "timed_out.why", korean(ctx, played=None, why="어느 팀에도 유리하지 않음")
        if kind is MessageKind.PAUSED:
            yield "paused.reason", korean(ctx, reason=KOREAN_REASON)
            yield "paused.none", korean(ctx, reason=None)
        if kind is MessageKind.RESUMED:
            yield "resumed.reason", korean(ctx, reason=KOREAN_REASON, paused_hours=50)
        if kind is MessageKind.SEAT_REPLACED:
            yield "seat_replaced.left", korean(ctx, you_were_replaced=True)
            yield "seat_replaced.left_nameless", korean(ctx, you_were_replaced=True,
                                                         new_name=None)
            yield "seat_replaced.others", korean(ctx, briefing=False)
        if kind is MessageKind.TABLE_TALK:
            yield "table_talk.korean", korean(ctx, text=KOREAN_NOTE)
        if kind is MessageKind.REPLY:  # help texts and parser reasons: not this file's
            yield "reply.log", korean(ctx, reply={}, rejected=[], help=None, log=True,
                                      done=["REVEAL 3"])
            yield "reply.log_empty", dataclasses.replace(
                korean(ctx, reply={}, rejected=[], help=None, log=True, done=[]), events=())
        if kind is MessageKind.GAME_OVER:
            yield "game_over.story", korean(ctx, aborted=False, unmasking=story,
                                            unmasking_chart="treasure-42@tortuga.test")
            yield "game_over.aborted", korean(ctx, aborted=True, reason=KOREAN_REASON)
            yield "game_over.no_votes", korean(ctx, aborted=False, unmasking_chart=None, unmasking={
                "votes": [], "moves": [], "treasure": []})


#: Kinds whose default fixture carries English the player or the parser wrote.
_FREE_TEXT = {"paused", "table_talk", "reply", "game_over"}


def korean_emails(sizes: range = range(2, 10), per_game: int = 5
                  ) -> Iterator[tuple[str, MessageContext, list[str]]]:
    for n in sizes:
        steps, told = _steps(n, 300 + n)
        story = unmasking.tell(list(steps[0].state.names), told)
        picked = sorted({0, len(steps) // 3, len(steps) // 2, 2 * len(steps) // 3,
                         len(steps) - 1})[:per_game]
        for i in picked:
            state = steps[i].state
            events = [e for step in steps[max(0, i - 6): i + 1] for e in step.events]
            seat = i % n
            ledger = _ledger(steps[: i + 1], seat)
            for name, ctx in variants(state, seat, events, story, ledger):
                yield name, ctx, [*state.names, "Nassau", "Long John", "Ann", "Bob"]


@pytest.mark.slow
def test_every_korean_email_section_is_korean_in_text_and_html() -> None:
    checked: set[str] = set()
    sections: set[str] = set()
    over = paused = 0
    for name, ctx, names in korean_emails():
        email = render(ctx, Channel.EMAIL)
        check_korean(email.subject, names, (name, "subject"))
        if name in _FREE_TEXT:  # the fixture's English reason / talk / reply: shown as is
            assert HANGUL.search(email.text), name
        else:
            check_korean(email.text, names, (name, "text"))
            check_korean(visible_html(email.html or ""), names, (name, "html"))
        checked.add(name)
        over += bool(ctx.seat_view and ctx.seat_view["public"]["status"] != "playing")
        paused += name.startswith("paused")
        sections.update(_sections_of(ctx))
    assert {k.value for k in MessageKind} <= checked
    assert over and paused
    every = {s for kind in SECTIONS.values() for s in kind} | {
        "invitation", "left", "ledger", "unmasking", "started", "policy", "log"}
    assert every - {"help", "answers"} <= sections, every - sections


def _sections_of(ctx: MessageContext) -> tuple[str, ...]:
    from pbm.i18n import translate
    from pbm.render.email import sections_of
    from pbm.render.model import build_model

    with translate.reading(ctx.language):
        return sections_of(ctx, build_model(ctx))


def test_every_korean_sms_kind_keeps_its_ucs2_budget_and_is_korean() -> None:
    for name, ctx, names in korean_emails(range(2, 10, 3), per_game=3):
        sms = render(ctx, Channel.SMS)
        assert sms.sms is not None and HANGUL.search(sms.sms), (name, sms.sms)
        limit = SMS_MAX_KO_UNITS
        if ctx.kind is not MessageKind.REPLY:  # an answer's HELP / LOG: messages of their own
            assert len(sms.sms_more) <= (1 if ctx.kind is MessageKind.STATUS else 0), name
        for text in (sms.sms, *sms.sms_more):
            assert utf16_units(text) <= limit, (name, utf16_units(text), text)
            assert "\ufffd" not in text and not re.search(r"\?\?", text), (name, text)
        if ctx.kind not in (MessageKind.REPLY, MessageKind.TABLE_TALK):  # relayed as written
            leaked = english_words(sms.sms.replace("ZONE", ""), names)
            assert leaked == [], (name, leaked, sms.sms)


def test_the_unmasking_and_the_ledger_are_told_in_korean_from_their_data() -> None:
    steps, told = _steps(6, 41)
    names = list(steps[0].state.names)
    story = unmasking.tell(names, told)
    assert story["votes"] and all(v["cast"] for v in story["votes"])
    ctx = korean(context_for(MessageKind.GAME_OVER, steps[-1].state, 0, steps[-1].events),
                 aborted=False, unmasking=story, unmasking_chart="treasure-42@tortuga.test")
    email = render(ctx, Channel.EMAIL)
    first = story["votes"][0]
    assert f"{first['turn']}턴: {first['caller']}님이 " in email.text
    assert any(f"{names[c['seat']]}: " in email.text for c in first["cast"])
    assert "정체 공개" in email.text and 'alt="턴별 팀 보물"' in (email.html or "")
    english = render(dataclasses.replace(ctx, language="en", time_zone="Europe/Berlin"),
                     Channel.EMAIL).text
    assert first["plays"][0] in english  # English readers: the service's own sentences
    voter = first["cast"][0]["seat"]
    ledger = _ledger(steps, voter)
    assert ledger and all("key" in v for v in ledger)
    status = render(korean(context_for(MessageKind.STATUS, steps[-1].state, voter, []),
                           vote_ledger=ledger), Channel.EMAIL).text
    assert "지금까지의 투표" in status and ledger[-1]["played"] not in status


def test_the_korean_reply_marker_is_found_by_the_reply_parser() -> None:
    from pbm.replies.quoting import strip_quoted

    state = next(step.state for step in simulated_states(4, 5)
                 if any(d.seat == 0 for d in engine.pending(step.state)))
    text = render(korean(context_for(MessageKind.PROMPT, state, 0, [])), Channel.EMAIL).text
    marker = next(line for line in text.splitlines() if MARKER_EN in line)
    assert HANGUL.search(marker) and marker.startswith("--- Reply above this line")
    quoted = "\n".join("> " + line for line in text.splitlines())
    assert strip_quoted(f"3번 공개\n\n{marker}\n{text}") == "3번 공개"
    assert strip_quoted(f"3번 공개\n\n2026년 12월 1일 (화) 오후 3:04, Tortuga "
                        f"<play@x.kr>님이 작성:\n{quoted}") == "3번 공개"


def test_a_korean_players_calendar_event_is_korean() -> None:
    from pbm.deadlines.calendar import build_ics
    from pbm.models import Deadline, Game, Player

    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    game = Game(id=7, name="Nassau", seed=1)
    deadline = Deadline(game_id=7, seat=0, kind="VOTE", decision_key="v1",
                        due_at=now + timedelta(hours=20))
    for method in ("REQUEST", "CANCEL"):
        ko = build_ics(method, game=game, seat=0, player=Player(
            display_name="민준", email="minjun@example.kr", time_zone="Asia/Seoul",
            language="ko"), deadline=deadline, due=deadline.due_at, sequence=0, now=now)
        en = build_ics(method, game=game, seat=0, player=Player(
            display_name="Ann", email="ann@example.com", time_zone="Asia/Seoul"),
            deadline=deadline, due=deadline.due_at, sequence=0, now=now)
        said = _ics_texts(ko)
        assert said and all(HANGUL.search(s) for s in said), said
        assert leaks(" ".join(said), ["Nassau"]) == [], said
        assert any("Tortuga Nassau: your vote is due" in s or "Nothing is awaited" in s
                   for s in _ics_texts(en))


def _ics_texts(ics: str) -> list[str]:
    unfolded = re.sub(r"\r?\n[ \t]", "", ics)
    return [line.split(":", 1)[1].replace("\\,", ",").replace("\\;", ";")
            for line in unfolded.splitlines()
            if line.startswith(("SUMMARY", "DESCRIPTION"))]


def test_hints_to_a_reply_that_is_no_command_are_korean() -> None:
    state = next(step.state for step in simulated_states(4, 5)
                 if any(d.seat == 0 for d in engine.pending(step.state)))
    base = context_for(MessageKind.REPLY, state, 0, [])
    for line, said in (("pass", "건너뛸 수 없습니다"), ("undo that", "되돌릴 수 없습니다"),
                       ("what are my options", "선택지는 아래에 있습니다")):
        ctx = korean(base, reply={"ignored": [line]}, rejected=[], done=[], help=None,
                     log=False, last_applied=None)
        email = render(ctx, Channel.EMAIL)
        assert said in email.text and said in (email.html or ""), (line, email.text)
        hints = email.text.split("\n\n")[1]
        check_korean(hints, [], line)


def test_the_answer_to_settings_has_korean_headings() -> None:
    state = next(simulated_states(3, 5)).state
    ctx = korean(context_for(MessageKind.REPLY, state, 0, []), reply={}, rejected=[],
                 done=[], help=None, log=False, answers=["ZONE Asia/Seoul"])
    email = render(ctx, Channel.EMAIL)
    assert email.text.startswith("설정함: ZONE") and "나의 설정" in (email.html or "")
    assert "SETTINGS" in email.text and "Your settings" not in email.text
    english = render(dataclasses.replace(ctx, language="en"), Channel.EMAIL).text
    assert english.startswith("Set: ZONE") and "YOUR SETTINGS" in english
    assert "Send SETTINGS to see them all" in english
