"""kombu's filesystem transport with atomic writes: the serverless broker of the embedded default.

kombu 5.7's filesystem ``Channel._put`` creates ``<queue>.msg`` and only then writes the
payload into it; a consumer polling the folder can move and read the file in between, get
an empty payload, raise ``JSONDecodeError`` out of the Celery consumer loop, and the worker
exits (the message is lost too). Seen here within a few dozen tasks at a 50 ms polling
interval, and reproduced with plain kombu: 2 of 3,000 messages. This transport writes the
payload to a hidden temporary name first and renames it into place, so a reader only ever
sees complete files. ``workers.app`` selects it whenever the broker is ``filesystem://``.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):  # type: ignore[misc]
    """A filesystem channel whose messages appear in the folder complete or not at all."""

    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        temporary = os.path.join(self.data_folder_out, f".{name}.tmp")
        try:
            with open(temporary, "wb", buffering=0) as fh:
                fh.write(str_to_bytes(dumps(payload)))
            os.replace(temporary, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):  # type: ignore[misc]
    """The filesystem transport with :class:`Channel`."""

    Channel = Channel
