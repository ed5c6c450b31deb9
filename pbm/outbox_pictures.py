"""The board picture of a game version, stored once per version and language for the
emails that show it, and drawn once per process for what it shows (a bounded
``cachetools`` cache)."""

from __future__ import annotations

import json
import threading
from typing import Any

from cachetools import LRUCache, cached
from sqlmodel import Session, select

import engine
from pbm import render, txcache
from pbm.messages import board_image_key
from pbm.models import BoardImage
from pbm.outbox_rows import insert_row_once, new_row


def store_board_image(session: Session, game_id: int, state: engine.GameState,
                      language: str = "en") -> str:
    """Store the public board picture of this game version in ``language`` once; return
    its key.

    Drawn only when a message needs it, once per (version, language) (``pbm.txcache``
    remembers it for the transaction, and knows a version this transaction made has none
    yet)."""
    key = board_image_key(game_id, state.version, language)
    entries = txcache.memo(session)
    memo = ("board", game_id, state.version, language)
    known = entries.get(memo)
    if known is None and entries.get(("board", game_id, state.version)) is False:
        known = False  # a version of this transaction's making: no picture in any language
    if known:
        return key
    if known is None and session.exec(
        select(BoardImage.id).where(
            BoardImage.game_id == game_id, BoardImage.version == state.version,
            BoardImage.language == language,
        )
    ).first() is not None:
        entries[memo] = True
        return key
    png = board_picture(engine.public_view(state).to_dict(), language)
    row = new_row(BoardImage, {"game_id": game_id, "version": state.version,
                               "language": language, "png": png})
    insert_row_once(session, row, ["game_id", "version", "language"])
    entries[memo] = True
    return key


#: public view fields the picture does not show (``pbm.board_image`` never reads them)
NOT_DRAWN = frozenset({"version", "awaiting", "vote", "action", "actions_per_turn",
                       "vote_deck_size", "starred", "loyalties"})
#: board pictures kept per process, by what they show
PICTURES_KEPT = 32
_PICTURES: LRUCache[str, bytes] = LRUCache(maxsize=PICTURES_KEPT)
_PICTURES_LOCK = threading.Lock()  # a worker may run tasks in threads


def _picture_key(public: dict[str, Any], language: str = "en") -> str:
    return language + json.dumps({k: v for k, v in public.items() if k not in NOT_DRAWN},
                                 sort_keys=True, default=str)


@cached(_PICTURES, key=_picture_key, lock=_PICTURES_LOCK)
def board_picture(public: dict[str, Any], language: str = "en") -> bytes:
    """The board picture of a public view in ``language``, drawn once per process for what
    it shows: a version that changed nothing drawn (a vote cast, a card looked at: a fifth
    of all versions) reuses the picture of the one before."""
    return render.board_png(public) if language == "en" else render.board_png(public, language)


def clear_pictures() -> None:
    """Forget the board pictures this process drew."""
    with _PICTURES_LOCK:
        _PICTURES.clear()


