"""Without dovecot the whole-game test is skipped with the install command, except under
``CI=true`` where it fails: one child pytest session each, with dovecot hidden."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
E2E = "tests/e2e/test_full_game.py"


def run_e2e_without_dovecot(tmp_path: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    """The real e2e test file in a child pytest, ``PBM_TEST_DOVECOT`` pointing at nothing."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PBM_TEST_DOVECOT"] = str(tmp_path / "no-dovecot-here")
    env["PYTHONPATH"] = str(ROOT)
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", E2E, "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_the_full_game_is_skipped_with_the_install_command_when_dovecot_is_missing(
    tmp_path: Path,
) -> None:
    result = run_e2e_without_dovecot(tmp_path, ci=False)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "1 skipped" in output and "failed" not in output and "error" not in output, output
    assert "dovecot-imapd is not installed (sudo apt-get install dovecot-imapd" in output


@pytest.mark.slow
def test_the_full_game_fails_under_ci_when_dovecot_is_missing(tmp_path: Path) -> None:
    result = run_e2e_without_dovecot(tmp_path, ci=True)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "1 error" in output and "skipped" not in output, output
    assert "CI=true and a required service is missing: dovecot-imapd is not installed" in output
