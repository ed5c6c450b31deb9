"""The ``session.info`` keys data travels under between modules within one transaction:
one name each, imported by the module that writes and the module that reads (the values
are the strings the keys always had)."""

from __future__ import annotations

#: the ids of the outbox rows ``pbm.outbox_rows.insert_once`` wrote in this transaction (and
#: those ``workers.hooks`` finds added with ``session.add``): enqueued after the commit
NEW_OUTBOX_IDS = "pbm_new_outbox_ids"
#: notes to fold into the next message to a seat in this transaction (``pbm.outbox``)
FOLD_NOTES = "pbm.fold"
#: the board pictures the delivery worker has claimed in this transaction
#: (``workers.claims`` remembers them, ``workers.message`` reads them)
CLAIMED_PNGS = "pbm.delivery.claimed_pngs"
