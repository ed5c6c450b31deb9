"""``pbm demo`` itself: a fresh table of simulated players played to the end, with a progress
bar on a terminal (a line every few seconds otherwise), then the summary.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar

from pbm.demo.seating import demo_folder, fresh_folder, make_table
from pbm.demo.summary import Result, describe, result
from pbm.demo.table import Progress, Table
from pbm.demo.workers import terminate_as_interrupt


def run_demo(players: int = 5, seed: int = 1, folder: Path | None = None,
             echo: Callable[[str], None] = print, pace: float = 0.0,
             language: str = "en") -> Result:
    """Play a whole game with simulated players (each thinking ``pace`` seconds before a
    reply), reading and writing ``language`` ("en", "ko" or "mixed": both at one table);
    print where everything lies."""
    started = time.monotonic()
    seats = make_table(players, language=language)
    place = fresh_folder(folder or demo_folder(seed))
    console = Console()
    echo(f"Demo folder: {place}")
    echo("Players: " + ", ".join(
        f"{s.name} ({s.channel}{', Korean' if s.language == 'ko' else ''})" for s in seats))
    table = Table(place, seed, seats, pace=pace)
    with terminate_as_interrupt():
        try:
            table.prepare()
            table.workers.start()
            echo("Workers: celery worker (2 processes) and beat, with the filesystem broker; "
                 f"logs in {place / 'logs'}")
            with Bar(TextColumn("{task.description:<22}"), BarColumn(),
                     TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console,
                     disable=not console.is_terminal) as bar:
                cards = bar.add_task("Event cards revealed", total=21, info="")
                decisions = bar.add_task("Decisions made", total=None, info="")
                last_line = [0.0]

                def show(p: Progress) -> None:
                    total = max(p.event_total, p.revealed, 1)
                    bar.update(cards, completed=p.revealed, total=total,
                               info=f"{p.revealed}/{total}")
                    messages = sum(table.tally.sent.values())
                    bar.update(decisions, completed=p.decisions,
                               info=f"{p.decisions} ({messages} messages sent)")
                    if (not console.is_terminal and p.event_total
                            and time.monotonic() - last_line[0] > 10):
                        last_line[0] = time.monotonic()
                        echo(f"  ... {p.revealed}/{p.event_total} Event cards revealed, "
                             f"{p.decisions} decisions made")

                table.run(on_progress=show)
        except KeyboardInterrupt:
            echo("Interrupted: stopping the workers.")
            raise
        finally:
            table.close()
    res = result(table)
    for line in describe(table, res, time.monotonic() - started):
        echo(line)
    return res
