"""Poll an IMAP mailbox for replies: every UNSEEN message is stored, then flagged \\Seen.

Storing comes before flagging, and storing is idempotent on Message-ID, so a crash between
the two only means the next poll stores it again (a no-op). Nothing is ever deleted.
"""

from __future__ import annotations

import logging
from datetime import datetime
from functools import partial

from pbm import inbound
from pbm.config import Settings
from pbm.db import run_transaction

log = logging.getLogger(__name__)

BATCH = 50


def poll(settings: Settings, now: datetime) -> list[int]:
    """Fetch unseen mail into the inbound table; the ids of rows created by this poll."""
    from imapclient import IMAPClient  # here: imapclient only in a process that polls IMAP

    if not settings.imap_host:
        return []
    created: list[int] = []
    client = IMAPClient(settings.imap_host, port=settings.imap_port, ssl=settings.imap_ssl,
                        timeout=30)
    try:
        password = settings.imap_password.get_secret_value() if settings.imap_password else ""
        client.login(settings.imap_username or "", password)
        client.select_folder(settings.imap_folder)
        uids = list(client.search(["UNSEEN"]))
        for start in range(0, len(uids), BATCH):
            batch = uids[start:start + BATCH]
            fetched = client.fetch(batch, ["BODY.PEEK[]"])
            stored_uids = []
            for uid, data in fetched.items():
                raw = data.get(b"BODY[]")
                if not raw:
                    continue
                stored = run_transaction(partial(inbound.store_email, raw=raw, now=now))
                stored_uids.append(uid)
                if stored.created:
                    created.append(stored.id)
            if stored_uids:
                client.add_flags(stored_uids, [b"\\Seen"])
    finally:
        try:
            client.logout()
        except Exception:  # the connection may already be gone
            client.shutdown()
    if created:
        log.info("IMAP: stored %d new message(s)", len(created))
    return created
