"""Fixtures of the operator tests: the admin browser tests' Chromium page."""

from __future__ import annotations

from tests.web.test_admin_browser import browser_page  # noqa: F401 - a fixture, shared
