"""The table of what each engine event says: :data:`LINES` and the words its sentences
are filled with, as catalogue message ids (``pbm.render.event_lines`` chooses and fills).

A key is an event kind and its variant (``pawn.marooned/again/cause/you``: marooned on
Tortuga again, with a cause, the reader being the one marooned). A new event kind or a new
way to tell one is a row here and its translations in each catalogue.
"""

from __future__ import annotations

from collections.abc import Callable

from pbm.i18n.translate import N_, pgettext

#: (kind or kind/variant) -> the sentence's message id. ``/you``: the reader is the subject.
LINES: dict[str, str] = {
    "turn.started": N_("It is {who}'s turn."),
    "turn.started/you": N_("It is your turn."),
    "turn.action": N_("{who} takes action {n} of {of}."),
    "turn.action/you": N_("You take action {n} of {of}."),
    "treasure.placed": N_("{who} placed the {ship}'s starting treasure in its {hold} hold."),
    "treasure.placed/you": N_("You placed the {ship}'s starting treasure in its {hold} hold."),
    "treasure.declined": N_("{who} took no treasure."),
    "treasure.declined/you": N_("You took no treasure."),
    "treasure.moved/map": N_("{who} followed a Treasure Map: 1 treasure from the Spanish "
                             "Galleon into {to}."),
    "treasure.moved/map/you": N_("You followed a Treasure Map: 1 treasure from the Spanish "
                                 "Galleon into {to}."),
    "treasure.moved/take": N_("{who} took 1 treasure from {source} into {to}."),
    "treasure.moved/take/you": N_("You took 1 treasure from {source} into {to}."),
    "treasure.moved/shift": N_("Cabin Boy {player} moved 1 treasure on the {ship} into the "
                               "{hold} hold."),
    "treasure.moved/shift/you": N_("You moved 1 treasure on the {ship} into the {hold} hold."),
    "treasure.moved": N_("1 treasure moved from {source} to {to}."),
    "treasure.tortuga": N_("Tortuga's treasure now lies {british} British, {french} French."),
    "treasure.stormy/ship": N_("Stormy Seas: {amount} treasure from the {ship} returned to "
                               "the Galleon."),
    "treasure.stormy": N_("Stormy Seas: Tortuga's treasure returned to 1 British and 1 "
                          "French."),
    "card.no_effect/EIGHT_BELLS": N_("Eight Bells has no effect: nobody to reorder."),
    "card.no_effect/STORMY_SEAS": N_("Stormy Seas has no effect on a rowboat."),
    "card.no_effect": N_("The Event card had no effect."),
    "card.discarded": N_("{who} let the Letter of Marque go: nobody was on Tortuga or in a "
                         "rowboat, so it had no effect."),
    "card.discarded/you": N_("You let the Letter of Marque go: nobody was on Tortuga or in a "
                             "rowboat, so it had no effect."),
    "card.kept/LETTER_OF_MARQUE": N_("{who} saved the Letter of Marque for later."),
    "card.kept/LETTER_OF_MARQUE/you": N_("You saved the Letter of Marque for later."),
    "card.kept/ALBATROSS": N_("{who} must keep the Albatross."),
    "card.kept/ALBATROSS/you": N_("You must keep the Albatross."),
    "card.kept": N_("{who} now owns {card}."),
    "card.kept/you": N_("You now own {card}."),
    "card.used/FOUNTAIN_OF_YOUTH": N_("{who} drank from the Fountain of Youth and was not "
                                      "marooned."),
    "card.used/FOUNTAIN_OF_YOUTH/you": N_("You drank from the Fountain of Youth and were not "
                                          "marooned."),
    "card.used/LETTER_OF_MARQUE": N_("{who} used a Letter of Marque on {target} for the "
                                     "{ship}."),
    "card.used/LETTER_OF_MARQUE/you": N_("You used a Letter of Marque on {target} for the "
                                         "{ship}."),
    "card.used/LETTER_OF_MARQUE/yourself": N_("You used a Letter of Marque on yourself for "
                                              "the {ship}."),
    "card.used/PISTOL": N_("{who} shot {target} with the Pistol."),
    "card.used/PISTOL/you": N_("You shot {target} with the Pistol."),
    "card.used/ATLANTIS": N_("{who} sailed through Atlantis."),
    "card.used/ATLANTIS/you": N_("You sailed through Atlantis."),
    "card.used": N_("{who} used {card}."),
    "card.used/you": N_("You used {card}."),
    "card.given/kept": N_("{who} kept the {card}."),
    "card.given/kept/you": N_("You kept the {card}."),
    "card.given": N_("{giver} gave the {card} to {target}."),
    "card.given/to_you": N_("{giver} gave you the {card}."),
    "card.given/you": N_("You gave the {card} to {target}."),
    "event.viewed/private": N_("You looked: {cards}."),
    "event.viewed": N_("{who} looked at Event cards."),
    "event.viewed/you": N_("You looked at Event cards."),
    "event.revealed": N_("{who} revealed {card} (card {n})."),
    "event.revealed/you": N_("You revealed {card} (card {n})."),
    "event.forced": N_("{who} forced {target} to choose between Event cards {a} and {b}."),
    "event.forced/you": N_("You forced {target} to choose between Event cards {a} and {b}."),
    "event.forced/to_you": N_("{who} forced you to choose between Event cards {a} and {b}."),
    "event.refilled": N_("A new face-down Event card was laid at {n}."),
    "event.row_reshuffled": N_("The Event deck is empty: the row was shuffled and laid out "
                               "again; revealed cards will no longer be replaced."),
    "event.row_dealt": N_("A new Event row of {cards} cards was dealt; {deck} remain in the "
                          "deck."),
    "event.reshuffled": N_("Sudden death goes on: the discard pile was shuffled into a new "
                           "Event deck."),
    "event.none_left": N_("No Event cards are left to deal."),
    "game.sudden_death": N_("The Spanish Armada arrived with the teams tied at {british}: "
                            "sudden death! The first team to take the lead wins."),
    "game.over": N_("The game is over: the {team} win ({reason}) with {players}. British "
                    "{british}, French {french}."),
    "pawn.moved/LETTER_OF_MARQUE": N_("{who} was moved from {source} to {to} by a Letter of "
                                      "Marque."),
    "pawn.moved/LETTER_OF_MARQUE/you": N_("You were moved from {source} to {to} by a Letter "
                                          "of Marque."),
    "pawn.moved": N_("{who} moved from {source} to {to}."),
    "pawn.moved/you": N_("You moved from {source} to {to}."),
    "pawn.marooned/again": N_("{who} was marooned on Tortuga again."),
    "pawn.marooned/again/you": N_("You were marooned on Tortuga again."),
    "pawn.marooned/again/cause": N_("{who} was marooned on Tortuga again {cause}."),
    "pawn.marooned/again/cause/you": N_("You were marooned on Tortuga again {cause}."),
    "pawn.marooned": N_("{who} was marooned from {source} to Tortuga."),
    "pawn.marooned/you": N_("You were marooned from {source} to Tortuga."),
    "pawn.marooned/cause": N_("{who} was marooned from {source} to Tortuga {cause}."),
    "pawn.marooned/cause/you": N_("You were marooned from {source} to Tortuga {cause}."),
    "pawn.reordered": N_("Eight Bells: the line on {where} is now {order}."),
    "albatross.struck": N_("Two Albatrosses aboard the {ship}: everyone on it is marooned."),
    "fountain.window": N_("{who} is about to be marooned and may drink from the Fountain of "
                          "Youth."),
    "fountain.window/you": N_("You are about to be marooned and may drink from the Fountain "
                              "of Youth."),
    "captain.maroons": N_("Captain {player} marooned {target_player}."),
    "vote_card.lost/private": N_("You lost the Vote card {card}."),
    "vote_card.lost/told": N_("{who} lost a Vote card."),
    "vote_card.lost/told/you": N_("You lost a Vote card."),
    "vote_card.lost/told/none": N_("{who} had no Vote card to lose."),
    "vote_card.lost/told/none/you": N_("You had no Vote card to lose."),
    "vote_card.lost": N_("{who} was marooned on Tortuga again and lost a Vote card."),
    "vote_card.lost/you": N_("You were marooned on Tortuga again and lost a Vote card."),
    "vote_card.lost/none": N_("{who} was marooned on Tortuga again but has no Vote card to "
                              "lose."),
    "vote_card.lost/none/you": N_("You were marooned on Tortuga again but had no Vote card "
                                  "to lose."),
    "vote_card.drawn/private": N_("You drew {card}."),
    "vote_card.drawn": N_("{who} drew an extra Vote card."),
    "vote_card.drawn/you": N_("You drew an extra Vote card."),
    "vote.called": N_("{who} called {vote}; voting: {voters}."),
    "vote.called/you": N_("You called {vote}; voting: {voters}."),
    "vote.cast/private": N_("You played {cards}."),
    "vote.cast": N_("{who} has voted."),
    "vote.changed": N_("You now play {cards} (instead of {old})."),
    "el_dorado.used": N_("{who} used El Dorado to play two Vote cards."),
    "el_dorado.used/you": N_("You used El Dorado to play two Vote cards."),
    "vote.result": N_("The {vote} vote shows {symbols}: {outcome}."),
    "vote.result/you": N_("Your {vote} vote shows {symbols}: {outcome}."),
    "attack.nothing": N_("The Attack succeeded but there is no treasure to take."),
    "atlantis.ordered": N_("Your Atlantis order stands: it is carried out just before the "
                           "next turn begins."),
    "atlantis.lapsed": N_("Your Atlantis order could not be carried out (you must be on a "
                          "ship and the other ship must have room); you keep the card."),
    "timeout.played": N_("{who} ran out of time: a safe default was played for them."),
    "timeout.played/you": N_("You ran out of time: a safe default was played for you."),
    "seat.away": N_("{who} is away."),
    "seat.back": N_("{who} is back."),
    "table.talk": N_("{name}: {text}"),  # SAY: who spoke and their words, as written
    "table.talk/unknown": N_("A player spoke to the table."),
    "other": N_("Something happened in the game."),
    # a card and what it did, one sentence (``pbm.render.news.caused_pairs``)
    "joined/LETTER_OF_MARQUE": N_("{who} used a Letter of Marque to move {target} from "
                                  "{source} to {to}."),
    "joined/LETTER_OF_MARQUE/yourself": N_("You used a Letter of Marque to move yourself "
                                           "from {source} to {to}."),
    "joined/PISTOL": N_("{who} shot {target} with the Pistol: {target} was marooned from "
                        "{source} to Tortuga."),
    "joined/PISTOL/to_you": N_("{who} shot you with the Pistol: you were marooned from "
                               "{source} to Tortuga."),
    "joined/PISTOL/again": N_("{who} shot {target} with the Pistol: {target} was marooned "
                              "on Tortuga again."),
    "joined/PISTOL/again/to_you": N_("{who} shot you with the Pistol: you were marooned on "
                                     "Tortuga again."),
}

