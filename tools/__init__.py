"""Checks and generators run by tests and ``./dev`` over the project's own sources."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def service_sources(root: Path) -> Iterator[Path]:
    """Every Python file of the service (``pbm``, ``workers``) under ``root``, in order,
    migrations left out (they keep the words and imports of their day)."""
    for package in ("pbm", "workers"):
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path
