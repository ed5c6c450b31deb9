"""The simulated player reads the service's real messages and answers in the reply language.

Messages here are rendered by the real service for a real game on SQLite; replies go
through the real inbound path (``pbm.inbound``), processed in this process instead of by a
worker (the worker-backed runs are in test_demo_cli.py and test_play_cli.py).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbm import games
from pbm.demo import DemoError, Progress, Table, fresh_folder, make_table
from pbm.demo.mailroom import Delivered, Mailroom
from pbm.demo.reading import read_email, read_sms
from pbm.demo.simplayer import SimPlayer, typo
from pbm.inbound import parse_email, recipient_addresses
from pbm.messages import Channel
from pbm.replies import build_menu, email_new_text, find_reply_token, read_email_reply
from tests.demo.conftest import process_inline

NAMES = ("Anne", "Bart", "Cleo", "Dirk", "Esme")


def _play(table: Table, decisions: int) -> None:
    table.run(tick=process_inline, until=lambda p: p.decisions >= decisions)


def _email_seat_awaited(table: Table, decisions: int) -> int:
    """Play on until an email player must decide; that seat."""
    def email_turn(p: Progress) -> bool:
        return p.decisions >= decisions and any(
            table.specs[a["seat"]].channel == "email" for a in p.awaited)

    progress = table.run(tick=process_inline, until=email_turn)
    return next(a["seat"] for a in progress.awaited
                if table.specs[a["seat"]].channel == "email")


def _previews(table: Table, channel: Channel) -> list[tuple[dict, str]]:
    from pbm.db import session_scope

    out = []
    with session_scope(write=False) as session:
        for spec in table.specs:
            ctx, rendered = games.preview(session, table.game_id, spec.index, channel)
            text = rendered.sms if channel is Channel.SMS else rendered.text
            out.append((ctx.seat_view, text or ""))
    return out


def _all_messages(table: Table, tmp_path: Path) -> list[Delivered]:
    return Mailroom(table.folder, tmp_path / "unused").collect()


def test_it_reads_the_email_menu_exactly_as_the_service_numbered_it(table: Table) -> None:
    menus_seen = 0
    for decisions in (2, 4, 6, 8):
        _play(table, decisions)
        for view, text in _previews(table, Channel.EMAIL):
            menu = build_menu(view)
            reading = read_email(text, NAMES)
            assert [(o.number, o.command, o.example) for o in reading.options] == [
                (m.number, m.display, m.example) for m in menu]
            menus_seen += bool(menu)
    assert menus_seen >= 3


def test_it_reads_the_sms_menu_by_the_service_s_numbers(table: Table) -> None:
    checked = 0
    for decisions in (2, 7):
        _play(table, decisions)
        for view, body in _previews(table, Channel.SMS):
            menu = {m.number: m for m in build_menu(view)}
            reading = read_sms(body, NAMES)
            if not menu:
                continue
            assert reading.options, body
            for option in reading.options:
                if "Reply STATUS for your options" in body:
                    break
                assert option.number in menu, body
                if not option.command.isdigit():
                    assert option.verb == menu[option.number].verb, body
                checked += 1
    assert checked >= 3


def test_its_reply_email_reaches_its_seat_and_reads_as_what_it_wrote(
        table: Table, tmp_path: Path) -> None:
    from pbm.db import session_scope

    spec = table.specs[_email_seat_awaited(table, 4)]
    prompts = [m for m in _all_messages(table, tmp_path)
               if m.to == spec.email and "WHAT YOU CAN DO NOW" in m.text]
    prompt = prompts[-1]
    with session_scope(write=False) as session:
        seat, _ = games.seat_of(session, table.game_id, spec.index)
        view, _ = _previews(table, Channel.EMAIL)[spec.index]
    verbs = {m.verb for m in build_menu(view)}
    understood = legal = 0
    for seed in range(40):
        player = SimPlayer(spec.name, "email", seed, friends=NAMES)
        player.receive(prompt, prompt.text)
        answered, text = player.next_reply()  # type: ignore[misc]
        assert answered is prompt
        raw = table.mailroom.reply_email(spec.name, spec.email or "", prompt, text)
        assert find_reply_token(recipient_addresses(parse_email(raw))) == seat.reply_token
        new_text = email_new_text(raw)
        assert "Reply above this line" not in new_text and ">" not in new_text
        parsed = read_email_reply(raw, view)
        if parsed.understood:
            understood += 1
            assert parsed.understood[0].text.split()[0] in verbs, (text, parsed)
            legal += parsed.understood[0].legal_now
        else:  # a typo: not understood, with the closest command offered
            assert parsed.not_understood and parsed.not_understood[0].suggestion, (text, parsed)
    assert understood >= 30 and legal >= 25


def test_the_same_seed_writes_the_same_replies_and_another_seed_does_not(
        table: Table, tmp_path: Path) -> None:
    _play(table, 3)
    messages = [m for m in _all_messages(table, tmp_path) if m.channel == "email"]

    def replies(seed: int) -> list[str]:
        player = SimPlayer("Anne", "email", seed, friends=NAMES)
        out = []
        for message in messages:
            player.receive(message, message.text)
            reading = read_email(message.text, NAMES)
            if reading.options:
                out += [player.compose(reading) for _ in range(5)]
        return out

    first = replies(11)
    assert first and first == replies(11)
    assert first != replies(12)


def test_a_player_who_was_not_understood_sends_the_suggestion(
        table: Table, tmp_path: Path) -> None:
    spec = table.specs[_email_seat_awaited(table, 2)]
    prompt = [m for m in _all_messages(table, tmp_path)
              if m.to == spec.email and "WHAT YOU CAN DO NOW" in m.text][-1]
    table.post(spec.index, prompt, "frce 1 2 everyone")
    table.wait_quiet(tick=process_inline)
    answer = [m for m in _all_messages(table, tmp_path) if m.to == spec.email][-1]
    reading = read_email(answer.text, NAMES)
    assert reading.rejected and reading.suggestion and reading.options
    player = SimPlayer(spec.name, "email", 3, friends=NAMES)
    player.attempts = 1  # this is its second miss in a row
    player.receive(answer, answer.text)
    _, text = player.next_reply()  # type: ignore[misc]
    first = text.splitlines()[0]
    if any(blank in reading.suggestion.split() for blank in ("_", "name", "FD/JR")):
        # a template is no answer: a careful player sends a complete command instead
        assert not any(blank in first.split() for blank in ("_", "name", "FD/JR")), first
    else:
        assert first.casefold() == reading.suggestion.casefold()


def test_simulated_players_change_the_game_only_through_their_replies(table: Table) -> None:
    from pbm.db import session_scope

    _play(table, 8)
    with session_scope(write=False) as session:
        log = games.command_log(session, table.game_id)
        inbound = session.execute(sa.text(
            "SELECT id, sender, status, seat FROM inbound_messages")).all()
    assert len(log) >= 8
    assert all(row.origin.startswith("inbound:") for row in log)
    by_id = {row.id: row for row in inbound}
    for row in log:
        message = by_id[row.inbound_message_id]
        assert message.seat == row.seat
        assert message.sender in (table.specs[row.seat].email, table.specs[row.seat].phone)
    assert {row.status for row in inbound} == {"done"}


def test_a_typo_slips_only_in_the_first_word() -> None:
    rng = random.Random(5)
    for _ in range(50):
        slipped = typo("REVEAL 3", rng)
        verb, rest = slipped.split(" ", 1)
        assert rest == "3" and verb != "REVEAL" and abs(len(verb) - 6) <= 1


def test_the_table_has_sms_players_and_a_named_human_seat() -> None:
    seats = make_table(6, human="Cleo")
    assert [s.channel for s in seats].count("sms") == 1  # Cleo's seat plays by email
    assert seats[2].name == "Cleo" and seats[2].channel == "email"
    assert [s.index for s in make_table(5) if s.channel == "sms"] == [2]
    with pytest.raises(DemoError):
        make_table(10)


def test_the_demo_never_wipes_a_folder_it_did_not_make(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(DemoError):
        fresh_folder(tmp_path)
    assert (tmp_path / "mine.txt").read_text() == "keep me"
    demo = fresh_folder(tmp_path / "demo")
    (demo / "old.eml").write_text("x")
    assert not (fresh_folder(tmp_path / "demo") / "old.eml").exists()