#: The Event cards seen privately, one by one (``event.viewed/private``'s ``{cards}``).
CARD_SEEN = N_("card {n} is {name}")

#: Why a pawn was marooned (``data["cause"]``): ``{cause}`` of ``pawn.marooned/.../cause``.
CAUSES = {"BLACK_SPOT": N_("by the Black Spot"), "PISTOL": N_("by a Pistol shot"),
          "MAROON": N_("on the Captain's order"), "MUTINY": N_("by the Mutiny"),
          "ALBATROSS": N_("by two Albatrosses aboard one ship")}

#: A vote called, as ``vote.called``'s ``{vote}``.
VOTES_CALLED = {"ATTACK": N_("an Attack"), "MUTINY": N_("a Mutiny"), "BRAWL": N_("a Brawl")}

#: A vote's outcome (``vote.result``'s ``{outcome}``), said when the result is told.
OUTCOMES: dict[tuple[str, str], Callable[[], str]] = {
    ("ATTACK", "SUCCESS"): lambda: pgettext("vote outcome", "the Attack succeeds"),
    ("ATTACK", "FAILURE"): lambda: pgettext("vote outcome", "the Attack fails"),
    ("BRAWL", "BRITISH"): lambda: pgettext("vote outcome", "the British flags win"),
    ("BRAWL", "FRENCH"): lambda: pgettext("vote outcome", "the French flags win"),
    ("BRAWL", "TIE"): lambda: pgettext("vote outcome", "a tie"),
    ("MUTINY", "SUCCESS"): lambda: pgettext("vote outcome", "the Mutiny succeeds"),
    ("MUTINY", "FAILURE"): lambda: pgettext("vote outcome", "the Mutiny fails"),
}

#: The symbols a vote shows (``vote.result``'s ``{symbols}``).
SYMBOLS_SHOWN = {"CANNON": N_("cannon"), "TORCH": N_("torch"), "WATER": N_("water"),
                 "SKULL": N_("skull"), "HELM": N_("helm"), "BRITISH": N_("british"),
                 "FRENCH": N_("french")}

#: Why the game ended (``game.over``'s ``{reason}``; ``engine.board.end_game``).
END_REASONS = {"sudden death: took the lead": N_("sudden death: took the lead"),
               "the Spanish Armada arrived": N_("the Spanish Armada arrived"),
               "the Spanish Armada arrived with the teams tied": N_(
                   "the Spanish Armada arrived with the teams tied")}

#: How a language joins a list: Event card positions, Vote cards, voters, a line of pawns.
AND = N_(" and ")
LIST = N_("{items}, {item}")
LINE = N_("{line}, {name}")
#: Event cards seen privately, joined ("card 1 is Pistol; card 3 is Albatross").
LIST_SEEN = N_("{items}; {item}")

