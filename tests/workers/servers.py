"""Real servers and processes for the channel tests, all on loopback, all started here.

- ``SmtpSink``: an aiosmtpd SMTP server that keeps what it receives (and can refuse).
- ``FakeTwilio``: an HTTP server speaking Twilio's Messages API for the real twilio client,
  which can also send signed delivery-status callbacks like Twilio does.
- ``Dovecot``: Debian's dovecot-imapd from a temporary config; mail is added by IMAP APPEND.
- ``ServiceProcess``: a Celery worker, a beat or the web app as a real child process.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.services import find_program, free_port, missing, need_program

ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail with ``what`` after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(step)


# --------------------------------------------------------------------------------------- SMTP


@dataclass
class ReceivedMail:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    at: float  # time.time() when the server accepted it
    peer: tuple[str, int] = ("", 0)  # the client's address and port: one per connection

    @property
    def message(self) -> EmailMessage:
        return message_from_bytes(self.data, policy=policy.default)  # type: ignore[return-value]

    def text(self) -> str:
        body = self.message.get_body(preferencelist=("plain",))
        return body.get_content() if body is not None else ""


class SmtpSink:
    """A real SMTP server on a port we bind; keeps every accepted message."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        self.port = free_port()
        self.messages: list[ReceivedMail] = []
        self.refuse: dict[str, str] = {}  # address -> SMTP reply, e.g. "550 5.1.1 no such user"
        self.hold: set[str] = set()  # RCPT of these addresses waits until ``release`` is set
        self.held = threading.Event()  # a client is waiting in RCPT (it is mid-send)
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._sessions: list[Any] = []  # the server side of each connection that sent mail
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: Any) -> str:
        if address in self.refuse:
            return self.refuse[address]
        if address in self.hold and not self.release.is_set():
            self.held.set()
            while not self.release.is_set():
                await asyncio.sleep(0.05)
            return "451 4.3.0 try again"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self._lock:
            self._sessions.append(server)
            self.messages.append(ReceivedMail(envelope.mail_from, list(envelope.rcpt_tos),
                                              bytes(envelope.content), time.time(),
                                              tuple(session.peer)))
        return "250 Message accepted for delivery"

    def start(self) -> SmtpSink:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    def drop_connections(self) -> None:
        """Close every open connection from the server's side, as an idle timeout does."""
        with self._lock:
            sessions, self._sessions = self._sessions, []
        for server in sessions:
            if server.transport is not None:
                self.controller.loop.call_soon_threadsafe(server.transport.close)
        wait_until(lambda: all(s.transport is None or s.transport.is_closing()
                               for s in sessions), 10, "the connections to close")

    def to(self, address: str) -> list[ReceivedMail]:
        with self._lock:
            return [m for m in self.messages if address in m.rcpt_tos]

    def wait_for(self, address: str, count: int = 1, timeout: float = 30) -> list[ReceivedMail]:
        return wait_until(lambda: len(self.to(address)) >= count and self.to(address), timeout,
                          f"{count} message(s) to {address}")


# ------------------------------------------------------------------------------------- Twilio


@dataclass
class SentSms:
    sid: str
    to: str
    from_: str
    body: str
    status_callback: str | None
    at: float


