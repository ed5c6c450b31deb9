"""Why a line was not understood, or what a change of mind did, as data
(:class:`engine.reasons.Reason`): the reply reader's codes and their English templates.

Each template is the catalogue's message id (marked ``N_`` for Babel); a reader of any
language gets the reason from its code (``pbm.render.reasons.say``). Parameters are
converted for the reader by their name there: ``cmd``, ``stop``, ``start`` (commands),
``kind`` and ``what`` (the parser's words), ``reason`` (a nested reason); any other value is
said as it is (numbers, names, the player's own words).
"""

from __future__ import annotations

from engine.reasons import ReasonCode
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

FINAL_ACTION = ReasonCode("reply.final_action", N_(
    "your {cmd} was already played and is final (a turn action cannot be changed once it is "
    "applied); nothing was changed"))
