"""kombu's filesystem transport with atomic writes: the serverless broker of the embedded default.

kombu 5.7's filesystem ``Channel._put`` creates ``<queue>.msg`` and only then writes the
payload into it; a consumer polling the folder can move and read the file in between, get
an empty payload, raise ``JSONDecodeError`` out of the Celery consumer loop, and the worker
exits (the message is lost too). Seen here within a few dozen tasks at a 50 ms polling
interval, and reproduced with plain kombu: 2 of 3,000 messages. This transport writes the
payload to a hidden temporary name first and renames it into place, so a reader only ever
sees complete files. The exchange table (``control/<exchange>.exchange``) has the same
race when it is first created: kombu creates it empty and only then locks and writes it, so
a publisher reading it at that moment gets ``JSONDecodeError``. Here a new table appears
complete, by a hard link that fails if another process created it first (then we fall
back to kombu's locked update of the existing file). ``workers.app`` selects this
transport whenever the broker is ``filesystem://``.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    """A filesystem channel whose messages appear in the folder complete or not at all."""

    # kombu's own filesystem channel widens the virtual channel's _put with **kwargs
    def _put(  # type: ignore[override]
            self, queue: str, payload: dict[str, Any], **kwargs: Any) -> None:
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        temporary = os.path.join(self.data_folder_out, f".{name}.tmp")
        try:
            with open(temporary, "wb", buffering=0) as fh:
                fh.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _queue_bind(self, exchange: str, routing_key: str, pattern: str | None,
                    queue: str) -> None:
        # _exchange_file (validates the name) is kombu-private: absent from its stubs
        table: Path = self._exchange_file(exchange)  # type: ignore[attr-defined]
        if not table.exists():
            self.control_folder.mkdir(parents=True, exist_ok=True)
            row = filesystem.exchange_queue_t(routing_key or "", pattern or "", queue or "")
            temporary = table.with_name(f".{table.name}.{uuid.uuid4()}.tmp")
            try:
                temporary.write_bytes(str_to_bytes(dumps([row])))
                try:
                    os.link(temporary, table)  # atomic: succeeds only if absent
                    return
                except FileExistsError:
                    pass  # another process made it: update it under kombu's lock below
            except OSError as exc:
                raise ChannelError(f"Cannot create {table}") from exc
            finally:
                temporary.unlink(missing_ok=True)
        super()._queue_bind(exchange, routing_key, pattern, queue)


class Transport(filesystem.Transport):
    """The filesystem transport with :class:`Channel`."""

    Channel = Channel