@dataclass
class FakeTwilio:
    """Twilio's Messages API on loopback, for the real twilio client."""

    account_sid: str = field(default_factory=lambda: "AC" + secrets.token_hex(16))
    auth_token: str = field(default_factory=lambda: secrets.token_hex(16))
    from_number: str = "+15005550006"
    opted_out: set[str] = field(default_factory=set)  # numbers answered with error 21610
    fail_next: int = 0  # answer this many requests with 503 first
    send_status_callbacks: bool = False
    messages: list[SentSms] = field(default_factory=list)
    requests: int = 0

    def __post_init__(self) -> None:
        self.port = free_port()
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                fake.requests += 1
                path = f"/2010-04-01/Accounts/{fake.account_sid}/Messages.json"
                expected = "Basic " + base64.b64encode(
                    f"{fake.account_sid}:{fake.auth_token}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self._reply(401, {"code": 20003, "message": "Authenticate", "status": 401})
                    return
                if self.path != path:
                    self._reply(404, {"code": 20404, "message": "Not found", "status": 404})
                    return
                length = int(self.headers.get("Content-Length", 0))
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                to = form.get("To", [""])[0]
                with fake._lock:
                    if fake.fail_next > 0:
                        fake.fail_next -= 1
                        self._reply(503, {"code": 20503, "message": "Service unavailable",
                                          "status": 503})
                        return
                if to in fake.opted_out:
                    self._reply(400, {"code": 21610, "status": 400,
                                      "message": "Attempt to send to unsubscribed recipient",
                                      "more_info": "https://www.twilio.com/docs/errors/21610"})
                    return
                sid = "SM" + secrets.token_hex(16)
                sms = SentSms(sid, to, form.get("From", [""])[0], form.get("Body", [""])[0],
                              form.get("StatusCallback", [None])[0], time.time())
                with fake._lock:
                    fake.messages.append(sms)
                self._reply(201, {
                    "sid": sid, "account_sid": fake.account_sid, "to": sms.to,
                    "from": sms.from_, "body": sms.body, "status": "queued",
                    "num_segments": "1", "direction": "outbound-api", "api_version": "2010-04-01",
                    "date_created": time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime()),
                    "uri": f"{path[:-5]}/{sid}.json",
                })
                if fake.send_status_callbacks and sms.status_callback:
                    threading.Thread(target=fake.status_callback, args=(sms, "delivered"),
                                     daemon=True).start()

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeTwilio:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def to(self, number: str) -> list[SentSms]:
        with self._lock:
            return [m for m in self.messages if m.to == number]

    def wait_for(self, number: str, count: int = 1, timeout: float = 30) -> list[SentSms]:
        return wait_until(lambda: len(self.to(number)) >= count and self.to(number), timeout,
                          f"{count} SMS to {number}")

    def status_callback(self, sms: SentSms, status: str, error_code: str | None = None) -> int:
        """POST a signed delivery report to the message's StatusCallback, as Twilio does."""
        assert sms.status_callback
        form = {"MessageSid": sms.sid, "SmsSid": sms.sid, "MessageStatus": status,
                "SmsStatus": status, "To": sms.to, "From": sms.from_,
                "AccountSid": self.account_sid, "ApiVersion": "2010-04-01"}
        if error_code:
            form["ErrorCode"] = error_code
        return post_signed(sms.status_callback, sms.status_callback, form, self.auth_token)


def twilio_signature(public_url: str, form: dict[str, str], auth_token: str) -> str:
    """The X-Twilio-Signature Twilio computes for a form POST to ``public_url``."""
    from twilio.request_validator import RequestValidator

    return str(RequestValidator(auth_token).compute_signature(public_url, form))


