"""Fixtures for engine tests (helpers live in ``tests/engine/helpers.py``)."""

from __future__ import annotations

import pytest

from tests.engine.helpers import VoteIds


@pytest.fixture
def ids() -> VoteIds:
    """Distinct Vote card ids by symbol."""
    return VoteIds()
