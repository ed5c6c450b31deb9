"""``pbm play``: you take one seat in the terminal; the others are simulated.

The same machinery as ``pbm demo`` (SQLite, the filesystem broker, real Celery worker and
beat processes, the file transports). Your seat plays by email: you read exactly the text
part of the emails your seat is sent, and what you type is sent back as a reply to the
newest of them, quoting it, through the normal inbound path. Errors and HELP work as by
email: the service's REPLY (with its "did you mean") is simply the next message you read.
Type ``QUIT`` (or Ctrl-D, Ctrl-C) to leave; the game stays in its folder.
"""

from __future__ import annotations

import select
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from pbm.demo import (
    ROSTER,
    Progress,
    SeatSpec,
    Table,
    describe,
    fresh_folder,
    human_seat,
    make_table,
    result,
    terminate_as_interrupt,
)
from pbm.demo.mailroom import Delivered

PROMPT = "your reply> "
QUIT_WORDS = {"quit", "exit", ":q"}
RULE = "=" * 72


class Quit(Exception):
    """The human left the table."""


@dataclass
class TerminalSeat:
    """Your seat: shows each message as it arrives, sends each line you type."""

    spec: SeatSpec
    out: TextIO = field(default_factory=lambda: sys.stdout)
    inp: TextIO = field(default_factory=lambda: sys.stdin)
    latest: Delivered | None = None
    shown: int = 0
    _prompted: bool = False

    def receive(self, message: Delivered) -> None:
        self.shown += 1
        self.latest = message
        self.write(f"\n{RULE}\nMessage {self.shown} to {self.spec.name} <{message.to}>\n"
                   f"Subject: {message.subject}\n{RULE}\n{message.text.rstrip()}\n{RULE}\n")
        self._prompted = False

    def next_reply(self) -> tuple[Delivered, str] | None:
        return None  # replies come from the keyboard (``poll``)

    def write(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()

    def prompt(self) -> None:
        if not self._prompted:
            self.write(PROMPT)
            self._prompted = True

    def poll(self) -> str | None:
        """A line you typed, if there is one (never blocks); raises Quit at the end."""
        ready, _, _ = select.select([self.inp], [], [], 0)
        if not ready:
            return None
        line = self.inp.readline()
        if not line:
            raise Quit
        self._prompted = False
        text = line.strip()
        if text.lower() in QUIT_WORDS:
            raise Quit
        if not text:
            self.prompt()
            return None
        return text


def run_play(players: int = 5, seed: int = 1, name: str | None = None,
             folder: Path | None = None, out: TextIO | None = None,
             inp: TextIO | None = None, language: str = "en") -> None:
    """Play one seat of a game in the terminal (``language`` "ko": in Korean; reply in
    Korean too, e.g. ``3번 공개``)."""
    out = out or sys.stdout
    started = time.monotonic()
    name = name or ROSTER[0]
    seats = make_table(players, human=name, human_language=language)
    human = seats[human_seat(players, name)]
    place = fresh_folder(folder or Path("var") / f"play-seed-{seed}")
    me = TerminalSeat(human, out=out, inp=inp or sys.stdin)
    table = Table(place, seed, seats, players={human.index: me}, game_name=f"play-{seed}")
    others = ", ".join(f"{s.name} ({s.channel})" for s in seats if s.index != human.index)
    me.write(f"You are {human.name} <{human.email}>, seat {human.index + 1} of {players}; "
             f"simulated: {others}.\nGame folder: {place}\n"
             "Read each message and type your reply (one line; HELP works; QUIT leaves).\n")
    waiting: list[str] = []

    def tick() -> None:
        text = me.poll()
        if text is not None:
            if me.latest is None:
                me.write("(no message to reply to yet)\n")
                return
            table.post(human.index, me.latest, text)
            me.write(f"(sent: {text})\n")

    def show(p: Progress) -> None:
        others_awaited = [f"{a['name']} ({a['kind'].lower()})" for a in p.awaited
                          if a["seat"] != human.index]
        mine = any(a["seat"] == human.index for a in p.awaited)
        if others_awaited != waiting[:] and not mine and others_awaited and not p.over:
            waiting[:] = others_awaited
            me.write(f"... waiting for {', '.join(others_awaited)}\n")
        if mine:
            waiting.clear()
            me.prompt()

    with terminate_as_interrupt():
        try:
            table.prepare()
            table.workers.start()
            table.run(on_progress=show, tick=tick, human=human.index)
        except (Quit, KeyboardInterrupt):
            me.write("\nLeaving the table; stopping the workers.\n")
        finally:
            table.close()
    res = result(table)
    for line in describe(table, res, time.monotonic() - started):
        me.write(line + "\n")