def post_signed(url: str, public_url: str, form: dict[str, str], auth_token: str | None,
                signature: str | None = None) -> int:
    """POST ``form`` to ``url`` signed for ``public_url`` (or with ``signature``); the status."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if signature is None and auth_token is not None:
        signature = twilio_signature(public_url, form, auth_token)
    if signature is not None:
        headers["X-Twilio-Signature"] = signature
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(),
                                     headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


# ------------------------------------------------------------------------------------- IMAP


class Dovecot:
    """Debian's dovecot-imapd on a free loopback port, from a temporary configuration."""

    MAIL_UID = 65534  # nobody: dovecot refuses to run mail processes as root

    def __init__(self, user: str = "game", password: str | None = None) -> None:
        self.binary = self.require()
        self.user = user
        self.password = password or secrets.token_hex(8)
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="pbm-dovecot-"))
        self.dir.chmod(0o755)

    @staticmethod
    def find() -> str | None:
        """The dovecot binary (``PBM_TEST_DOVECOT`` overrides; set it to nothing to hide)."""
        return find_program("PBM_TEST_DOVECOT", ("dovecot",), ("/usr/sbin/dovecot",))

    @classmethod
    def require(cls) -> str:
        """The dovecot binary, or skip (fail under CI): not installed, or not root."""
        binary = need_program(cls.find(), "dovecot-imapd")
        if os.geteuid() != 0:
            missing("dovecot needs root to start from a temporary configuration "
                    "(run the tests as root)")
        return binary

    def start(self) -> Dovecot:
        d = self.dir
        (d / "run" / "state").mkdir(parents=True)
        (d / "mail").mkdir()
        os.chown(d / "mail", self.MAIL_UID, self.MAIL_UID)
        (d / "users").write_text(f"{self.user}:{{PLAIN}}{self.password}::::::\n")
        (d / "dovecot.conf").write_text(f"""
protocols = imap
listen = 127.0.0.1
base_dir = {d}/run
state_dir = {d}/run/state
instance_name = pbm-{self.port}
log_path = {d}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = dovenull
default_internal_user = dovecot
mail_location = maildir:{d}/mail/%u
first_valid_uid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/users
}}
userdb {{
  driver = static
  args = uid={self.MAIL_UID} gid={self.MAIL_UID} home={d}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.port}
  }}
  inet_listener imaps {{
    port = 0
  }}
  chroot =
}}
service anvil {{
  chroot =
}}
""")
        # dovecot forks into the background: give it no pipes to hold open
        subprocess.run([self.binary, "-c", str(d / "dovecot.conf")], check=True, timeout=30,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

        def answers() -> bool:
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=1):
                return True
            return False

        wait_until(answers, 20, "dovecot to listen")
        return self

    def stop(self) -> None:
        pid_file = self.dir / "run" / "master.pid"
        if pid_file.exists():
            pid = int(pid_file.read_text().strip())
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            with contextlib.suppress(AssertionError):
                wait_until(lambda: not _alive(pid), 10, "dovecot to stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def client(self) -> Any:
        from imapclient import IMAPClient

        client = IMAPClient("127.0.0.1", port=self.port, ssl=False, timeout=10)
        client.login(self.user, self.password)
        return client

    def append(self, raw: bytes, folder: str = "INBOX") -> None:
        """Deliver one message into the mailbox (IMAP APPEND), as a mail server would."""
        client = self.client()
        try:
            client.append(folder, raw)
        finally:
            client.logout()

    def unseen(self, folder: str = "INBOX") -> list[int]:
        client = self.client()
        try:
            client.select_folder(folder, readonly=True)
            return list(client.search(["UNSEEN"]))
        finally:
            client.logout()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# -------------------------------------------------------------------------------- processes


class ServiceProcess:
    """A child process of ours (worker, beat, web) with its own environment and log file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.log_path = log_dir / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> ServiceProcess:
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(self.argv, env=self.env, cwd=ROOT, stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        return self

    def kill(self) -> None:
        """SIGKILL the whole process group: the worker and its pool children die at once."""
        if self.proc and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self, timeout: float = 15) -> None:
        if self.proc and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def children(self) -> list[int]:
        """Pids of this process's direct children (a prefork worker's pool processes)."""
        if not self.proc:
            return []
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except OSError:
            return []

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


def celery_worker(env: dict[str, str], log_dir: Path, name: str = "worker",
                  concurrency: int = 2) -> ServiceProcess:
    argv = [str(VENV_BIN / "celery"), "-A", "workers.app", "worker", "--loglevel=INFO",
            f"--concurrency={concurrency}", "--without-gossip", "--without-mingle",
            "-n", f"{name}-{secrets.token_hex(3)}@%h"]
    return ServiceProcess(name, argv, env, log_dir)


def celery_beat(env: dict[str, str], log_dir: Path) -> ServiceProcess:
    argv = [str(VENV_BIN / "celery"), "-A", "workers.app", "beat", "--loglevel=INFO"]
    return ServiceProcess("beat", argv, env, log_dir)


def web_server(env: dict[str, str], log_dir: Path, port: int) -> ServiceProcess:
    argv = [str(VENV_BIN / "uvicorn"), "pbm.web:app", "--host", "127.0.0.1", "--port", str(port),
            "--log-level", "warning"]
    # as the Procfile runs it: two malloc arenas, not one per threadpool thread (large
    # bodies freed in many arenas left the process's memory fragmented and growing)
    return ServiceProcess("web", argv, {**env, "MALLOC_ARENA_MAX": "2"}, log_dir)


def wait_http(url: str, timeout: float = 30) -> None:
    def ok() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    wait_until(ok, timeout, f"{url} to answer", step=0.1)


@contextlib.contextmanager
def running(*services: Any) -> Iterator[None]:
    """Start services in order, stop them in reverse order."""
    started: list[Any] = []
    try:
        for service in services:
            service.start()
            started.append(service)
        yield
    finally:
        for service in reversed(started):
            service.stop()
