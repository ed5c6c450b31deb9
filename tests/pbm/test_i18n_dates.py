"""Deadlines in the player's language (pbm.i18n.dates)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbm.i18n.dates import deadline_text, time_left
from pbm.render.names import format_deadline

DEADLINE = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)  # 18:00 in Seoul, a Thursday


def test_a_korean_deadline_reads_as_koreans_write_dates() -> None:
    assert deadline_text(DEADLINE, "Asia/Seoul", "ko") == "12월 3일 (목) 오후 6:00 KST"
    assert deadline_text(DEADLINE.replace(hour=0, minute=5), "Asia/Seoul", "ko") == \
        "12월 3일 (목) 오전 9:05 KST"


@pytest.mark.parametrize("zone", ["Asia/Seoul", "America/New_York", "Europe/Paris", "UTC"])
def test_an_english_deadline_is_the_format_the_prompts_use_today(zone: str) -> None:
    assert deadline_text(DEADLINE, zone, "en") == format_deadline(DEADLINE, zone)["local"]


def test_unknown_languages_and_zones_fall_back_to_english_and_utc() -> None:
    assert deadline_text(DEADLINE, "Mars/Olympus", "xx") == "Thu 03 Dec 2026, 09:00 UTC"
    assert deadline_text(DEADLINE.replace(tzinfo=None), "", "ko") == "12월 3일 (목) 오전 9:00 UTC"


@pytest.mark.parametrize(("left", "ko", "en"), [
    (timedelta(days=1, hours=20), "1일 20시간 남음", "in 44 hours"),  # days from 48 hours
    (timedelta(hours=3, minutes=5), "3시간 5분 남음", "in 3 hours 5 minutes"),
    (timedelta(days=2), "2일 남음", "in 2 days"),
    (timedelta(minutes=1), "1분 남음", "in 1 minute"),
    (timedelta(seconds=20), "지금", "now"),
    (-timedelta(hours=2), "2시간 지남", "2 hours ago"),
])
def test_time_left_in_both_languages(left: timedelta, ko: str, en: str) -> None:
    now = DEADLINE - left
    assert time_left(DEADLINE, now, "ko") == ko
    assert time_left(DEADLINE, now, "en") == en
