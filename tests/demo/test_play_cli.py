"""``pbm play`` in a pseudo-terminal: a person takes one seat, reads exactly what that seat
is sent and types replies; a typo is answered with "did you mean"; real workers."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest
import sqlalchemy as sa

from tests.demo.test_demo_cli import pbm_command, processes_with

EXAMPLE = r'e\.g\. "([^"]+)"'


@pytest.mark.slow
def test_a_person_plays_a_seat_in_the_terminal_and_a_typo_gets_did_you_mean(
        tmp_path: Path) -> None:
    folder = tmp_path / "play"
    command = pbm_command()
    child = pexpect.spawn(command[0], [*command[1:], "play", "--players", "3", "--seed", "2",
                                       "--as", "Zed", "--dir", str(folder)],
                          cwd=str(tmp_path), encoding="utf-8", timeout=240,
                          dimensions=(50, 120))
    try:
        child.expect("You are Zed")
        child.expect("To play, reply with: +JOIN")
        child.expect("your reply> ")
        child.sendline("join")
        child.expect("Done: JOIN")

        child.expect("WHAT YOU CAN DO NOW")
        child.expect("your reply> ")
        child.sendline("frce 1 2")
        child.expect(r'"frce 1 2": not a command\. Did you mean ([^?]+)\?')
        suggestion = child.match.group(1)
        assert suggestion.strip()

        for _ in range(3):
            child.expect(EXAMPLE)
            move = child.match.group(1)
            child.expect("your reply> ")
            child.sendline(move)
            child.expect("sent: ")
            child.expect(r"Message \d+ to Zed")  # the service's answer: news or a REPLY
        child.sendline("quit")
        child.expect("Leaving the table")
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0

    engine = sa.create_engine(f"sqlite:///{folder / 'tortuga.db'}")
    with engine.connect() as conn:
        mine = conn.execute(sa.text(
            "SELECT command, origin FROM command_log WHERE seat = 0 ORDER BY seq")).all()
        replies = conn.execute(sa.text(
            "SELECT count(*) FROM inbound_messages WHERE sender = 'zed1@example.org'")).scalar()
    engine.dispose()
    assert len(mine) >= 3 and all(row.origin.startswith("inbound:") for row in mine)
    assert replies >= 5  # join, the typo, three moves: all by email through the inbound path
    assert processes_with(f"DATA_DIR={folder.resolve()}") == []
