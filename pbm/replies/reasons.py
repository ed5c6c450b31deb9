"""What the service tells a player as data (:class:`engine.reasons.Reason`): why a line
was not understood or a command not played (the reply reader's, the inbound pipeline's,
``pbm.games``'s and ``pbm.player_settings``'s codes), the answers to settings and the AWAY / BACK
notices to a table; each code with its English template.

Each template is the catalogue's message id (marked ``N_`` for Babel); a reader of any
language gets the reason from its code (``pbm.render.reasons.say``). Parameters are
converted for the reader by their name there: ``cmd``, ``stop``, ``start`` (commands),
``kind`` and ``what`` (the parser's words), ``reason`` (a nested reason); any other value is
said as it is (numbers, names, the player's own words).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from engine.reasons import Reason, ReasonCode
from pbm.i18n.translate import N_

# ------------------------------------------------------------------ the arguments of a command

UNEXPECTED_WORD = ReasonCode("reply.unexpected_word", N_("unexpected word '{word}'"))
UNEXPECTED = ReasonCode("reply.unexpected", N_("unexpected {kind} {value}"))
NEEDS_PLAYER = ReasonCode("reply.needs_player",
                          N_("{cmd} needs one player (name or seat number)"))
NO_SYMBOL_CARD = ReasonCode("reply.no_symbol_card", N_("you hold no Vote card with that symbol"))
ONE_OR_TWO_NUMBERS = ReasonCode("reply.one_or_two_numbers", N_("{cmd} takes one or two numbers"))
NO_VOTE_CARD = ReasonCode("reply.no_vote_card", N_("you have no Vote card {n} (you hold {hand})"))
ONE_POSITION = ReasonCode("reply.one_position", N_("{cmd} takes one position (1 to 5)"))
FORCE_ARGS = ReasonCode("reply.force_args", N_("{cmd} takes two positions and a player"))
MARQUE_ARGS = ReasonCode("reply.marque_args", N_("{cmd} takes a player and a ship (FD or JR)"))
ON_TORTUGA = ReasonCode("reply.on_tortuga", N_("you are on Tortuga already"))
ROW_ONE_SHIP = ReasonCode("reply.row_one_ship", N_("{cmd} takes at most one ship"))
BOARD_OWN = ReasonCode("reply.board_own",
                       N_("{verb} takes you aboard your rowboat's ship ({cmd})"))
HOLD_ARG = ReasonCode("reply.hold_arg", N_("{cmd} takes BRITISH or FRENCH"))
TAKE_ARGS = ReasonCode("reply.take_args",
                       N_("{cmd} takes TO BRITISH / TO FRENCH (or FROM-hold TO hold)"))

# ------------------------------------------------------------------ a line as a whole

NOT_A_COMMAND = ReasonCode("reply.not_a_command", N_("not a command"))
NUMBER_MEANS_NOTHING = ReasonCode("reply.number_means_nothing", N_(
    "nothing is awaited from you now, so a number means nothing"))
NO_OPTION = ReasonCode("reply.no_option", N_("there is no option {n}"))
OPTION_NO_MORE = ReasonCode("reply.option_no_more", N_("option {n} ({cmd}) takes no more words"))
OPTION_NEEDS = ReasonCode("reply.option_needs", N_("option {n} needs more: {cmd}"))
OPTION_IS_NOT = ReasonCode("reply.option_is_not", N_("option {n} is not {cmd}"))
NO_MORE_WORDS = ReasonCode("reply.no_more_words", N_("{cmd} takes no more words"))
SAY_NEEDS = ReasonCode("reply.say_needs", N_("{cmd} needs the words to say"))
QUESTION = ReasonCode("reply.question", N_(
    "that reads as a question, so nothing was done; to do it, reply {cmd}"))
ON_OFF = ReasonCode("reply.on_off", N_("{cmd} takes ON or OFF"))
NEEDS_MORE = ReasonCode("reply.needs_more", N_("{cmd} needs more"))
NOT_PLAIN = ReasonCode("reply.not_plain", N_("that is not said plainly"))
WHICH_COMMAND = ReasonCode("reply.which_command",
                           N_("that corrects one of several commands, but not which"))
WHICH_PART = ReasonCode("reply.which_part",
                        N_("that changes part of the command, but not which part"))
COULD_BE_NAMES = ReasonCode("reply.could_be_names", N_("'{word}' could be {names}: say which"))
FITS_CARDS = ReasonCode("reply.fits_cards",
                        N_("that fits more than one of your Vote cards: say which"))
COULD_MEAN = ReasonCode("reply.could_mean", N_("that could mean {cmd}"))
TWO_COMMANDS = ReasonCode("reply.two_commands", N_("that gives two different commands"))
POSITION_OR_CARD = ReasonCode("reply.position_or_card", N_(
    "'{word}' could be position {n} or the {other} of the two cards offered"))
CHANGED_MIND = ReasonCode("reply.changed_mind", N_(
    "you changed your mind about {cmd} but we could not tell what you want instead "
    "({reason}): say which"))

# ------------------------------------------------------------------ changes of mind

#: A vote changed while the vote is open (what was done, not a refusal).
VOTE_NOW_ONE = ReasonCode("reply.vote_now_one", N_("Your vote is now card {n} ({symbols})"))
VOTE_NOW_TWO = ReasonCode("reply.vote_now_two", N_(
    "Your vote is now card {n} ({symbols}) and card {other} ({other_symbols})"))

FINAL_ACTION = ReasonCode("reply.final_action", N_(
    "your {cmd} was already played and is final (a turn action cannot be changed once it is "
    "applied); nothing was changed"))

# ------------------------------------------------------------------ the service's answers
# (pbm.inbound.applying, pbm.games): why a command of a reply was not played

SETTLED = ReasonCode("service.settled", N_(
    "that question was settled before your reply came in, so nothing was played"))
NOT_STARTED = ReasonCode("service.not_started", N_("the game has not started yet"))
NOT_TRIED = ReasonCode("service.not_tried", N_("not tried after the command before it failed"))
TOOK_BACK = ReasonCode("service.took_back", N_('you took it back ("{word}"), so it was not played'))
SAY_LIMIT = ReasonCode("service.say_limit", N_(
    "not relayed: at most {n} SAY lines per reply and {m} per hour reach the table"))
TABLE_TALK_PICK = ReasonCode("service.table_talk_pick", N_(
    "that answers table talk, not your menu, so nothing was played; to play it, reply {cmd}"))
NOTHING_TO_CANCEL = ReasonCode("service.nothing_to_cancel", N_(
    "a move once applied is final (no take-backs), and there is nothing else to cancel; to "
    "stop text messages, text {stop}"))
STOP_BY_EMAIL = ReasonCode("service.stop_by_email", N_(
    "{stop} by email changes nothing: to stop text messages, text {stop} from your phone; to "
    "pause your deadlines, reply {away}; to leave the game, write to the organiser"))
NO_PHONE = ReasonCode("service.no_phone", N_(
    "you have no phone number with us; {stop} and {start} are about text messages"))
VOTE_CLOSED = ReasonCode("service.vote_closed", N_(
    "the vote had already closed when your reply came in: your vote counted as you first "
    "played it; nothing was changed"))
NOTHING_CHANGED = ReasonCode("service.nothing_changed", N_("{reason}; nothing was changed"))
QUESTION_CLOSED = ReasonCode("service.question_closed", N_(
    "that answers a question that is already closed; nothing was changed"))

# ------------------------------------------------------------------ settings (pbm.player_settings)
# The setting commands stay as the player types them (``cmd``, ``example``).

ZONE_NEEDS = ReasonCode("setting.zone_needs",
                        N_("{cmd} needs a place or an offset, e.g. {example}"))
NOT_AN_OFFSET = ReasonCode("setting.not_an_offset",
                           N_("{value} is not a UTC offset: offsets run from {example}"))
UNKNOWN_ZONE = ReasonCode("setting.unknown_zone", N_(
    "'{value}' is not a time zone I know. Send a city (ZONE Paris), a zone (ZONE "
    "America/New_York) or an offset (ZONE UTC-5)."))
UNKNOWN_ZONE_HINT = ReasonCode("setting.unknown_zone_hint", N_(
    "'{value}' is not a time zone I know. Did you mean ZONE {zone}? Send a city (ZONE Paris), "
    "a zone (ZONE America/New_York) or an offset (ZONE UTC-5)."))
NO_ZONE_WITH_OFFSET = ReasonCode("setting.no_zone_with_offset", N_(
    "no time zone has the offset {value}; send a city instead ({example})"))
QUIET_HOURS = ReasonCode("setting.quiet_hours", N_(
    "{cmd} takes two whole hours of your day, e.g. {example} (no reminders from 23:00 to "
    "07:00), or {off}"))
QUIET_DIFFERENT = ReasonCode("setting.quiet_different",
                             N_("{cmd} needs two different hours, e.g. {example}"))
AWAY_RANGE = ReasonCode("setting.away_range", N_("{cmd} lasts from an hour to 60 days"))
AWAY_TAKES = ReasonCode("setting.away_takes", N_(
    "{cmd} takes a length or a day: {example} (BACK when you are back)"))
AWAY_BEGUN = ReasonCode("setting.away_begun",
                        N_("{day} has already begun; send {example} or a later day"))
ON_OFF_EXAMPLE = ReasonCode("setting.on_off", N_("{cmd} takes ON or OFF, e.g. {example}"))
VIA_TAKES = ReasonCode("setting.via_takes", N_("{cmd} takes EMAIL, SMS or BOTH, e.g. {example}"))
NO_PHONE_FOR_VIA = ReasonCode("setting.no_phone", N_(
    "you have no phone number with us; ask the organiser to add it, then send {example}"))
NO_EMAIL_FOR_VIA = ReasonCode("setting.no_email", N_(
    "you have no email address with us; ask the organiser to add it, then send {example}"))
LANG_TAKES = ReasonCode("setting.lang_takes", N_(
    "{cmd} takes EN or KO, e.g. {cmd} KO (한국어) or {cmd} EN (English)"))
NOT_A_SETTING = ReasonCode("setting.unknown",
                           N_("{value} is not a setting; send {example} to see them all"))

# ------------------------------------------------------------------ answers to settings
# A moment is a parameter twice: ``until`` its English words ("Mon 03 Mar 14:00 CET", in the
# player's zone) and ``until_at`` the moment itself (:func:`moment`), from which another
# language writes it; a length likewise (``span`` and ``span_seconds``, :func:`seconds`).
# ``setting``: the setting as the player types it, in every language (``ZONE Seoul``).

JOINED = ReasonCode("answer.joined", N_("{first}; {rest}"))
ZONE_SET = ReasonCode("answer.zone",
                      N_("{setting}: deadlines now shown in your time (it is {now})."))
QUIET_OFF = ReasonCode("answer.quiet_off",
                       N_("{setting}: reminders keep each game's quiet hours."))
QUIET_SET = ReasonCode("answer.quiet", N_(
    "{setting}: no reminders from {start}:00 to {end}:00 your time (deadlines do not wait)."))
AWAY_SET = ReasonCode("answer.away", N_("{setting} until {until}, table told. {where}."))
AWAY_NO_GAME = ReasonCode("answer.away_no_game", N_("you have no game in progress"))
AWAY_HELD = ReasonCode("answer.away_held", N_("{game}: your deadlines wait until {until}"))
AWAY_HELD_CAPPED = ReasonCode("answer.away_held_capped", N_(
    "{game}: your deadlines wait until {until} (the most this game allows: {span})"))
AWAY_USED_UP = ReasonCode("answer.away_used_up", N_(
    "{game}: your away allowance ({span}) is used up; deadlines run as usual"))
BACK_NOT_AWAY = ReasonCode("answer.back_not_away",
                           N_("{setting}: you were not away; nothing changed."))
BACK_SET = ReasonCode("answer.back", N_(
    "{setting}: welcome back! Your deadlines run again in {games}."))
VIA_EMAIL = ReasonCode("answer.via_email", N_("{setting}: your messages come by email."))
VIA_SMS = ReasonCode("answer.via_sms", N_("{setting}: your messages come by text."))
VIA_BOTH = ReasonCode("answer.via_both", N_("{setting}: your messages come by email and by text."))
DIGEST_ON = ReasonCode("answer.digest_on",
                       N_("{setting}: every public event, at most one digest an hour."))
DIGEST_OFF = ReasonCode("answer.digest_off", N_("{setting}: news come with your next prompt."))
TALK_ON = ReasonCode("answer.talk_on", N_("{setting}: table talk reaches you by text at once."))
TALK_OFF = ReasonCode("answer.talk_off",
                      N_("{setting}: by text, table talk comes with your next prompt."))
CALENDAR_ON = ReasonCode("answer.calendar_on",
                         N_("{setting}: each prompt carries its deadline as a calendar event."))
CALENDAR_OFF = ReasonCode("answer.calendar_off", N_("{setting}: no more calendar events."))
#: ``language``: the chosen language's own name (its ``Traits.own_name``).
LANG_SET = ReasonCode("answer.lang", N_(
    "{setting}: your messages come in {language} from now on."))
#: The SETTINGS answer: ``{setting}: {items}.``, the items ``SETTING`` joined by ``JOINED``.
SUMMARY = ReasonCode("answer.summary", N_("{setting}: {items}."))
SETTING = ReasonCode("answer.setting", N_("{setting} {value}"))
ZONE_NOW = ReasonCode("answer.zone_now", N_("{zone} ({now})"))
QUIET_GAMES = ReasonCode("answer.quiet_games", N_("game's"))
NOT_AWAY = ReasonCode("answer.not_away", N_("no"))
AWAY_UNTIL = ReasonCode("answer.away_until", N_("until {until}"))

# ------------------------------------------------------------------ notices to a table

AWAY_NOTICE = ReasonCode("notice.away", N_(
    "{name} is away until {until}: their deadlines wait until {end}."))
AWAY_NOTICE_CAPPED = ReasonCode("notice.away_capped", N_(
    "{name} is away until {until}: their deadlines wait until {end} (the most this game "
    "allows: {span})."))
AWAY_NOTICE_USED_UP = ReasonCode("notice.away_used_up", N_(
    "{name} is away until {until}; their away allowance is used up, so their deadlines run as "
    "usual."))
BACK_NOTICE = ReasonCode("notice.back", N_("{name} is back; their deadlines run again."))
DIGEST_NOTICE = ReasonCode("notice.digest", N_(
    "Everything that happened in {game} since your last message"))
TAKEN_OVER = ReasonCode("notice.taken_over", N_(
    "{name} takes over your seat in {game}. Thank you for playing."))
LEFT_OUT = ReasonCode("notice.left_out", N_(
    "{game} has started without you, as you had not joined. The players: {names}."))


def joined(items: Sequence[str]) -> str:
    """``items`` (reasons or words) said one after the other, "; " between them."""
    first, *rest = items
    return first if not rest else JOINED(first=first, rest=joined(rest))


def moment(at: datetime, zone: str) -> str:
    """A moment as a parameter (``..._at``): ISO 8601 in UTC, then the reader's zone."""
    return f"{at.astimezone(UTC).isoformat()} {zone}"


