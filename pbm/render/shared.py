"""The board section of an email, rendered once per game version and language and shared
by every seat and channel; only the reader's own marks are filled in per message.

The public part (ships and crews, Tortuga, the Galleon, decks, discard, score) is rendered
from ``board_model(public, None)``: the public view only, no seat's marks, no peeks
(``templates/email/board_public.*``). Where the section differs by reader it carries a
slot, a mark no text can forge (NUL, a per-process random token, NUL); each message fills
them for its own seat from its own board model: "<- you" after the reader's crew line and
rowboat (HTML: ``class="you"``), the reader's peeks in the Event row and the note under it,
and the HTML row of cards (``board_row.html``: peeks and one-tap REVEAL links).

The public renders are kept per process in a bounded LRU keyed by the language, the
picture's Content-ID and the public view itself (its JSON): two seats of one version share
it; a seat's own marks never enter it.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Any

import cachetools
from cachetools import LRUCache
from markupsafe import Markup

from pbm.i18n import translate
from pbm.i18n.translate import _
from pbm.render.board import board_model
from pbm.render.email import env_for

_TOKEN = secrets.token_hex(8)  # per process: no player name can spell a slot
_SLOT = re.compile(f"\x00{_TOKEN}(Y-?\\d+|P\\d+|S|R)\x00")

#: public renders kept per process (one per version and language that a message showed)
KEPT = 64
_PUBLIC: LRUCache[tuple[str, str, str, str], str] = LRUCache(maxsize=KEPT)
_LOCK = threading.Lock()  # a worker may run tasks in threads


def _slot(name: str) -> Markup:
    return Markup(f"\x00{_TOKEN}{name}\x00")


def _marks() -> dict[str, Callable[..., Markup]]:
    """The slot functions the public templates call."""
    return {
        "you_mark": lambda seat: _slot(f"Y{-1 if seat is None else seat}"),
        "peek_mark": lambda position: _slot(f"P{position}"),
        "seen_mark": lambda: _slot("S"),
        "row_mark": lambda: _slot("R"),
    }


class PublicBoard:
    """One message's public view (``seat_view["public"]``), with its key for the shared
    renders and its public board model each worked out at most once: a message asks for
    the text public part and then the HTML one."""

    def __init__(self, public: Mapping[str, Any]) -> None:
        self.public = public
        self._key: str | None = None
        self._board: dict[str, Any] | None = None

    def key(self) -> str:
        """The public view's JSON (its keys sorted)."""
        if self._key is None:
            self._key = json.dumps(self.public, sort_keys=True, separators=(",", ":"),
                                   default=str)
        return self._key

    def board(self) -> dict[str, Any]:
        """``board_model(public, None)`` in the current language: no seat's marks."""
        if self._board is None:
            self._board = board_model(self.public, None)
        return self._board


def public_board(model: Mapping[str, Any]) -> PublicBoard:
    """The public view of this message's own seat view, for ``board_text`` and ``board_html``."""
    return PublicBoard(model["ctx"].seat_view["public"])


def _public_key(shape: str, view: PublicBoard, board_cid: str | None
                ) -> tuple[str, str, str, str]:
    return shape, translate.current(), str(board_cid), view.key()


@cachetools.cached(_PUBLIC, key=_public_key, lock=_LOCK)
def _public(shape: str, view: PublicBoard, board_cid: str | None) -> str:
    """The public board section (``shape``: ``"txt"`` or ``"html"``) of this public view
    in the current language, with its slots; rendered once per process and key."""
    return env_for(translate.current()).get_template(f"email/board_public.{shape}").render(
        board=view.board(), board_cid=board_cid, **_marks())


def _reader(model: Mapping[str, Any]) -> tuple[int | None, dict[int, str]]:
    """The reader's seat and own peeks (position -> title) from its own board model."""
    view = model["ctx"].seat_view
    peeks = {c["position"]: str(c["peek"]) for c in model["board"]["row"] if c["peek"]}
    return (None if view is None else int(view["seat"])), peeks


def board_text(model: Mapping[str, Any], view: PublicBoard | None = None) -> str:
    """The text board section of this message: the shared public part, this seat's marks
    (``view``: the message's ``public_board``, when its HTML board is rendered too)."""
    board = model["board"]
    if not board:
        return ""
    me, peeks = _reader(model)
    you = _("  <- you")
    seen = "             " + _("(* what you saw there)") + "\n" if peeks else ""

    def fill(found: re.Match[str]) -> str:
        slot = found.group(1)
        if slot[0] == "Y":
            return you if me is not None and int(slot[1:]) == me else ""
        if slot[0] == "P":
            peek = peeks.get(int(slot[1:]))
            return f"{peek}*" if peek is not None else "?"
        if slot == "S":
            return seen
        raise ValueError(f"no slot {slot} in the text board")

    return _SLOT.sub(fill, _public("txt", view or public_board(model), model["board_cid"]))


def board_html(model: Mapping[str, Any], view: PublicBoard | None = None) -> Markup:
    """The HTML board section of this message: the shared public part, this seat's marks
    and its row of Event cards (``board_row.html``, rendered for this seat); ``view`` as
    for ``board_text``."""
    board = model["board"]
    if not board:
        return Markup("")
    me, _peeks = _reader(model)
    row = env_for(translate.current()).get_template("email/board_row.html").render(**model)

    def fill(found: re.Match[str]) -> str:
        slot = found.group(1)
        if slot[0] == "Y":
            return ' class="you"' if me is not None and int(slot[1:]) == me else ""
        if slot == "R":
            return row
        raise ValueError(f"no slot {slot} in the HTML board")

    public = _public("html", view or public_board(model), model["board_cid"])
    return Markup(_SLOT.sub(fill, public))  # Jinja autoescaped the public part and the row


def cached() -> int:
    """How many public renders this process keeps."""
    with _LOCK:
        return len(_PUBLIC)


def clear() -> None:
    """Forget every shared render (tests)."""
    with _LOCK:
        _PUBLIC.clear()
