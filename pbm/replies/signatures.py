"""What is never the player's command below or around it: signature delimiters, "Sent from
my phone" footers, external-sender banners, disclaimers, and contact-detail lines.
"""

from __future__ import annotations

import re

# Signatures and mobile / webmail footers: everything from here on is not a command.
FOOTER_RE = re.compile(
    r"""^(?:
        --\s*                                           # the signature delimiter "-- "
      | sent\s(?:from|via|with|using)\s.{0,60}
      | get\s(?:outlook|bluemail)\sfor\s.{0,40}
      | von\smeine[mr]?\s.{0,40}\sgesendet.{0,20}
      | gesendet\s(?:von|mit|vom|aus)\s.{0,60}
      | envoy[ée]\s(?:de|depuis|à\spartir\sde|avec|par)\s.{0,60}
      | enviado\s(?:desde|de|con|do|pelo|a\spartir)\s.{0,60}
      | inviato\s(?:da|con)\s.{0,60}
      | (?:verzonden|verstuurd)\s(?:vanaf|met|van)\s.{0,60}
      | skickat\s(?:från|med)\s.{0,60}
      | sendt\s(?:fra|med)\s.{0,60}
      | l[äa]hetetty\s.{0,60}
      | wys[łl]ano\sz\s.{0,60}
      | wys[łl]ane\sz\s.{0,60}
      | odesl[áa]no\sz\s.{0,60}
      | отправлено\s(?:с|из)\s.{0,60}
      | надіслано\sз\s.{0,60}
      | .{0,40}\sg[öo]nderildi
      | .{0,40}から送信
      | 发自我的.{0,40} | 从我的.{0,40}发送 | 從我的.{0,40}傳送 | 寄自我的.{0,40}
      | .{0,40}에서\s?보냄
      | στάλθηκε\sαπό\s.{0,60}
      | elk[üu]ldve\s(?:az?\s)?.{0,60}
      | trimis\sde\spe\s.{0,60}
      | (?:this\se-?mail\shas\sbeen\s)?(?:virus-free|checked\sby\savast).{0,80}
      | diese\se-mail\swurde\svon\s.{0,40}\sgeprüft.{0,20}
      | (?:mail\s)?(?:gesendet|sent)\s(?:mit|with)\s(?:der\s)?(?:gmx|web\.de|proton).{0,60}
    )$""",
    re.IGNORECASE | re.VERBOSE,
)


# Corporate "external sender" banners (above the reply) and confidentiality disclaimers
# (below it): the paragraph holding one is dropped, wherever it stands.
_BANNER_RE = re.compile(
    r"""(?:
        \[\s*(?:external|extern|externe|externo|esterno|ext)\s*\]
      | ^(?:caution|warning|attention|achtung|vorsicht|atenci[óo]n|attenzione|let\sop|
            varning|advarsel|huomio|uwaga|upozorn[eě]n[ií]|внимание|увага|dikkat|注意|
            προσοχ[ηή]|figyelem|aten[țt]ie|external\semail|external\ssender|extern(?:e)?\s
            (?:e-?mail|absender|nachricht))\b.{0,40}(?:external|extern|outside|
            au[ßs]erhalb|ext[ée]rieur|fuera|esterno|buiten|utanf[öo]r|udefra|ulkopuol|
            spoza|mimo|извне|ззовні|d[ıi][şs]ar[ıi]|外部|εξωτερικ|k[üu]ls[őo]|exterior)
      | originated\sfrom\soutside | from\soutside\s(?:of\s)?(?:the|your|our)\sorgani[sz]ation
      | do\snot\sclick\slinks | unless\syou\s(?:recogni[sz]e|know)\sthe\ssender
      | you\sdon'?t\soften\sget\se-?mail\sfrom | learn\swhy\sthis\sis\simportant
      | this\smessage\scame\sfrom\soutside
      | stammt\svon\seinem\sexternen | von\sau[ßs]erhalb\s(?:ihrer|der)\sorganisation
      | provient\sde\sl'ext[ée]rieur | exp[ée]diteur\sexterne
      | procede\sde\sfuera | remitente\sexterno | mittente\sesterno
      | intended\srecipient | confidential(?:ity)?\snotice | this\s(?:e-?mail|message)
        \s(?:and\sany\sattachments?\s)?(?:is|are|may\sbe)\s(?:strictly\s)?confidential
      | privileged\s(?:and|or)\sconfidential | please\sconsider\sthe\senvironment
      | disclaimer\s?: | vertrauliche\sinformationen | nicht\sder\srichtige\sadressat
      | destinataire\sde\sce\smessage | ce\smessage\set\stoutes\sles\spi[èe]ces
      | destinatario\s(?:de\seste|di\squesto) | informaci[óo]n\sconfidencial
      | scanned\s(?:for\sviruses|by) | protected\sby\s\w+\semail\ssecurity
    )""",
    re.IGNORECASE | re.VERBOSE,
)


# Shapes of signature lines: phone numbers, web and mail addresses, social handles.
_PHONE_RE = re.compile(r"(?<![\w])\+?\(?\d[\d\s().\-/]{6,}\d(?![\w])")


_URL_RE = re.compile(
    r"(?:https?://|www\.)\S+|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b|"
    r"\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|de|fr|es|it|nl|co|io|uk|eu|info|biz|ch|at|be|se|"
    r"dk|no|fi|pl|cz|ru|ua|tr|jp|cn|kr|gr|hu|ro|pt|br|us|ca|au)\b(?:/\S*)?",
    re.IGNORECASE,
)


_SIGNATURE_LABEL_RE = re.compile(
    r"^(?:(?:tel|tél|phone|mobile|mob|cell|fax|m|t|p|f|ph|o|d|direct|office|work|home|"
    r"telefon|handy|mobil|móvil|movil|cel|celular|tlf|puh|gsm|tel[eé]fono|telefone|"
    r"cellulare|web|website|site|email|e-mail|mail|skype|linkedin|twitter|x|instagram|"
    r"www|url|fon)\b\.?\s*[:.|/-]?\s*)+",
    re.IGNORECASE,
)


def is_banner(line: str) -> bool:
    return bool(_BANNER_RE.search(line))


def without_contact_details(line: str) -> str:
    """A line with phone numbers, web and mail addresses and their labels taken out.

    Table talk keeps them (``SAY call me at ...``); a line that was nothing but contact
    details becomes empty and is dropped like a signature line.
    """
    if re.match(r"^[\W_]*(?:say|tell|chat|msg)\b", line, re.IGNORECASE):
        return line
    cleaned = _URL_RE.sub(" ", line)
    if sum(ch.isdigit() for ch in cleaned) >= 7:
        cleaned = _PHONE_RE.sub(" ", cleaned)
    if cleaned == line:
        return line
    rest = " ".join(re.sub(r"[|·•,;/]+", " ", cleaned).split())
    while True:
        shorter = _SIGNATURE_LABEL_RE.sub("", rest).strip(" -:.")
        if shorter == rest:
            return rest
        rest = shorter
