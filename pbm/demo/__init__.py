"""``pbm demo``: a whole game with simulated players, through the real service, offline;
``pbm play`` seats a human at the same table. One module per part, re-exported here.

A fresh folder (``./var/demo-seed-N/``) holds everything: a SQLite database migrated to
head, the serverless Celery broker (kombu's filesystem transport), and the file transports'
output (every email as an ``.eml`` file, every SMS as a line of ``sms.jsonl``). Real
``celery -A workers.app worker`` and ``beat`` processes run with the demo's settings in
their environment, as in production; only settings differ.

The admin part (create the game, invite) calls ``pbm.games`` like ``pbm game`` does.
Everything after that is players replying: each simulated player (``pbm.demo.simplayer``) reads
only the messages addressed to it and answers through ``pbm.demo.mailroom`` (stored by
``pbm.inbound`` and processed by a worker, as the webhooks do). The table moves in steps:
when the service is quiet (nothing to process, nothing to send) every new message is
delivered, then each player who was asked something replies, one after the other, so the
same seed always plays the same game.

Modules: ``seating`` (who sits where, the fresh folder), ``workers`` (the demo's settings
and worker processes), ``transcript`` (transcript.txt), ``table`` (the players and the loop
that plays), ``summary`` (the result and the closing lines), ``run`` (``pbm demo`` itself,
with its progress bar).
"""

from __future__ import annotations

from pbm.demo.run import run_demo
from pbm.demo.seating import (
    MARKER,
    ROSTER,
    SeatSpec,
    demo_folder,
    fresh_folder,
    human_seat,
    make_table,
    sms_seats,
)
from pbm.demo.summary import Result, describe, result
from pbm.demo.table import (
    QUIET_POLL,
    STALL_FAIL_SECONDS,
    STALL_NUDGE_SECONDS,
    Progress,
    Seat,
    SimSeat,
    Table,
    Tally,
)
from pbm.demo.transcript import RULE, Transcript
from pbm.demo.workers import (
    DemoError,
    WorkerError,
    Workers,
    adopt_environment,
    demo_environment,
    terminate_as_interrupt,
)

__all__ = ["MARKER", "QUIET_POLL", "ROSTER", "RULE", "STALL_FAIL_SECONDS", "STALL_NUDGE_SECONDS",
           "DemoError", "Progress", "Result", "Seat", "SeatSpec", "SimSeat", "Table", "Tally",
           "Transcript", "WorkerError", "Workers", "adopt_environment", "demo_environment",
           "demo_folder", "describe", "fresh_folder", "human_seat", "make_table", "result",
           "run_demo", "sms_seats", "terminate_as_interrupt"]
