"""Servers of a test's own for the operator tests, which stop them on purpose: a
PostgreSQL cluster from the Debian install (``initdb`` / ``pg_ctl`` into a temporary
directory, a free port), and scraping ``/metrics`` with ``prometheus_client.parser``.
Never the shared servers of the other tests."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.services import missing
from tests.workers.servers import free_port, wait_until


class OwnPostgres:
    """A PostgreSQL cluster of this test; ``stop`` and ``start`` it at will."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not found:
            missing("PostgreSQL server binaries are not installed (apt-get install postgresql)")
        self.bin = Path(found[-1]).parent
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="pbm-own-pg-"))
        self.data = self.dir / "data"
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as:
            shutil.chown(self.dir, "postgres")
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync")

    def _run(self, program: str, *args: str) -> None:
        subprocess.run([*self._as, str(self.bin / program), *args], check=True, timeout=120,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> OwnPostgres:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.dir / "log"), "-w", "-o",
                  f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off",
                  "start")
        return self

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        subprocess.run([*self._as, str(self.bin / "pg_ctl"), "-D", str(self.data), "-m",
                        "immediate", "stop"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(base_url: str, token: str) -> Samples:
    """Every sample of ``/metrics``, parsed by prometheus_client: (name, labels) -> value."""
    response = httpx.get(base_url + "/metrics", headers={"Authorization": f"Bearer {token}"},
                         timeout=30)
    assert response.status_code == 200, response.text
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample's value (0 when absent: a counter not yet touched)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def wait_scrape(base_url: str, token: str, condition: object, timeout: float, what: str
                ) -> Samples:
    """Scrape until ``condition(samples)`` holds; the samples that satisfied it."""
    last: dict[str, Samples] = {}

    def ready() -> Samples | None:
        last["s"] = scrape(base_url, token)
        return last["s"] if condition(last["s"]) else None  # type: ignore[operator]

    return wait_until(ready, timeout, what, step=0.3)  # type: ignore[no-any-return]
