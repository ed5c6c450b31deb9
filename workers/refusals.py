"""A bad address or a refusing server: one outage is one alert, and nobody's address is
marked as failing because the server refuses everyone.

A mail server that refuses every message (a 550 for relaying, a blocked sender, a
misconfigured smarthost) answers each one as if its recipient were bad. Taken one message at
a time, that marks every player's address as failing and sends the admin an alert per
message. Once the same refusal code has failed ``SPREAD`` different addresses of one channel
within ``WINDOW``, it is the server's refusal: the admin gets one alert an hour for it, and
the addresses it marked meanwhile are cleared.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session

from pbm.models import OutboundStatus
from pbm.transports import TransportError
from workers.claims import outbox_table

WINDOW = timedelta(minutes=30)
SPREAD = 3  # different addresses refused with one code: the server, not the addresses
ABOUT_THE_ADDRESS = ("recipient", "opted_out")


def addresses_refused_alike(session: Session, row: Any, error: TransportError,
                            now: datetime) -> list[str]:
    """The addresses of this channel that failed for good with ``error``'s code lately
    (this row's included, once its failure is written); empty unless about the address."""
    if error.reason != "recipient" or not error.code:
        return []
    table = outbox_table()
    return [str(a) for a in session.execute(
        sa.select(table.c.to_address).distinct()
        .where(table.c.channel == row.channel, table.c.status == OutboundStatus.FAILED,
               table.c.claimed_at >= now - WINDOW,
               table.c.last_error.like(f"%{error.code}%"))
        .limit(SPREAD * 20)).scalars()]


def refuses_everyone(refused: list[str]) -> bool:
    """True when one code refused enough different addresses to be the server's doing."""
    return len(refused) >= SPREAD


def alert_key(row: Any, error: TransportError, now: datetime, everyone: bool) -> str:
    """The dedupe key of the admin's alert: one per message for a bad address, one an hour
    per channel and refusal for the server or the service itself."""
    if error.reason in ABOUT_THE_ADDRESS and not everyone:
        return f"delivery:{row.id}"
    return f"delivery:{row.channel}:{error.reason or 'error'}:{error.code or '-'}:{now:%Y%m%d%H}"
