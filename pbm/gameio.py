"""Export and import of one game: moving a running game to another server.

``export_game`` writes a self-contained JSON document: the game (seed, options, timing,
status, the state snapshot), its players, seats (reply tokens included, so replies to the
old addresses still route), the command log, the event log (for the players' recaps and
the admin's story) and the deadlines (with their reminders). Not exported: the outbox,
inbound messages and cached board images (they belong to the old server; the new one
prompts again with ``pbm game resume`` or the next reminder).

``import_game`` writes it into another database in one transaction, matching players by
email or phone (or creating them), and refuses the import unless replaying the imported
command log from the seed gives exactly the imported state: the same game, provably.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, SQLModel, col, select

from pbm.admin_input import InputError, check_game_name, normalize_email, normalize_phone
from pbm.games import get_game, replay_matches
from pbm.hygiene import clean_line
from pbm.models import CommandLog, Deadline, Game, GameEvent, Player, Seat

FORMAT = "tortuga-by-mail/game"
VERSION = 1


class ImportRefused(ValueError):
    """The document cannot be imported (format, a name taken, replay mismatch)."""


def _value(value: Any) -> Any:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    return value


def _dump(obj: SQLModel, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    table = obj.__table__  # type: ignore[attr-defined]
    return {c.key: _value(getattr(obj, c.key)) for c in table.columns
            if c.key not in ("id", *skip)}


def _is_datetime(column: Any) -> bool:
    kind = column.type
    return isinstance(getattr(kind, "impl_instance", kind), sa.DateTime)


def _load(model: type[SQLModel], data: dict[str, Any], **fixed: Any) -> Any:
    table = model.__table__  # type: ignore[attr-defined]
    values: dict[str, Any] = {}
    for column in table.columns:
        if column.key == "id" or column.key not in data:
            continue
        value = data[column.key]
        if isinstance(value, str) and _is_datetime(column):
            value = datetime.fromisoformat(value)
        values[column.key] = value
    values.update(fixed)
    return model(**values)


def export_game(session: Session, ref: int | str) -> dict[str, Any]:
    """The whole game ``ref`` (name or id) as a JSON-ready document."""
    game = get_game(session, ref)
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id)
                              .order_by(col(Seat.seat_index))))
    player_ids = {s.player_id for s in seats}
    for seat in seats:
        player_ids.update(int(i) for i in seat.replaced_player_ids.split(",") if i.strip())
    players = {int(p.id or 0): p for p in session.exec(select(Player).where(
        col(Player.id).in_(sorted(player_ids))))}
    order = sorted(players)

    def ordered(model: Any) -> list[Any]:
        return list(session.exec(select(model).where(model.game_id == game.id)
                                 .order_by(col(model.id))))

    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": datetime.now(UTC).isoformat(),
        "game": _dump(game, skip=("version",)),
        "players": [{"ref": i, **_dump(players[pid])} for i, pid in enumerate(order)],
        "seats": [{**_dump(s, skip=("game_id", "player_id")),
                   "player": order.index(s.player_id),
                   "replaced_player_ids": [order.index(int(i)) for i in
                                           s.replaced_player_ids.split(",") if i.strip()]}
                  for s in seats],
        "commands": [_dump(c, skip=("game_id", "inbound_message_id"))
                     for c in ordered(CommandLog)],
        "events": [_dump(e, skip=("game_id",)) for e in ordered(GameEvent)],
        "deadlines": [_dump(d, skip=("game_id",)) for d in ordered(Deadline)],
    }


def _player(session: Session, data: dict[str, Any]) -> Any:
    for field in ("email", "phone"):
        value = data.get(field)
        if value:
            found = session.exec(select(Player).where(
                sa.func.lower(getattr(Player, field)) == value.lower())).first()
            if found is not None:
                return found
    player = _load(Player, {k: v for k, v in data.items() if k != "ref"})
    session.add(player)
    session.flush()
    return player


def _check_player(data: dict[str, Any]) -> None:
    """An imported player as ``pbm game create`` would take it: a one-line name, a valid
    email address and a phone number in international form (``InputError`` otherwise)."""
    name = str(data.get("display_name") or "")
    if not name or clean_line(name) != name or len(name) > 60:
        raise InputError(f"player name {name!r}: one line of printable text, at most 60 "
                         "characters")
    if data.get("email"):
        normalize_email(str(data["email"]))
    if data.get("phone"):
        phone = str(data["phone"])
        if normalize_phone(phone, None) != phone:
            raise InputError(f"phone {phone!r}: not in international form (+country ...)")


def import_game(session: Session, document: dict[str, Any], *, name: str | None = None
                ) -> int:
    """Write the exported ``document`` as a new game (named ``name`` if given); its id.

    Raises ``ImportRefused`` (and the caller's transaction rolls back) when the format is
    unknown, the name or a reply token is taken, or the replay check fails."""
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ImportRefused(f"not a game export of this service (format {FORMAT} "
                            f"version {VERSION})")
    data = dict(document["game"])
    if name:
        data["name"] = name
    try:
        data["name"] = check_game_name(str(data.get("name", "")))
        for player in document["players"]:
            _check_player(player)
    except ValueError as exc:  # InputError, a bad address or phone
        raise ImportRefused(str(exc)) from None
    if session.exec(select(Game).where(Game.name == data["name"])).first() is not None:
        raise ImportRefused(f"a game named {data['name']!r} exists here already "
                            "(import with --name NEW)")
    game = _load(Game, data)
    session.add(game)
    session.flush()
    players = [_player(session, p) for p in document["players"]]
    for seat_data in document["seats"]:
        values = {k: v for k, v in seat_data.items() if k not in ("player",
                                                                  "replaced_player_ids")}
        token = values.get("reply_token")
        if not token or session.exec(select(Seat).where(Seat.reply_token == token)).first():
            values["reply_token"] = secrets.token_hex(8)  # taken here: the old address ends
        replaced = ",".join(str(players[i].id) for i in seat_data["replaced_player_ids"])
        session.add(_load(Seat, values, game_id=game.id,
                          player_id=players[seat_data["player"]].id,
                          replaced_player_ids=replaced))
    for command in document["commands"]:
        session.add(_load(CommandLog, command, game_id=game.id))
    for event in document["events"]:
        session.add(_load(GameEvent, event, game_id=game.id))
    for deadline in document["deadlines"]:
        session.add(_load(Deadline, deadline, game_id=game.id))
    session.flush()
    if game.state_json and not replay_matches(session, game.id):
        raise ImportRefused("replaying the imported command log does not give the imported "
                            "state: the export is damaged or from another engine version")
    return int(game.id)


def dumps(document: dict[str, Any]) -> str:
    """The document as JSON text (stable key order, one file)."""
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False)