def seconds(length: timedelta) -> int:
    """A length as a parameter (``..._seconds``)."""
    return int(length.total_seconds())

#: More time given: ``until`` the new deadline (``until_at`` the moment), ``utc`` it in UTC
#: when the reader's zone is another (" (...)"), ``what`` one of the ``AWAITED_*`` reasons.
MORE_HOUR = ReasonCode("notice.more_hour", N_(
    "You have 1 more hour: {what} is now due {until}{utc}."))
MORE_HOURS = ReasonCode("notice.more_hours", N_(
    "You have {n} more hours: {what} is now due {until}{utc}."))
MORE_TIME = ReasonCode("notice.more_time", N_(
    "You have {span} more: {what} is now due {until}{utc}."))
AWAITED_TURN = ReasonCode("notice.awaited_turn", N_("your turn"))
AWAITED_VOTE = ReasonCode("notice.awaited_vote", N_("your vote"))
AWAITED_INVITATION = ReasonCode("notice.awaited_invitation",
                                N_("your answer to the invitation (JOIN or DECLINE)"))
AWAITED_DECISION = ReasonCode("notice.awaited_decision", N_("your decision"))

# ------------------------------------------------------------------ how a line was read
# (the note of an understood line; several are joined by ``JOINED``)

READ_AS = ReasonCode("note.read_as", N_("read '{word}' as {cmd}"))
READ_AS_NAME = ReasonCode("note.read_as_name", N_("read '{word}' as {name}"))
READ_AS_POSITION = ReasonCode("note.read_as_position", N_("read '{word}' as position {n}"))
OPTION = ReasonCode("note.option", N_("option {n}"))
INSTEAD_OF = ReasonCode("note.instead_of", N_("instead of {cmd}"))

