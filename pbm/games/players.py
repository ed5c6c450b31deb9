"""Who sits at the table: ``PlayerSpec`` (parsing and checking a player's name, email and
phone), finding or creating the ``Player``, and the seats' reply tokens.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, select

from pbm import deadlines
from pbm.games.base import InvalidRequest
from pbm.i18n.languages import languages
from pbm.messages import Channel
from pbm.models import Player

TOKEN_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o/1/l: read aloud safely
TOKEN_LENGTH = 16  # 80 bits
EMAIL_RE = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$")
PHONE_RE = re.compile(r"^\+[1-9]\d{6,14}$")


@dataclass(frozen=True)
class PlayerSpec:
    """Who to seat: a display name and at least one of email / phone."""

    name: str
    email: str | None = None
    phone: str | None = None
    time_zone: str = "UTC"
    channel: str | None = None  # "email" / "sms"; default: email if there is one
    #: One of ``pbm.i18n.languages.languages()``; default: English (a known player keeps
    #: theirs).
    language: str | None = None

    @classmethod
    def parse(cls, text: str, time_zone: str = "UTC") -> PlayerSpec:
        """``"Ann <ann@example.org>"``, ``"Bob +15551234567"`` or both: ``"Cy <c@x.org>
        +4915112345678"``."""
        raw = text.strip()
        email = phone = None
        match = re.search(r"<([^<>]*)>", raw)
        if match:
            email = match.group(1).strip()
            raw = (raw[: match.start()] + raw[match.end() :]).strip()
        number = re.search(r"\+\d[\d\s().-]*\d", raw)
        if number:
            phone = re.sub(r"[^\d+]", "", number.group(0))
            raw = (raw[: number.start()] + raw[number.end() :]).strip()
        rest = []
        for token in raw.split():
            if EMAIL_RE.match(token) and email is None:
                email = token
            else:
                rest.append(token)
        spec = cls(name=" ".join(rest), email=email, phone=phone, time_zone=time_zone)
        spec.validate(text)
        return spec

    def validate(self, original: str | None = None) -> None:
        """Raise ``InvalidRequest`` naming what is wrong with this player."""
        shown = original or self.name
        if not self.name or len(self.name) > 40:
            raise InvalidRequest(f"player {shown!r}: give a name of 1-40 characters")
        if not self.email and not self.phone:
            raise InvalidRequest(f"player {shown!r}: give an email <a@b.c> or a phone +123...")
        if self.email and not EMAIL_RE.match(self.email):
            raise InvalidRequest(f"player {shown!r}: {self.email!r} is not an email address")
        if self.phone and not PHONE_RE.match(self.phone):
            raise InvalidRequest(f"player {shown!r}: {self.phone!r} is not a phone number "
                                 "in international form (+15551234567)")
        if not deadlines.is_valid_zone(self.time_zone):
            raise InvalidRequest(f"player {shown!r}: unknown time zone {self.time_zone!r}")
        if self.channel not in (None, Channel.EMAIL, Channel.SMS):
            raise InvalidRequest(f"player {shown!r}: channel must be email or sms")
        if self.channel == Channel.SMS and not self.phone:
            raise InvalidRequest(f"player {shown!r}: SMS needs a phone number")
        if self.language not in (None, *languages()):
            raise InvalidRequest(f"player {shown!r}: language must be "
                                 + " or ".join(languages()))


#: Country calling codes of countries with one time zone (or one most people live in):
#: a player who gave a phone number and no zone starts with this one (ZONE changes it).
#: Countries spread over several zones (+1, +7, +52, +55, +61) are not guessed: UTC.
PHONE_ZONES = {
    "+30": "Europe/Athens", "+31": "Europe/Amsterdam", "+32": "Europe/Brussels",
    "+33": "Europe/Paris", "+34": "Europe/Madrid", "+36": "Europe/Budapest",
    "+39": "Europe/Rome", "+40": "Europe/Bucharest", "+41": "Europe/Zurich",
    "+43": "Europe/Vienna", "+44": "Europe/London", "+45": "Europe/Copenhagen",
    "+46": "Europe/Stockholm", "+47": "Europe/Oslo", "+48": "Europe/Warsaw",
    "+49": "Europe/Berlin", "+351": "Europe/Lisbon", "+352": "Europe/Luxembourg",
    "+353": "Europe/Dublin", "+354": "Atlantic/Reykjavik", "+358": "Europe/Helsinki",
    "+420": "Europe/Prague", "+380": "Europe/Kyiv", "+27": "Africa/Johannesburg",
    "+20": "Africa/Cairo", "+234": "Africa/Lagos", "+254": "Africa/Nairobi",
    "+81": "Asia/Tokyo", "+82": "Asia/Seoul", "+86": "Asia/Shanghai",
    "+852": "Asia/Hong_Kong", "+886": "Asia/Taipei", "+91": "Asia/Kolkata",
    "+65": "Asia/Singapore", "+66": "Asia/Bangkok", "+63": "Asia/Manila",
    "+972": "Asia/Jerusalem", "+971": "Asia/Dubai", "+90": "Europe/Istanbul",
    "+64": "Pacific/Auckland", "+54": "America/Argentina/Buenos_Aires",
    "+56": "America/Santiago", "+57": "America/Bogota",
}


def zone_from_phone(phone: str | None) -> str | None:
    """The time zone guessed from a phone number's country code, or None."""
    if not phone:
        return None
    for digits in (4, 3, 2):
        zone = PHONE_ZONES.get(phone[:digits])
        if zone:
            return zone
    return None


def new_token() -> str:
    """An unguessable reply token (80 bits, lower-case letters and digits)."""
    return "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))


def upsert_player(session: Session, spec: PlayerSpec) -> Player:
    """The player with this email or phone (updating blanks), or a new one."""
    spec.validate()
    by_email = session.exec(select(Player).where(Player.email == spec.email)).first() \
        if spec.email else None
    by_phone = session.exec(select(Player).where(Player.phone == spec.phone)).first() \
        if spec.phone else None
    if by_email and by_phone and by_email.id != by_phone.id:
        raise InvalidRequest(
            f"{spec.email} and {spec.phone} belong to two different players "
            f"({by_email.display_name}, {by_phone.display_name})"
        )
    player = by_email or by_phone
    if player is None:
        player = Player(
            display_name=spec.name,
            email=spec.email,
            phone=spec.phone,
            time_zone=spec.time_zone if spec.time_zone != "UTC" else (
                zone_from_phone(spec.phone) or "UTC"),
            preferred_channel=spec.channel or ("email" if spec.email else "sms"),
            language=spec.language or "en",
        )
    else:
        player.display_name = spec.name
        player.email = player.email or spec.email
        player.phone = player.phone or spec.phone
        if spec.time_zone != "UTC":
            player.time_zone = spec.time_zone
        if spec.channel:
            player.preferred_channel = spec.channel
        if spec.language:
            player.language = spec.language
    session.add(player)
    session.flush()
    return player


def check_distinct(players: Sequence[PlayerSpec]) -> None:
    seen: dict[str, str] = {}
    for spec in players:
        spec.validate()
        for label, value in (("name", spec.name.casefold()), ("email", (spec.email or "").lower()),
                             ("phone", spec.phone or "")):
            if not value:
                continue
            key = f"{label}:{value}"
            if key in seen:
                raise InvalidRequest(f"two players share the {label} {value!r}")
            seen[key] = spec.name
