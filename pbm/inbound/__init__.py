"""Everything a player sends us, by any channel, through one code path.

1. **Store raw first** (``store_email``, ``store_sms``): one row per provider message id,
   so a webhook retried by the provider, or a mail seen by IMAP and a webhook alike, is kept
   once. Storing never parses more than the headers it needs and never fails on bad input.
2. **Process** (``process``), in a worker, safe to run twice: claim the row, drop what must
   never be treated as a command (auto-replies, bounces, lists, our own mail), route it to a
   seat by reply token (email) or phone number (SMS), check the sender, extract and parse
   the player's own text, apply it through ``pbm.games``, and answer with a REPLY message.
   Applying and marking the row done happen in one transaction: a reply is applied once.
   A message whose processing crashes is quarantined with its error for the admin.

Modules, lowest first (each imports only those above it): ``mime`` (MIME helpers, automatic
mail), ``storage`` (storing, claims, quarantine), ``routing`` (token, thread, sender),
``answering`` (the REPLY message, the not-understood cap), ``work`` (one message on its way,
the ``Disposition`` of a step), ``applying`` (the parse, apply and answer steps: submit, meta
commands, settings, SAY limits), ``pipeline`` (``process``: the named steps of each channel,
in order, as data).
"""

from __future__ import annotations

from pbm.inbound.applying import handle_bounce
from pbm.inbound.mail_headers import (
    automatic_reason,
    bounce_details,
    decode_raw,
    email_address,
    email_provider_id,
    encode_raw,
    header,
    is_bounce,
    parse_email,
    parse_headers,
    recipient_addresses,
)
from pbm.inbound.pipeline import process
from pbm.inbound.routing import ACTIVE_GAMES, route_email, route_sms, sender_authenticated
from pbm.inbound.storage import (
    EMAIL,
    MAX_PROCESS_ATTEMPTS,
    SMS,
    RequeueError,
    Stored,
    quarantine,
    relay_candidates,
    requeue,
    store,
    store_email,
    store_sms,
)
from pbm.inbound.storage import claim_inbound as claim_inbound  # tests drive the claim directly

__all__ = [
    "ACTIVE_GAMES",
    "EMAIL",
    "MAX_PROCESS_ATTEMPTS",
    "SMS",
    "RequeueError",
    "Stored",
    "automatic_reason",
    "bounce_details",
    "decode_raw",
    "email_address",
    "email_provider_id",
    "encode_raw",
    "handle_bounce",
    "header",
    "is_bounce",
    "parse_email",
    "parse_headers",
    "process",
    "quarantine",
    "recipient_addresses",
    "relay_candidates",
    "requeue",
    "route_email",
    "route_sms",
    "sender_authenticated",
    "store",
    "store_email",
    "store_sms",
]
