# ruff: noqa: E501  (the replies are data, one per line)
"""Writes the "never a guess" replies into tests/fixtures/replies/: SMS bodies
and emails from English-language mail clients quoting the prompt they answer, each with what
a careful game master applies (the corpus's manifest.json format).

    ./dev corpus          (korean_corpus.py, then this script)

The replies are our own words: two answers to one decision (asked), corrections as players
write them, questions and refusals around a command word, questions about the game (HELP),
SMS shorthand and plain-words vote changes. Files named ``*_guess_*`` are this tool's: it
rewrites them and leaves every other reply of the corpus as it is. Korean and mixed replies
of the same kinds are in tools/korean_corpus.py.
"""
import json
import re
import sys
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from korean_corpus import quoted_prompt

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "replies"
ADDR = "Tortuga by Mail <play+Zq7tK2mB9x@tortuga.example>"
CLIENTS = ["gmail", "iphone", "outlook", "thunderbird"]
MANIFEST: dict[str, dict[str, Any]] = {}
ROTATION: list[str] = []
ASK = {"ambiguous": True}


def body_of(client: str, new: str, scenario: str) -> str:
    """The email as ``client`` lays out a reply: new text, attribution, quoted prompt."""
    q = quoted_prompt(scenario, "en")
    gt = "\n".join("> " + ln if ln else ">" for ln in q)
    if client == "gmail":
        return f"{new}\n\nOn Tue, 1 Dec 2026 at 15:04, {ADDR} wrote:\n\n{gt}\n"
    if client == "iphone":
        return f"{new}\n\nSent from my iPhone\n\n> On 1 Dec 2026, at 15:04, {ADDR} wrote:\n>\n{gt}\n"
    if client == "outlook":
        return (f"{new}\n\n________________________________\nFrom: {ADDR}\nSent: Tuesday, "
                f"December 1, 2026 3:04 PM\nTo: Player <player@example.org>\nSubject: "
                f"[Tortuga: Nassau] Tortuga 1667 by mail\n\n" + "\n".join(q) + "\n")
    return f"{new}\n\nOn 01/12/2026 15:04, Tortuga by Mail wrote:\n{gt}\n"


def case(kind: str, scenario: str, text: str, commands: Sequence[str] = (), *,
         meta: Sequence[tuple[str, str]] = (), nu: Sequence[dict[str, Any]] = (),
         retracted: Sequence[str] = (), candidates: Sequence[str] | None = None,
         client: str | None = None) -> None:
    """One reply: its file (an SMS, or an email from ``client``) and its expectation."""
    slug = re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")
    prefix = "sms" if client is None else client
    n = 1
    while any(f"{prefix}_guess_{slug}_{n}.{ext}" in MANIFEST for ext in ("txt", "eml")):
        n += 1
    if client is None:
        name = f"sms_guess_{slug}_{n}.txt"
        (OUT / name).write_text(text, encoding="utf-8")
    else:
        name = f"{client}_guess_{slug}_{n}.eml"
        msg = EmailMessage()
        msg["From"] = "Player <player@example.org>"
        msg["To"] = ADDR
        msg["Subject"] = "Re: [Tortuga: Nassau] Tortuga 1667 by mail"
        msg["Date"] = "Tue, 01 Dec 2026 15:20:00 +0000"
        msg["Message-ID"] = f"<{name}@client.example.org>"
        msg["In-Reply-To"] = "<tortuga.abc@tortuga.example>"
        msg.set_content(body_of(client, text, scenario), charset="utf-8",
                        cte="quoted-printable")
        (OUT / name).write_bytes(bytes(msg))
    spec: dict[str, Any] = {"scenario": scenario, "commands": list(commands)}
    if meta:
        spec["meta"] = [list(m) for m in meta]
    if nu:
        spec["not_understood"] = list(nu)
    if retracted:
        spec["retracted"] = list(retracted)
    if candidates is not None:
        spec["candidates"] = list(candidates)
    MANIFEST[name] = spec


def mail(kind: str, scenario: str, text: str, commands: Sequence[str] = (), **kw: Any) -> None:
    """An email reply, from the next client in turn."""
    client = CLIENTS[len(ROTATION) % len(CLIENTS)]
    ROTATION.append(client)
    case(kind, scenario, text, commands, client=client, **kw)


