"""Durations read as people say them, in at most two units."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbm.humanize import duration, hours


@pytest.mark.parametrize(("length", "text"), [
    (timedelta(seconds=20), "less than a minute"),
    (timedelta(minutes=1), "1 minute"),
    (timedelta(minutes=4, seconds=10), "4 minutes"),
    (timedelta(hours=1), "1 hour"),
    (timedelta(hours=1, minutes=30), "1 hour 30 minutes"),
    (timedelta(hours=24), "24 hours"),
    (timedelta(hours=36, minutes=5), "36 hours 5 minutes"),
    (timedelta(days=2, hours=3, minutes=20), "2 days 3 hours"),
    (timedelta(days=3, minutes=10), "3 days"),
    (-timedelta(minutes=5), "5 minutes"),
])
def test_a_duration_reads_in_at_most_two_units(length: timedelta, text: str) -> None:
    assert duration(length) == text


def test_hours_settings_read_the_same_way() -> None:
    assert [hours(h) for h in (0.07, 1, 26.5, 48, 72)] == [
        "4 minutes", "1 hour", "26 hours 30 minutes", "2 days", "3 days"]
