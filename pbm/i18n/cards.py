"""Event card effects in the reader's language (issue 24).

The engine's card table (``engine.cards.EVENT_CARD_TABLE``) says each card's effect in
English (its ``summary``); that sentence is the message id, so the catalogue
(``pbm/locale/<lang>/LC_MESSAGES/messages.po``) holds every other language's and a third
language is a catalogue, not code. The ids are written out here so that Babel extracts them;
``tests/pbm/test_i18n_cards.py`` fails when the engine's table and this one differ.
"""

from __future__ import annotations

from pbm.i18n.translate import N_

#: EventTitle value -> the engine's summary of its effect (a message id).
CARD_EFFECTS: dict[str, str] = {
    "SPANISH_ARMADA": N_("The game ends at once; the team with more treasure wins."),
    "LETTER_OF_MARQUE": N_("Move any player from Tortuga or a rowboat to the back of either "
                           "ship, or save this card to do so later as a whole action."),
    "PISTOL": N_("Shoot another player: they are marooned."),
    "ALBATROSS": N_("Keep it. Two Albatrosses aboard one ship maroon everyone on it."),
    "BLACK_SPOT": N_("The revealer is marooned."),
    "TREASURE_MAP": N_("Give it to any player. Provisional: its holder may later, as an "
                       "action, move 1 treasure from the Spanish Galleon into a hold of their "
                       "ship."),
    "STORMY_SEAS": N_("On a ship: its treasure returns to the Galleon. On Tortuga: Tortuga's "
                      "treasure returns to 1 British and 1 French."),
    "EIGHT_BELLS": N_("The revealer's line (ship or Tortuga) is redrawn in random order."),
    "ATLANTIS": N_("Once, just before a turn, move from your ship to the back of the other."),
    "FOUNTAIN_OF_YOUTH": N_("Once, refuse to be marooned by a Black Spot, a Pistol, a Captain "
                            "or a Mutiny."),
    "EL_DORADO": N_("Draw 1 extra Vote card now; once, play 2 Vote cards in one vote."),
    "CABIN_FEVER": N_("Text not verified; not playable."),
    "FACADE": N_("Text not verified; not playable."),
    "CROWS_NEST": N_("Text not verified; not playable."),
}

#: The effect as a player reads it where the engine's summary says the rule's status too
#: ("Provisional: ..."): the status belongs in the docs, not in a message.
PLAYER_EFFECTS: dict[str, str] = {
    "TREASURE_MAP": N_("Give it to any player. Its holder may later, as an action, move 1 "
                       "treasure from the Spanish Galleon into a hold of their ship."),
}
