"""What ``bench_pipeline.py`` runs beside the service: an SMTP server that keeps every
message it accepts (with the time it arrived), a free loopback port, and a wait for a web
server to answer."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass
class ReceivedMail:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    at: float  # time.time() when the server accepted it


class SmtpSink:
    """An aiosmtpd SMTP server on a free loopback port; keeps every accepted message."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.port = free_port()
        self.messages: list[ReceivedMail] = []
        self._lock = threading.Lock()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            self.messages.append(ReceivedMail(envelope.mail_from, list(envelope.rcpt_tos),
                                              bytes(envelope.content), time.time()))
        return "250 Message accepted for delivery"

    def start(self) -> SmtpSink:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()


def free_port() -> int:
    """A loopback TCP port nothing listens on now (the system's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, timeout: float = 30) -> None:
    """Wait until ``url`` answers 200; ``TimeoutError`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer in {timeout:.0f} s")
        time.sleep(0.1)
