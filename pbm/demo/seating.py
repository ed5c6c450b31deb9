"""Who sits at the demo table (names, channels, addresses; the human's seat in ``pbm play``)
and the fresh folder a demo game plays in.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from pbm.demo.workers import DemoError
from pbm.messages import Channel

ROSTER = ("Anne", "Bart", "Cleo", "Dirk", "Esme", "Finn", "Gwen", "Hugo", "Ines")
#: The names of Korean simulated players (``pbm demo --lang ko|mixed``), seat for seat.
KOREAN_ROSTER = ("민준", "서연", "지우", "하준", "서윤", "도윤", "하은", "시우", "지아")
#: ``--lang`` of the demo: every simulated player English, every one Korean, or both at
#: one table (the even seats Korean: the first email seat and the first SMS seat).
TABLE_LANGUAGES = ("en", "ko", "mixed")
MARKER = ".pbm-demo"


@dataclass(frozen=True)
class SeatSpec:
    """One seat of the demo table: a name, a channel and the address it is reached on."""

    index: int
    name: str
    channel: str  # "email" or "sms"
    email: str | None
    phone: str | None
    language: str = "en"  # "ko": this seat's messages are in Korean (issue 24)

    @property
    def address(self) -> str:
        return (self.phone if self.channel == Channel.SMS else self.email) or ""


def sms_seats(players: int) -> set[int]:
    """Which seats play by SMS: one at a small table, two from six players."""
    if players < 3:
        return {1}
    return {2, 5} if players >= 6 else {2}


def human_seat(players: int, name: str) -> int:
    """The seat a human called ``name`` takes: that roster seat, else the first."""
    key = " ".join(name.split()).casefold()
    return next((i for i, n in enumerate(ROSTER[:players]) if n.casefold() == key), 0)


def seat_language(index: int, table_language: str) -> str:
    """The language of a simulated seat at a table of ``table_language`` (``mixed``: the
    even seats Korean)."""
    if table_language == "mixed":
        return "ko" if index % 2 == 0 else "en"
    return table_language


def make_table(players: int, human: str | None = None,
               human_language: str = "en", language: str = "en") -> list[SeatSpec]:
    """The demo's seats; ``human`` (a roster name or a new one) takes a seat by email, in
    ``human_language`` ("ko": Korean messages). The simulated seats read and write
    ``language``: "en", "ko" (Korean names, Korean messages) or "mixed" (both)."""
    if not 2 <= players <= len(ROSTER):
        raise DemoError(f"Tortuga 1667 takes 2 to {len(ROSTER)} players, not {players}")
    if language not in TABLE_LANGUAGES:
        raise DemoError(f"--lang is one of {', '.join(TABLE_LANGUAGES)}, not {language!r}")
    names = [KOREAN_ROSTER[i] if seat_language(i, language) == "ko" else ROSTER[i]
             for i in range(players)]
    human_index = None
    if human is not None:
        human = " ".join(human.split())
        if not human or len(human) > 40:
            raise DemoError("--as needs a name of 1 to 40 characters")
        human_index = human_seat(players, human)
        names[human_index] = human
    sms = sms_seats(players) - ({human_index} if human_index is not None else set())
    seats = []
    for i, name in enumerate(names):
        # an ASCII local part (a Hangul name such as 민준 is not a deliverable address)
        local = "".join(ch for ch in name.lower() if ch.isascii() and ch.isalnum()) \
            or f"player{i + 1}"
        seats.append(SeatSpec(
            index=i, name=name, channel="sms" if i in sms else "email",
            email=f"{local}{i + 1}@example.org", phone=f"+1555010{i + 1:04d}",
            language=human_language if i == human_index else seat_language(i, language),
        ))
    return seats


def demo_folder(seed: int, base: Path | None = None) -> Path:
    """``./var/demo-seed-N`` (or under ``base``)."""
    return (base or Path("var")) / f"demo-seed-{seed}"


def fresh_folder(folder: Path) -> Path:
    """Wipe and recreate a demo folder; refuse to wipe anything the demo did not make."""
    folder = folder.resolve()
    if folder.exists():
        if any(folder.iterdir()) and not (folder / MARKER).exists():
            raise DemoError(f"{folder} exists and is not a demo folder: choose another --dir")
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / MARKER).write_text("made by pbm demo; wiped by the next run\n")
    return folder
