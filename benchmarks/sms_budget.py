"""SMS per decision and segments per SMS of the demo's SMS seats (issue 23).

Reads finished demo folders (``./dev demo --players 5 --seed N`` writes
``var/demo-seed-N``): every SMS sent (``outbox/sms.jsonl``) to a seat that plays by SMS,
and every decision those seats made (``command_log``: one row per applied command).

    .venv/bin/python benchmarks/sms_budget.py var/demo-seed-{1,2,3,4,5}

"SMS per decision" = SMS sent to the SMS seats / commands those seats applied (a vote, a
turn action, a choice; JOIN and settings are not decisions). "Segments per SMS" = GSM-7 (or
UCS-2) segments of each SMS body as the carrier bills it.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from pbm.render.gsm7 import sms_segments


def measure(folder: Path) -> dict[str, float]:
    db = sqlite3.connect(folder / "tortuga.db")
    phones = dict(db.execute(
        "select p.phone, s.seat_index from seats s join players p on p.id = s.player_id "
        "where p.phone is not null and p.email is null"))
    if not phones:  # the demo gives every player both: the transcript names the channel
        phones = {}
        for line in (folder / "transcript.txt").read_text().splitlines()[:12]:
            if " by sms (" in line:
                seat = int(line.split("seat ", 1)[1].split(":", 1)[0]) - 1
                phones[line.rsplit("(", 1)[1].rstrip(")")] = seat
    sent = [json.loads(x) for x in (folder / "outbox" / "sms.jsonl").read_text().splitlines()
            if x.strip()]
    bodies = [m["body"] for m in sent if m["to"] in phones]
    seats = sorted(set(phones.values()))
    decisions = db.execute(
        f"select count(*) from command_log where seat in ({','.join(map(str, seats))})"
    ).fetchone()[0]
    segments = [sms_segments(b) for b in bodies]
    return {"sms": len(bodies), "decisions": decisions, "segments": sum(segments),
            "max_segments": max(segments or [0])}


def main(argv: list[str]) -> None:
    total = {"sms": 0, "decisions": 0, "segments": 0}
    print(f"{'folder':28} {'SMS':>5} {'decisions':>9} {'SMS/dec':>8} {'seg/SMS':>8} {'max':>4}")
    for arg in argv:
        m = measure(Path(arg))
        for k in total:
            total[k] += int(m[k])
        print(f"{arg:28} {m['sms']:>5} {m['decisions']:>9} "
              f"{m['sms'] / max(1, m['decisions']):>8.2f} "
              f"{m['segments'] / max(1, m['sms']):>8.2f} {m['max_segments']:>4}")
    print(f"{'all':28} {total['sms']:>5} {total['decisions']:>9} "
          f"{total['sms'] / max(1, total['decisions']):>8.2f} "
          f"{total['segments'] / max(1, total['sms']):>8.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
