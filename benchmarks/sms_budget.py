"""SMS per decision and parts per decision of the demo's SMS seats, by language (issues 23
and 37).

Reads finished demo folders (``./dev demo --seed N`` writes ``var/demo-seed-N``; ``--lang
ko`` and ``--lang mixed`` seat Korean players): every SMS written to a seat that plays by
SMS (the outbox in ``tortuga.db``), the language of its player, and every decision those
seats made (``command_log``: one row per applied command).

    .venv/bin/python benchmarks/sms_budget.py var/demo-seed-{1,2,3,4,5}
    .venv/bin/python benchmarks/sms_budget.py --catalogue    # Korean/English length ratio

"SMS per decision" = SMS sent to the SMS seats / commands those seats applied (a vote, a
turn action, a choice; JOIN and settings are not decisions). "Parts per decision" = the
parts (GSM-7 or UCS-2 segments, as the carrier bills them) of those SMS / decisions.
"Prompts with a deadline" = prompts, reminders and last calls that say by when.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

from pbm.render.gsm7 import sms_segments

#: How a prompt says its deadline: "Reply by ..." / "By ..." in English, "...까지" in Korean.
DEADLINE = re.compile(r"\bReply by \b|\bBy \w{3} |까지")
PROMPT_KINDS = ("prompt", "reminder", "final_warning", "resumed",
                "seat_replaced")


def measure(folder: Path) -> dict[str, dict[str, int]]:
    """Per language: SMS, parts, decisions, prompts and prompts with a deadline."""
    db = sqlite3.connect(folder / "tortuga.db")
    seats = dict(db.execute(
        "select s.seat_index, p.language from seats s join players p on p.id = s.player_id "
        "where p.preferred_channel = 'sms'"))
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for seat, kind, body in db.execute(
            "select seat, kind, sms_body from outbound_messages where channel = 'sms' "
            "and seat is not null"):
        if seat not in seats or not body:
            continue
        row = out[seats[seat]]
        row["sms"] += 1
        row["parts"] += sms_segments(body)
        if kind in PROMPT_KINDS and re.search(r"\d=", body):
            row["prompts"] += 1
            row["with_deadline"] += bool(DEADLINE.search(body))
    for seat, language in seats.items():
        out[language]["decisions"] += db.execute(
            "select count(*) from command_log where seat = ?", (seat,)).fetchone()[0]
    return {lang: dict(row) for lang, row in out.items()}


def catalogue_ratio() -> float:
    """Characters of the Korean catalogue's sentences per character of their English."""
    from babel.messages.pofile import read_po

    path = Path(__file__).resolve().parent.parent / "pbm/locale/ko/LC_MESSAGES/messages.po"
    with path.open("rb") as f:
        catalogue = read_po(f)
    english = korean = 0
    for message in catalogue:
        if isinstance(message.id, str) and len(message.id) >= 20 and message.string:
            english += len(re.sub(r"\{\w+\}|%\(\w+\)s", "", message.id))
            korean += len(re.sub(r"\{\w+\}|%\(\w+\)s", "", str(message.string)))
    return korean / english


def main(argv: list[str]) -> None:
    if argv == ["--catalogue"]:
        print(f"Korean/English characters in the catalogue: {catalogue_ratio():.2f}")
        return
    total: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    print(f"{'folder':28} {'lang':>4} {'SMS':>5} {'decisions':>9} {'SMS/dec':>8} "
          f"{'parts/dec':>9} {'parts/SMS':>9} {'deadline':>9}")
    for arg in argv:
        for lang, m in sorted(measure(Path(arg)).items()):
            for k, v in m.items():
                total[lang][k] += v
            _line(arg, lang, m)
    for lang, m in sorted(total.items()):
        _line("all", lang, m)


def _line(label: str, lang: str, m: dict[str, int]) -> None:
    decisions = max(1, m.get("decisions", 0))
    print(f"{label:28} {lang:>4} {m.get('sms', 0):>5} {m.get('decisions', 0):>9} "
          f"{m.get('sms', 0) / decisions:>8.2f} {m.get('parts', 0) / decisions:>9.2f} "
          f"{m.get('parts', 0) / max(1, m.get('sms', 0)):>9.2f} "
          f"{m.get('with_deadline', 0):>4}/{m.get('prompts', 0):<4}")


if __name__ == "__main__":
    main(sys.argv[1:])
