"""What an admin types in (the CLI and the web form): players, game names, time zones.

Players are read with well-kept libraries: ``phonenumbers`` (any common notation, stored
as E.164; a number without ``+country`` needs the ``PHONE_REGION`` setting) and
``email-validator``. Anything not understood is refused, never guessed: the error names the
player by position and name and quotes what was not understood, in one line.
"""

from __future__ import annotations

import re
import unicodedata

import email_validator
import phonenumbers

from pbm.deadlines import is_valid_zone
from pbm.games import PlayerSpec
from pbm.i18n.languages import language_named
from pbm.i18n.languages import languages as known_languages

EXAMPLE_PLAYER = '"Ann <ann@example.org> +44 7700 900123 Europe/London"'
GAME_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
NAME_WORD = re.compile(r"[^\W\d_][\w.'’-]*")
PHONE_CHARS = frozenset("+()-.0123456789")
MAX_NAME = 40


class InputError(ValueError):
    """Something the admin typed that is refused; ``str()`` is one line."""


# ---------------------------------------------------------------- game names and zones


def check_game_name(name: str) -> str:
    """``name`` if it is a short slug (``harbour``, ``reef-2``), else ``InputError``."""
    name = name.strip()
    if GAME_NAME.fullmatch(name):
        return name
    raise InputError(f"game name {name!r}: use 1-40 lower-case letters, digits and hyphens, "
                     f"e.g. {suggest_game_name(name)}")


def suggest_game_name(name: str) -> str:
    """A slug close to ``name`` (``"Bad name!"`` -> ``bad-name``)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:40].strip("-")
    return slug or "harbour"


def check_language(text: str, whose: str) -> str:
    """``"ko"``, ``"Korean"``, ``"한국어"`` -> ``"ko"``; ``"en"`` -> ``"en"``; else
    ``InputError`` naming ``whose`` language."""
    found = language_named(text)
    if found:
        return found
    raise InputError(f"{whose}: unknown language {text.strip()!r} "
                     f"({' or '.join(known_languages())})")


def check_zone(name: str, whose: str) -> str:
    """``name`` if it is an IANA time zone, else ``InputError`` naming ``whose`` zone."""
    if is_valid_zone(name):
        return name
    raise InputError(f"{whose}: unknown time zone {name!r} (an IANA name such as "
                     "Europe/Paris or America/New_York)")


# ---------------------------------------------------------------- contacts


def normalize_email(text: str) -> str:
    """The address, normalised by ``email-validator`` (raises ``ValueError``)."""
    try:
        return str(email_validator.validate_email(text, check_deliverability=False).normalized)
    except email_validator.EmailNotValidError as exc:
        raise ValueError(f"{text!r} is not an email address ({str(exc).rstrip('.')})") from None


def normalize_phone(text: str, region: str | None) -> str:
    """The number in E.164 (``+447700900123``), read by ``phonenumbers`` (raises
    ``ValueError``). Without ``+country`` the number is read in ``region``."""
    try:
        number = phonenumbers.parse(text, region.upper() if region else None)
    except phonenumbers.NumberParseException as exc:
        if exc.error_type == phonenumbers.NumberParseException.INVALID_COUNTRY_CODE:
            raise ValueError(f"{text!r} has no +country code (write it like +44 7700 900123, "
                             "or set PHONE_REGION)") from None
        raise ValueError(f"{text!r} is not a phone number") from None
    if not phonenumbers.is_possible_number(number):
        raise ValueError(f"{text!r} is not a phone number (too short or too long)")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


# ---------------------------------------------------------------- players


def _label(position: int, name: str = "") -> str:
    return f"player {position} ({name})" if name else f"player {position}"


def parse_player(text: str, position: int, *, default_zone: str = "UTC",
                 region: str | None = None, prefer_sms: bool = False,
                 default_language: str = "") -> PlayerSpec:
    """One player typed on one line: a name, then an email (``<a@b.org>`` or bare), a phone
    in any common notation, an optional IANA time zone and an optional language (``ko``,
    ``en``), in any order after the name."""
    emails = [m.strip() for m in re.findall(r"<([^<>]*)>", text)]
    rest = re.sub(r"<[^<>]*>", " ", text)
    words: list[str] = []
    zones: list[str] = []
    languages: list[str] = []
    phone_groups: list[list[str]] = []
    unknown: list[str] = []
    previous = ""
    for token in rest.split():
        if "@" in token:
            emails.append(token)
            kind = "email"
        elif "/" in token or token.upper() in {"UTC", "GMT"}:
            zones.append(token)
            kind = "zone"
        elif set(token) <= PHONE_CHARS and any(c.isdigit() for c in token):
            if previous != "phone":
                phone_groups.append([])
            phone_groups[-1].append(token)
            kind = "phone"
        elif words and (named := language_named(token)):  # a code or language.toml name
            languages.append(named)
            kind = "language"
        elif NAME_WORD.fullmatch(token):
            words.append(token)
            kind = "name"
        else:
            unknown.append(token)
            kind = "unknown"
        previous = kind
    name = " ".join(words)
    who = _label(position, name)
    if unknown:
        raise InputError(f"{who}: did not understand {' '.join(unknown)!r} in {text.strip()!r}; "
                         f"write a player like {EXAMPLE_PLAYER}")
    if len(phone_groups) > 1:
        shown = " and ".join(repr(" ".join(g)) for g in phone_groups)
        raise InputError(f"{who}: did not understand {shown}: give one phone number")
    if len(emails) > 1 or len(zones) > 1 or len(languages) > 1:
        what = ("email addresses" if len(emails) > 1 else "time zones" if len(zones) > 1
                else "languages")
        raise InputError(f"{who}: give one of each, not two {what} in {text.strip()!r}")
    return player_from_fields(position, name, emails[0] if emails else "",
                              " ".join(phone_groups[0]) if phone_groups else "",
                              zones[0] if zones else "", default_zone=default_zone,
                              region=region, prefer_sms=prefer_sms, typed=text.strip(),
                              language=languages[0] if languages else default_language)


def player_from_fields(position: int, name: str, email: str, phone: str, zone: str, *,
                       default_zone: str = "UTC", region: str | None = None,
                       prefer_sms: bool = False, typed: str = "",
                       language: str = "") -> PlayerSpec:
    """One player from separate fields (the web form); blank fields are absent (a blank
    language: English for a new player, unchanged for a known one)."""
    name, email, phone, zone = (x.strip() for x in (name, email, phone, zone))
    who = _label(position, name)
    example = f"e.g. {EXAMPLE_PLAYER}" if typed else "e.g. Ann"
    if not name:
        raise InputError(f"{who}: give a name first ({example})")
    if len(name) > MAX_NAME or not all(NAME_WORD.fullmatch(w) for w in name.split()):
        raise InputError(f"{who}: a name is 1-{MAX_NAME} characters of letters, digits and "
                         ". ' - (starting with a letter)")
    if not email and not phone:
        raise InputError(f"{who}: give an email address or a phone number "
                         f"({'e.g. ' + EXAMPLE_PLAYER if typed else 'or both'})")
    try:
        email = normalize_email(email) if email else ""
        phone = normalize_phone(phone, region) if phone else ""
    except ValueError as exc:
        raise InputError(f"{who}: {exc}") from None
    time_zone = check_zone(zone, f"{who}") if zone else default_zone
    lang = check_language(language, who) if language.strip() else None
    return PlayerSpec(name=name, email=email or None, phone=phone or None, time_zone=time_zone,
                      channel="sms" if prefer_sms and phone else None, language=lang)