# ------------------------------------------------------------------ a game that cannot play
# (``pbm.games``: ``Result.why``)

NO_SEAT_IN = ReasonCode("game.no_seat", N_("no seat {n} in {game}"))
GAME_PAUSED = ReasonCode("game.paused", N_("{game} is paused ({why}); nothing was changed"))
GAME_ENDED = ReasonCode("game.ended", N_("{game} is over; nothing was changed"))
GAME_STOPPED = ReasonCode("game.stopped", N_("{game} was stopped; nothing was changed"))
GAME_NOT_STARTED = ReasonCode("game.not_started",
                              N_("{game} has not started yet; nothing was changed"))
NOT_LISTENING = ReasonCode("game.not_listening", N_("{game} is {status}: nobody is listening"))
ALREADY_JOINED = ReasonCode("game.already_joined",
                            N_("{game} has already joined; nothing to answer"))
ALREADY_STARTED = ReasonCode("game.already_started",
                             N_("{game} has already started; nothing to answer"))
SAY_NEEDS_TEXT = ReasonCode("game.say_needs_text", N_("{cmd} needs some text after it"))


def mentions(reason: str | None, code: ReasonCode) -> bool:
    """True when ``reason`` is, or holds as a parameter, a reason of ``code``."""
    if isinstance(reason, Reason):
        return reason.code == code.code or any(mentions(v, code) for v in reason.params.values()
                                               if isinstance(v, str))
    return False
