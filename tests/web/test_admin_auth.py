"""Admin credentials and the sign-in throttle, without a server."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from pbm.admin.auth import (
    SignInThrottle,
    check_password,
    hash_password,
    parse_admin_users,
    throttle_keys,
)
from pbm.cli import app as cli_app


def test_admin_users_with_commas_inside_argon2_hashes_are_split_per_admin() -> None:
    ada, bob = hash_password("ada's secret"), hash_password("bob's secret")
    assert ",t=" in ada  # argon2 parameters contain commas
    admins = parse_admin_users(f"ada:{ada}, bob:{bob}")
    assert admins == {"ada": ada, "bob": bob}
    assert check_password(admins, "ada", "ada's secret")
    assert not check_password(admins, "ada", "bob's secret")
    assert not check_password(admins, "carol", "ada's secret")


def test_plain_text_and_malformed_entries_are_ignored() -> None:
    good = hash_password("long enough")
    admins = parse_admin_users(f"eve:hunter22,:{good},bad name:{good},ok:{good}")
    assert admins == {"ok": good}
    assert not check_password(parse_admin_users("eve:hunter22"), "eve", "hunter22")
    assert parse_admin_users("") == {}


def test_the_throttle_locks_after_five_failures_in_a_row_and_doubles() -> None:
    throttle = SignInThrottle()
    keys = throttle_keys("Ada", "192.0.2.7")
    assert keys == ["user:ada|192.0.2.7", "ip:192.0.2.7"]
    for i in range(4):
        throttle.failed(keys, now=100.0 + i)
        assert throttle.retry_after(keys, now=100.0 + i) == 0
    throttle.failed(keys, now=104.0)
    assert throttle.retry_after(keys, now=104.0) == 60
    assert throttle.retry_after(keys, now=134.0) == 30
    assert throttle.retry_after(keys, now=164.0) == 0
    throttle.failed(keys, now=165.0)  # the 6th in a row: twice as long
    assert throttle.retry_after(keys, now=165.0) == 120


def test_wrong_passwords_from_one_address_never_lock_the_name_at_another() -> None:
    throttle = SignInThrottle()
    for i in range(30):
        throttle.failed(throttle_keys("ada", "198.51.100.66"), now=float(i))
    assert throttle.retry_after(throttle_keys("ada", "198.51.100.66"), now=30.0) > 0
    assert throttle.retry_after(throttle_keys("ada", "192.0.2.7"), now=30.0) == 0


def test_one_address_spraying_names_is_locked_at_its_own_limit() -> None:
    throttle = SignInThrottle()
    for i in range(10):
        throttle.failed(throttle_keys(f"name{i}", "198.51.100.66"), now=0.0)
    assert throttle.retry_after(throttle_keys("ada", "198.51.100.66"), now=0.0) == 60


def test_a_success_starts_the_count_again() -> None:
    throttle = SignInThrottle()
    keys = throttle_keys("ada", "192.0.2.7")
    for i in range(4):
        throttle.failed(keys, now=float(i))
    throttle.succeeded(keys)
    throttle.failed(keys, now=10.0)
    assert throttle.retry_after(keys, now=10.0) == 0


def test_the_throttle_table_stays_bounded() -> None:
    throttle = SignInThrottle(max_keys=100)
    for i in range(1000):
        throttle.failed([f"ip:10.0.{i // 256}.{i % 256}"], now=0.0)
    assert len(throttle._records) == 100  # (private: the table itself is what is bounded)


def test_hash_password_prints_a_hash_that_signs_in() -> None:
    result = CliRunner().invoke(
        cli_app, ["admin", "hash-password", "--name", "ada"],
        input="a good password\na good password\n",
    )
    assert result.exit_code == 0, result.output
    line = result.output.strip().splitlines()[-1]
    assert line.startswith("ada:$argon2id$")
    assert "a good password" not in line
    assert check_password(parse_admin_users(line), "ada", "a good password")


def test_hash_password_reads_stdin_and_refuses_short_passwords() -> None:
    runner = CliRunner()
    ok = runner.invoke(cli_app, ["admin", "hash-password", "--stdin"], input="another password\n")
    assert ok.exit_code == 0, ok.output
    assert ok.stdout.strip().startswith("$argon2id$")
    short = runner.invoke(cli_app, ["admin", "hash-password", "--stdin"], input="short\n")
    assert short.exit_code == 2
    assert "at least 8" in short.stderr


def test_pbm_admin_hash_password_runs_as_a_command() -> None:
    done = subprocess.run([sys.executable, "-m", "pbm.cli", "admin", "hash-password", "--stdin",
                           "--name", "ada"], input="a real password\n", capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert check_password(parse_admin_users(done.stdout.strip()), "ada", "a real password")
