"""The service fixtures talk to real servers, and fail loudly under CI when one is missing."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.services import postgres_version, redis_version

ROOT = Path(__file__).resolve().parents[1]


def test_postgres_fixture_reaches_a_real_postgresql_server(postgres_url: str) -> None:
    assert postgres_version(postgres_url).startswith("PostgreSQL ")


def test_redis_fixture_reaches_a_real_redis_server(redis_url: str) -> None:
    major = int(redis_version(redis_url).split(".")[0])
    assert major >= 5


def run_probe_test(tmp_path: Path, env_overrides: dict[str, str], drop: tuple[str, ...]) -> str:
    """Run a one-test pytest session using our fixtures in a child process; return its output."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            def test_needs_postgres(postgres_url):
                pass

            def test_needs_redis(redis_url):
                pass
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_overrides)
    env["PYTHONPATH"] = str(ROOT)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", str(probe),
         "--rootdir", str(tmp_path), "-o", "addopts=", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    return result.stdout + result.stderr


def test_missing_servers_fail_under_ci_instead_of_skipping(tmp_path: Path) -> None:
    output = run_probe_test(
        tmp_path,
        {"CI": "true", "TEST_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
         "REDIS_URL": "redis://127.0.0.1:1/0"},
        drop=(),
    )
    assert "2 errors" in output or "2 failed" in output, output
    assert "required service is missing" in output
    assert "skipped" not in output


def test_unset_service_urls_fail_under_ci(tmp_path: Path) -> None:
    output = run_probe_test(tmp_path, {"CI": "true"}, drop=("TEST_DATABASE_URL", "REDIS_URL"))
    assert "TEST_DATABASE_URL is not set" in output
    assert "REDIS_URL is not set" in output
    assert "skipped" not in output
