"""Automatic mail recognised by its words, for clients that send no loop-guard headers.

Out-of-office rules in Outlook, Gmail's vacation responder and many webmail robots set
``Auto-Submitted`` or ``X-Autoreply``; some do not. ``automatic_phrasing`` catches those by
their subject ("Automatic reply: ...", "Abwesenheitsnotiz", "Réponse automatique", ...) and
by the stock sentences of their body ("I am out of the office until ...", "Ich bin bis ...
nicht im Büro"). A body that also holds a line the parser reads as a command is a player's
reply, not a robot's, and is left alone. Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata

from pbm.replies.parse import ParseContext, parse_lines


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


#: Subjects of automatic replies, folded (lower case, no accents), in common languages.
_SUBJECT_WORDS = (
    r"auto(?:matic|mated)?[\s_-]*(?:reply|response|answer|respon[sd]er)|autoreply|autorespond|"
    r"out\s+of\s+(?:the\s+)?office|\booo\b|vacation\s+(?:reply|response|notice)|"
    r"away\s+from\s+(?:the\s+)?office|on\s+(?:vacation|holiday|leave)|"
    r"abwesenheit(?:snotiz|smeldung|sbenachrichtigung)?|automatische\s+antwort|"
    r"nicht\s+im\s+buro|"
    r"reponse\s+automatique|absence\s+du\s+bureau|absent\s+du\s+bureau|message\s+d'absence|"
    r"respuesta\s+automatica|fuera\s+de\s+(?:la\s+)?oficina|"
    r"risposta\s+automatica|fuori\s+(?:ufficio|sede)|"
    r"afwezig(?:heid(?:sbericht|smelding)?)?|automatisch\s+antwoord|"
    r"resposta\s+automatica|ausencia|fora\s+do\s+escritorio|"
    r"automatiskt\s+svar|franvaro(?:meddelande)?|autosvar|"
    r"automatisk\s+svar|fravaer(?:smelding|sbesked)?|"
    r"automaattinen\s+vastaus|poissa(?:olo(?:viesti)?)?|lomaviesti|"
    r"odpowiedz\s+automatyczna|automatyczna\s+odpowiedz|poza\s+biurem|nieobecnosc|"
    r"automaticka\s+odpoved|mimo\s+kancelar|nepritomnost|"
    r"автоматическ(?:ий|ии)\s+ответ|автоответ|вне\s+офиса|отпуск|"
    r"автовiдповiдь|автовідповідь|автоматична\s+вiдповiдь|автоматична\s+відповідь|"
    r"otomatik\s+(?:yanit|cevap)|ofis\s+disi|"
    r"自動応答|自動返信|不在|自动回复|自動回覆|不在办公室|休假|"
    r"자동\s*(?:회신|응답)|부재|"
    r"αυτοματη\s+απαντηση|εκτος\s+γραφειου|"
    r"automatikus\s+valasz|hazon\s+kivul|szabadsag|"
    r"raspuns\s+automat|in\s+afara\s+biroului|concediu"
)
_SUBJECT_RE = re.compile(_fold(_SUBJECT_WORDS), re.IGNORECASE)

#: Stock sentences of out-of-office and robot bodies, folded.
_BODY_WORDS = (
    r"(?:i\s+am|i'm|i\s+will\s+be|i'll\s+be|im)\s+(?:currently\s+|now\s+)?(?:out\s+of\s+"
    r"(?:the\s+)?office|away|on\s+(?:vacation|holiday|leave|annual\s+leave|parental\s+leave)|"
    r"out\s+of\s+office|travel+ing|off\s+work)|"
    r"(?:this\s+is\s+an?\s+)?auto(?:matic|mated)(?:ally\s+generated)?\s+(?:reply|response|"
    r"message|e-?mail)|"
    r"(?:limited|no)\s+access\s+to\s+(?:my\s+)?e-?mail|"
    # phones' automatic answers (driving, do not disturb) and SMS responders
    r"(?:i\s+am|i'm|im)\s+(?:currently\s+)?driving|driving\s+focus|do\s+not\s+disturb|"
    r"\bauto[\s-]?(?:reply|replied|response|text|message)\b|(?:sent|replied)\s+automatically|"
    r"this\s+number\s+(?:is\s+not|isn't)\s+monitored|"
    r"(?:will|shall)\s+(?:respond|reply|get\s+back)\s+.{0,40}(?:when|once|after|upon)\s+"
    r"(?:i\s+|my\s+)?(?:return|am\s+back|get\s+back)|"
    r"thank\s+you\s+for\s+your\s+(?:e-?mail|message)[.,!]?\s+(?:i\s+am|i'm|this)|"
    r"ich\s+bin\s+(?:derzeit\s+|zurzeit\s+|momentan\s+|vom\s+.{1,30}\s+|bis\s+.{1,30}\s+)?"
    r"(?:nicht\s+im\s+buro|abwesend|im\s+urlaub|nicht\s+erreichbar|au(?:ss|ß)er\s+haus)|"
    r"automatische\s+(?:antwort|nachricht)|vielen\s+dank\s+fur\s+ihre\s+(?:e-?mail|nachricht)"
    r"[.,!]?\s+ich\s+bin|"
    r"je\s+suis\s+(?:actuellement\s+)?(?:absente?|en\s+(?:conge|vacances|deplacement))|"
    r"reponse\s+automatique|je\s+serai\s+de\s+retour|"
    r"estoy\s+(?:fuera\s+de\s+la\s+oficina|de\s+vacaciones|ausente)|respuesta\s+automatica|"
    r"sono\s+(?:fuori\s+ufficio|in\s+ferie|assente)|risposta\s+automatica|"
    r"ik\s+ben\s+(?:momenteel\s+|tot\s+en\s+met\s+.{1,30}\s+)?(?:afwezig|niet\s+aanwezig|"
    r"met\s+vakantie)|"
    r"estou\s+(?:fora\s+do\s+escritorio|de\s+ferias|ausente)|resposta\s+automatica|"
    r"jag\s+ar\s+(?:ledig|borta|pa\s+semester|franvarande)|"
    r"jeg\s+er\s+(?:pa\s+ferie|fravaerende|ikke\s+pa\s+kontoret|bortrejst)|"
    r"olen\s+(?:lomalla|poissa)|"
    r"jestem\s+(?:poza\s+biurem|na\s+urlopie|nieobecn[ya])|"
    r"jsem\s+(?:mimo\s+kancelar|na\s+dovolene|nepritomn[ya])|"
    r"(?:я\s+)?(?:нахожусь\s+|сейчас\s+)?в\s+отпуске|вне\s+офиса|автоматический\s+ответ|"
    r"(?:я\s+)?у\s+вiдпустцi|у\s+відпустці|"
    r"ofis\s+disindayim|izindeyim|"
    r"不在にしております|休暇中|我正在休假|自动回复|부재중|휴가\s*중|"
    r"ειμαι\s+εκτος\s+γραφειου|"
    r"szabadsagon\s+vagyok|hazon\s+kivul\s+vagyok|"
    r"sunt\s+in\s+concediu|sunt\s+plecat"
)
_BODY_RE = re.compile(_fold(_BODY_WORDS), re.IGNORECASE)


def subject_is_automatic(subject: str) -> bool:
    """True when the subject says the mail was written by a robot."""
    return bool(_SUBJECT_RE.search(_fold(subject or "")[:300]))


def body_is_automatic(text: str) -> bool:
    """True when the new text reads like an out-of-office notice and holds no command."""
    head = " ".join(_fold(text or "")[:2000].split())
    if not _BODY_RE.search(head):
        return False
    reading = parse_lines(text.split("\n")[:50], ParseContext())
    return not (reading.understood or any(m.name in ("JOIN", "DECLINE", "SAY", "STOP")
                                          for m in reading.meta))


def automatic_phrasing(subject: str, text: str) -> str | None:
    """Why this mail looks automatic by its words ("subject" / "body phrasing"), or None."""
    if subject_is_automatic(subject):
        return "automatic reply (subject)"
    if body_is_automatic(text):
        return "automatic reply (body phrasing)"
    return None