def cases() -> None:
    """Every reply of this part of the corpus."""
    # ---- two answers to one decision, nothing known between them: asked, nothing applied
    case("two_answers", "turn", "REVEAL 1\nREVEAL 5", nu=[ASK], candidates=["REVEAL 1", "REVEAL 5"])
    case("two_answers", "turn", "reveal 2\nreveal 4 pls", nu=[ASK], candidates=["REVEAL 2", "REVEAL 4"])
    case("two_answers", "vote", "VOTE 2, VOTE 3", nu=[ASK], candidates=["VOTE 2", "VOTE 3"])
    case("two_answers", "vote", "2\nVOTE 3", nu=[ASK], candidates=["VOTE 2", "VOTE 3"])
    case("two_answers", "vote", "vote 1 vote 3", nu=[ASK])
    case("two_answers", "give", "GIVE Ann\nGIVE Cleo", nu=[ASK], candidates=["GIVE Ann", "GIVE Cleo"])
    case("two_answers", "shoot", "shoot Cleo\nshoot Dmitri", nu=[ASK])
    case("two_answers", "choose", "2\n5", nu=[ASK], candidates=["CHOOSE 2", "CHOOSE 5"])
    case("two_answers", "place", "PLACE BRITISH – blimey, PLACE FRENCH", nu=[ASK])
    case("two_answers", "take", "take to french\ntake to british", nu=[ASK])
    case("two_answers", "voted", "VOTE 1\nVOTE 3", nu=[ASK])
    case("two_answers", "turn", "REVEAL 1 hmmmm REVEAL 5", nu=[ASK])
    case("two_answers", "turn", "REVEAL 2\nerm REVEAL 5 bitte", nu=[ASK])
    case("two_answers", "governor", "row fd\nrow jr", nu=[ASK])
    case("two_answers", "turn", "REVEAL 1\nor should I reveal 3?", nu=[ASK])
    case("two_answers", "turn", "maroon Cleo\nmaroon Emile", nu=[ASK])
    case("two_answers", "fountain", "FOUNTAIN\nACCEPT", nu=[ASK])
    case("two_answers", "marque", "SAVE\nMARQUE Dmitri FD", nu=[ASK])
    case("same_twice", "vote", "VOTE 2\nVOTE 2", ["VOTE 2"])
    case("same_twice", "turn", "REVEAL 3\nreveal 3 please", ["REVEAL 3"])
    case("same_twice", "choose", "5\nCHOOSE 5", ["CHOOSE 5"])
    case("two_actions", "two_player", "REVEAL 3\nATTACK", ["REVEAL 3", "ATTACK"])
    mail("two_answers", "turn", "Hi all,\n\nREVEAL 1\n\nREVEAL 4\n\nAnn", nu=[ASK])
    mail("two_answers", "vote", "VOTE 1\nVOTE 2\n\nCleo", nu=[ASK])
    mail("two_answers", "give", "GIVE Bartholomew\nGIVE Dmitri\n\nthanks", nu=[ASK])
    mail("two_answers", "turn", "ATTACK\n\nREVEAL 2", nu=[ASK])
    mail("same_twice", "vote", "VOTE 3\n\nVOTE 3\n\nCleo", ["VOTE 3"])
    # ---- corrections as players write them
    case("marker_star", "turn", "REVEAL 2\n*5", ["REVEAL 5"])
    case("marker_star", "turn", "reveal 2\n*reveal 4", ["REVEAL 4"])
    case("marker_star", "vote", "VOTE 1\n*3", ["VOTE 3"])
    case("marker_edit", "vote", "VOTE 1\nedit: VOTE 3", ["VOTE 3"])
    case("marker_edit", "vote", "VOTE 1\nEDIT - 3", ["VOTE 3"])
    case("marker_edit", "turn", "REVEAL 2\nEdit: REVEAL 5", ["REVEAL 5"])
    case("ignore_above", "turn", "REVEAL 2\nREVEAL 5 (ignore the line above)", ["REVEAL 5"])
    case("ignore_above", "turn", "REVEAL 2\nREVEAL 5 (ignore the first line)", ["REVEAL 5"])
    case("ignore_above", "give", "GIVE Ann\nGIVE Cleo - ignore the previous line", ["GIVE 3"])
    case("strike", "turn", "REVEAL ~~2~~ 5", ["REVEAL 5"])
    case("strike", "turn", "~~REVEAL 2~~ REVEAL 5", ["REVEAL 5"])
    case("strike", "vote", "~~VOTE 1~~\nVOTE 2", ["VOTE 2"])
    case("x_not_y", "turn", "REVEAL 5 not 2", ["REVEAL 5"])
    case("x_not_y", "give", "Give Cleo the map, not Ann", ["GIVE 3"])
    case("x_not_y", "shoot", "shoot Dmitri not Cleo", ["SHOOT 4"])
    case("not_y_x", "turn", "not 2, REVEAL 5", ["REVEAL 5"])
    case("x_no_y", "turn", "reveal 2 no 5", ["REVEAL 5"])
    case("x_instead_of_y", "turn", "REVEAL 4 instead of 2", ["REVEAL 4"])
    case("x_instead_of_y", "give", "give Cleo rather than Ann", ["GIVE 3"])
    case("oops_words", "turn", "reveal 2 ups 4", ["REVEAL 4"])
    case("oops_words", "vote", "vote 1 hoppla 3", ["VOTE 3"])
    case("unknown_word", "turn", "REVEAL 2 perdona 5", nu=[ASK], candidates=["REVEAL 2", "REVEAL 5"])
    case("unknown_word", "turn", "REVEAL 2\nprzepraszam, 5", nu=[ASK])
    case("unknown_word", "give", "GIVE Ann pfff Cleo", nu=[ASK])
    case("unsure_aside", "vote", "VOTE 2 (or 3?)", nu=[ASK], candidates=["VOTE 2", "VOTE 3"])
    case("unsure_aside", "turn", "REVEAL 4 (maybe 5)", nu=[ASK])
    case("comment_aside", "turn", "REVEAL 3 (the Pistol, I hope)", ["REVEAL 3"])
    case("x_no_y", "vote", "vote 2 no 3", ["VOTE 3"])
    case("sorry_name", "turn", "REVEAL 2 — sorry, Dave", ["REVEAL 2"])
    case("german", "vote", "VOTE 2 – nein, VOTE 1", ["VOTE 1"])
    case("german", "turn", "REVEAL 1, ich meinte REVEAL 4", ["REVEAL 4"])
    case("german", "turn", "REVEAL 1 oder besser REVEAL 3", ["REVEAL 3"])
    case("spanish", "turn", "REVEAL 2, perdón, quise decir 5", ["REVEAL 5"])
    case("spanish", "vote", "VOTE 1, o mejor VOTE 2", ["VOTE 2"])
    case("italian", "give", "GIVE Ann, anzi no, GIVE Cleo", ["GIVE 3"])
    case("italian", "vote", "VOTE 3 scusa volevo dire VOTE 1", ["VOTE 1"])
    case("french", "vote", "VOTE 1, non, VOTE 3", ["VOTE 3"])
    case("french", "turn", "REVEAL 3 plutôt REVEAL 4", ["REVEAL 4"])
    case("french", "turn", "REVEAL 1, pardon, je voulais dire REVEAL 2", ["REVEAL 2"])
    case("portuguese", "vote", "VOTE 1 aliás VOTE 3", ["VOTE 3"])
    case("portuguese", "vote", "VOTE 2 desculpa, VOTE 3", ["VOTE 3"])
    case("portuguese", "turn", "REVEAL 4, quis dizer REVEAL 1", ["REVEAL 1"])
    case("dutch", "vote", "VOTE 1 ... ik bedoel VOTE 3", ["VOTE 3"])
    case("dutch", "turn", "REVEAL 2 nee, REVEAL 3", ["REVEAL 3"])
    case("trap_no_i_want", "turn", "No, I want REVEAL 5", ["REVEAL 5"])
    case("trap_no_regrets", "turn", "REVEAL 2. No regrets!", ["REVEAL 2"])
    case("trap_actually_praise", "turn", "REVEAL 2\nActually, great move last turn, Ann", ["REVEAL 2"])
    mail("marker_star", "vote", "VOTE 2\n*1\n\nCleo", ["VOTE 1"])
    mail("ignore_above", "turn", "REVEAL 3\nREVEAL 1 (please ignore the first line)\n\nAnn", ["REVEAL 1"])
    mail("spanish", "turn", "REVEAL 2, perdón, quise decir 5\n\nSaludos", ["REVEAL 5"])
    mail("italian", "vote", "VOTE 2, anzi VOTE 1\n\nCiao", ["VOTE 1"])
    mail("german", "give", "GIVE Dmitri – nein, GIVE Cleo\n\nGruß", ["GIVE 3"])
    mail("trap_actually_praise", "vote", "VOTE 3\n\nActually, nice attack, Ann!", ["VOTE 3"])
    # ---- questions and refusals around a command word: nothing ordered
    case("rhetorical", "first_mate", "Mutiny? With Ann aboard? Never.", nu=[{}])
    case("rhetorical", "turn", "Attack? Never.", nu=[{}])
    case("rhetorical", "turn", "should I reveal 3?", nu=[{}])
    case("rhetorical", "turn", "reveal 3? or 4", nu=[{}])
    case("rhetorical", "governor", "Brawl? Not today.", nu=[{}])
    case("rhetorical", "turn", "Attack, never!", nu=[{}])
    case("emphatic", "turn", "Attack! never again will I trust Cleo", ["ATTACK"])
    mail("rhetorical", "first_mate", "Mutiny? With Ann aboard? Never.\n\nCleo", nu=[{}])
    mail("rhetorical", "turn", "Should I maroon Cleo?\n\nAnn", nu=[{}])
    # ---- questions about the game: HELP on that topic
    case("question_help", "turn", "how does the Black Spot work", meta=[("HELP", "BLACK SPOT")])
    case("question_help", "turn", "what's a mutiny", meta=[("HELP", "MUTINY")])
    case("question_help", "turn", "what does the letter of marque do?", meta=[("HELP", "LETTER OF MARQUE")])
    case("question_help", "turn", "how do I change my time zone", meta=[("HELP", "ZONE")])
    case("question_help", "turn", "What is a Crow's Nest?", meta=[("HELP", "CROW'S NEST")])
    case("question_help", "waiting", "explain the fountain of youth", meta=[("HELP", "FOUNTAIN OF YOUTH")])
    case("question_help", "vote", "how does voting work?", meta=[("HELP", "VOTE")])
    case("question_help", "waiting", "how does the albatross work?", meta=[("HELP", "ALBATROSS")])
    case("question_help", "waiting", "what does el dorado do", meta=[("HELP", "EL DORADO")])
    case("question_help", "waiting", "how do I go away for a week?", meta=[("HELP", "AWAY")])
    mail("question_help", "turn", "Hi,\n\nhow does the Treasure Map work?\n\nthanks", meta=[("HELP", "TREASURE MAP")])
    mail("question_help", "waiting", "What is a brawl exactly?\n\nDmitri", meta=[("HELP", "BRAWL")])
    mail("question_help", "turn", "What's cabin fever?", meta=[("HELP", "CABIN FEVER")])
    # ---- SMS shorthand: the one legal command it fits
    case("shorthand", "turn", "r2", ["REVEAL 2"])
    case("shorthand", "turn", "rev 2", ["REVEAL 2"])
    case("shorthand", "turn", "r 5", ["REVEAL 5"])
    case("shorthand", "vote", "v1", ["VOTE 1"])
    case("shorthand", "vote_el_dorado", "v 1 3", ["VOTE 1 3"])
    case("shorthand", "turn", "v 1 3", ["VIEW 1 3"])
    case("shorthand", "turn", "m cleo", ["MAROON 3"])
    case("shorthand", "choose", "c2", ["CHOOSE 2"])
    case("shorthand", "turn", "atk", ["ATTACK"])
    case("shorthand", "take", "tk br", ["TAKE TO BRITISH"])
    case("shorthand", "take", "tk fr", ["TAKE TO FRENCH"])
    case("shorthand", "marque", "m dmitri fd", ["MARQUE 4 FD"])
    case("shorthand", "vote", "ill go w 3", ["VOTE 3"])
    case("shorthand", "shoot", "sht cleo", ["SHOOT 3"])
    case("shorthand_none", "choose", "c4", nu=[{}])
    # ---- vote changes in plain words
    case("vote_change", "voted", "switch to card 3", ["VOTE 3"])
    case("vote_change", "voted", "change of plan: card 2 instead of the Water", ["VOTE 2"])
    case("vote_change", "voted", "can I still change? if so 2 please", ["VOTE 2"])
    case("vote_change", "voted", "change it to 1", ["VOTE 1"])
    case("vote_change", "vote", "I'll go with 2", ["VOTE 2"])
    mail("vote_change", "voted", "Change of plan: card 1 instead\n\nCleo", ["VOTE 1"])
    # ---- the map kept
    case("keep_map", "give", "I'll keep it", ["GIVE 1"])
    case("keep_map", "give", "keep the map", ["GIVE 1"])


def main() -> None:
    """Rewrite this tool's replies of the corpus and their manifest entries."""
    path = OUT / "manifest.json"
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for name in [n for n in manifest if "_guess_" in n]:
        (OUT / name).unlink(missing_ok=True)
        del manifest[name]
    cases()
    manifest.update(MANIFEST)
    path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    emails = sum(k.endswith(".eml") for k in MANIFEST)
    print(f"{len(MANIFEST)} replies: {len(MANIFEST) - emails} SMS, {emails} emails")


if __name__ == "__main__":
    main()
