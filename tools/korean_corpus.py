# ruff: noqa: E501  (the replies are data, one per line)
"""Writes tests/fixtures/replies_ko/: the Korean reply corpus, SMS and email.

    ./dev corpus          (this script, then never_a_guess_corpus.py)

Each reply below is written as an SMS body or as an email from a Korean mail client (Gmail,
iPhone Mail, Samsung Email, Naver, Daum, Outlook: their attribution lines and header blocks,
utf-8, ks_c_5601-1987 or euc-kr) quoting the prompt it answers, and its expected reading
goes into manifest.json (the English corpus's format). tests/pbm/test_replies_korean.py
reads the files; add a reply here and run this script to add it to the corpus.
"""
import email
import json
import re
from collections.abc import Sequence
from email import policy
from email.message import EmailMessage
from html import escape
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


OUT = ROOT / "replies_ko"


KO = {"Ann": "민준", "Bartholomew": "서연", "Cleo": "지호", "Dmitri": "하은", "Émile": "도윤"}


def prompt(src: str) -> list[str]:
    """The prompt an English corpus email quotes, unquoted."""
    message = email.message_from_bytes((ROOT / "replies" / src).read_bytes(),
                                       policy=policy.default)
    body = message.get_body(("plain",))
    assert body is not None, src
    text: str = body.get_content()
    lines = text.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith(">"))
    quoted = [ln[1:].lstrip(" ") if ln.startswith("> ") else ln[1:] for ln in lines[start:]
              if ln.startswith(">")]
    return quoted


PROMPTS = {"turn": "gmail_en_reveal.eml", "vote": "gmail_pt_vote.eml",
           "governor": "gmail_ja_row.eml", "waiting": "gmail_en_status_help.eml",
           "shoot": "gmail_es_attribution_shoot.eml"}


def quoted_prompt(scenario: str, names: str) -> list[str]:
    """The prompt a reply in ``scenario`` quotes, its players renamed in Korean."""
    lines = prompt(PROMPTS.get(scenario, "gmail_en_reveal.eml"))
    if names == "ko":
        out = []
        for ln in lines:
            for en, ko in KO.items():
                ln = ln.replace(en, ko)
            out.append(ln)
        lines = out
    return lines


ADDR = "Tortuga by Mail <play+Zq7tK2mB9x@tortuga.example>"


def client_body(client: str, new: str, scenario: str, names: str) -> str:
    """The text of an email reply as ``client`` lays it out: new text, attribution, quote."""
    q = quoted_prompt(scenario, names)
    gt = "\n".join("> " + ln if ln else ">" for ln in q)
    if client == "gmail":
        return f"{new}\n\n2026년 12월 1일 (화) 오후 3:04, {ADDR}님이 작성:\n\n{gt}\n"
    if client == "gmailwrap":
        return (f"{new}\n\n2026년 12월 1일 (화) 오후 3:04, Tortuga by Mail <\n"
                f"play+Zq7tK2mB9x@tortuga.example>님이 작성:\n\n{gt}\n")
    if client == "iphone":
        return (f"{new}\n\niPhone에서 보냄\n\n> 2026. 12. 1. 오후 3:04, {ADDR} 작성:\n>\n{gt}\n")
    if client == "galaxy":
        return (f"{new}\n\nGalaxy S24 Ultra에서 보냄\n\n-------- 원본 메시지 --------\n"
                f"발신: {ADDR}\n날짜: 26/12/1 오후 3:04 (GMT+09:00)\n"
                f"수신: 민준 <minjun@example.kr>\n제목: [Tortuga: Nassau] Tortuga 1667 by mail\n\n"
                + "\n".join(q) + "\n")
    if client == "naver":
        return (f"{new}\n\n-----Original Message-----\nFrom: \"Tortuga by Mail\"<play+Zq7tK2mB9x@"
                f"tortuga.example>\nTo: <minjun@naver.example>;\nCc: \nSent: 2026-12-01 (화) 15:04:"
                f"00 (GMT+09:00)\nSubject: [Tortuga: Nassau] Tortuga 1667 by mail\n\n"
                + "\n".join(q) + "\n")
    if client == "outlook":
        return (f"{new}\n\n________________________________\n보낸 사람: {ADDR}\n"
                f"보낸 날짜: 2026년 12월 1일 화요일 오후 3:04\n받는 사람: 민준 <minjun@example.kr>\n"
                f"제목: [Tortuga: Nassau] Tortuga 1667 by mail\n\n" + "\n".join(q) + "\n")
    if client == "daum":
        return (f"{new}\n\n--------- 원본 메일 ---------\n보낸사람: {ADDR}\n받는사람: "
                f"<minjun@daum.example>\n날짜: 26.12.01 15:04 GMT +0900\n제목: [Tortuga: Nassau] "
                f"Tortuga 1667 by mail\n\n" + "\n".join(q) + "\n")
    if client == "gmailhtml":
        body = "<br>".join(escape(ln) for ln in q)
        return (f'<div dir="ltr">{new_html(new)}</div><br><div class="gmail_quote">'
                f'<div dir="ltr" class="gmail_attr">2026년 12월 1일 (화) 오후 3:04, '
                f'{escape(ADDR)}님이 작성:<br></div><blockquote class="gmail_quote" '
                f'style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);'
                f'padding-left:1ex">{body}</blockquote></div>\n')
    if client == "naverhtml":
        body = "".join(f"<div>{escape(ln) or '<br>'}</div>" for ln in q)
        return (f'<div style="font-family:나눔고딕,NanumGothic,sans-serif;font-size:10pt">'
                f"{new_html(new)}<div><br></div><div><br></div>"
                f'<blockquote style="margin-left:0.8ex;padding-left:1ex;border-left:1px '
                f'solid #ccc"><div>-----Original Message-----</div><div><b>From:</b> '
                f'"Tortuga by Mail"&lt;play+Zq7tK2mB9x@tortuga.example&gt;</div><div><b>To:'
                f"</b> &lt;minjun@naver.example&gt;;</div><div><b>Sent:</b> 2026-12-01 (화) "
                f"15:04:00 (GMT+09:00)</div><div><b>Subject:</b> [Tortuga: Nassau] Tortuga "
                f"1667 by mail</div><div><br></div>{body}</blockquote></div>\n")
    raise KeyError(client)


def new_html(new: str) -> str:
    """The player's new text as a mail client's HTML editor writes it: a div a line."""
    return "".join(f"<div>{escape(ln) or '<br>'}</div>" for ln in new.split("\n"))


CLIENTS = ["gmail", "iphone", "naver", "outlook", "galaxy", "daum", "gmailwrap"]


CHARSETS = {"naver": "utf-8", "outlook": "ks_c_5601-1987", "daum": "euc-kr"}


def write_eml(name: str, new: str, scenario: str, names: str, client: str) -> None:
    """One email reply, in the client's charset."""
    msg = EmailMessage()
    msg["From"] = "민준 <minjun@example.kr>"
    msg["To"] = ADDR
    msg["Subject"] = "Re: [Tortuga: Nassau] Tortuga 1667 by mail" if client != "outlook" else \
        "회신: [Tortuga: Nassau] Tortuga 1667 by mail"
    msg["Date"] = "Tue, 01 Dec 2026 15:20:00 +0900"
    msg["Message-ID"] = f"<{name}@client.example.kr>"
    msg["In-Reply-To"] = "<tortuga.abc@tortuga.example>"
    body = client_body(client, new, scenario, names)
    charset = CHARSETS.get(client, "utf-8")
    if client.endswith("html"):
        msg.set_content(body, subtype="html", charset="utf-8", cte="quoted-printable")
    elif charset == "utf-8":
        msg.set_content(body, charset="utf-8",
                        cte="base64" if client in ("gmail", "naver") else "quoted-printable")
    else:
        codec = "cp949"
        raw = body.encode(codec)
        msg.set_content(raw, maintype="text", subtype="plain", cte="base64")
        msg.replace_header("Content-Type", f'text/plain; charset="{charset}"')
    (OUT / name).write_bytes(bytes(msg))


MANIFEST: dict[str, dict[str, Any]] = {}


def case(kind: str, scenario: str, text: str, commands: Sequence[str] = (), *,
         names: str = "ko", meta: Sequence[tuple[str, str]] = (),
         nu: Sequence[dict[str, Any]] = (), ignored: Sequence[str] = (),
         retracted: Sequence[str] = (), reaction: bool = False,
         client: str | None = None) -> None:
    """One reply: its file (an SMS, or an email from ``client``) and its expectation."""
    slug = re.sub(r"[^a-z0-9]+", "_", kind.lower()).strip("_")
    prefix = "sms" if client is None else client
    n = 1
    while f"{prefix}_{slug}_{n}.txt" in MANIFEST or f"{prefix}_{slug}_{n}.eml" in MANIFEST:
        n += 1
    if client is None:
        name = f"sms_{slug}_{n}.txt"
        (OUT / name).write_text(text, encoding="utf-8")
    else:
        name = f"{client}_{slug}_{n}.eml"
        write_eml(name, text, scenario, names, client)
    spec: dict[str, Any] = {"scenario": scenario, "commands": list(commands)}
    if names != "ko":
        spec["names"] = names
    if meta:
        spec["meta"] = [list(m) for m in meta]
    if nu:
        spec["not_understood"] = list(nu)
    if ignored:
        spec["ignored"] = list(ignored)
    if retracted:
        spec["retracted"] = list(retracted)
    if reaction:
        spec["reaction"] = True
    MANIFEST[name] = spec


AMB = {"ambiguous": True}
ROTATION: list[str] = []  # the clients mail() used, in turn


def mail(kind: str, scenario: str, text: str, commands: Sequence[str] = (),
         **kw: Any) -> None:
    """An email reply, from the next client in turn."""
    client = CLIENTS[len(ROTATION) % len(CLIENTS)]
    ROTATION.append(client)
    case(kind, scenario, text, commands, client=client, **kw)


def cases() -> None:
    """Every reply of the corpus."""
    # ---- SMS: turn (민준, Captain of the Flying Dutchman with 지호 and 도윤)
    case("reveal", "turn", "3번 공개", ["REVEAL 3"])
    case("reveal", "turn", "3번 공개할게요", ["REVEAL 3"])
    case("reveal", "turn", "3번 카드 공개합니다", ["REVEAL 3"])
    case("reveal", "turn", "3번공개", ["REVEAL 3"])
    case("reveal", "turn", "공개 3", ["REVEAL 3"])
    case("reveal", "turn", "삼번 공개", ["REVEAL 3"])
    case("reveal", "turn", "이번엔 4번 공개할게요", ["REVEAL 4"])
    case("reveal", "turn", "헐 3번 공개요 ㅎㅎ", ["REVEAL 3"])
    case("reveal", "turn", "5번 오픈!", ["REVEAL 5"])
    case("reveal", "turn", "2번 뒤집을게요", ["REVEAL 2"])
    case("ordinal", "turn", "세 번째 카드 공개", ["REVEAL 3"])
    case("ordinal", "turn", "첫 번째 거 공개요", ["REVEAL 1"])
    case("ordinal", "turn", "첫번째 공개합니다", ["REVEAL 1"])
    case("ordinal", "turn", "두 번째랑 네 번째 확인", ["VIEW 2 4"])
    case("view", "turn", "1번이랑 3번 확인", ["VIEW 1 3"])
    case("view", "turn", "1번과 3번 확인해 주세요", ["VIEW 1 3"])
    case("view", "turn", "1,3번 확인할게요", ["VIEW 1 3"])
    case("view", "turn", "2번 4번 엿볼게요", ["VIEW 2 4"])
    case("view", "turn", "1번하고 5번 볼게요", ["VIEW 1 5"])
    case("maroon", "turn", "지호 고립", ["MAROON 3"])
    case("maroon", "turn", "지호를 고립시킬게요", ["MAROON 3"])
    case("maroon", "turn", "도윤이 고립시키겠습니다", ["MAROON 5"])
    case("maroon", "turn", "고립 도윤", ["MAROON 5"])
    case("maroon", "turn", "도윤 토르투가로 추방!", ["MAROON 5"])
    case("maroon", "turn", "고립", [], nu=[{"suggestion_verb": "MAROON"}])
    case("attack", "turn", "공격", ["ATTACK"])
    case("attack", "turn", "공격합니다!", ["ATTACK"])
    case("attack", "turn", "공격 명령 내립니다", ["ATTACK"])
    case("question", "turn", "공격할까요?", [], nu=[{"suggestion_verb": "ATTACK"}])
    case("force", "turn", "2번 4번 하은한테 공개시킬게요", ["FORCE 2 4 4"])
    case("force", "turn", "하은 2번 4번 지목", ["FORCE 2 4 4"])
    case("force", "turn", "서연에게 1번이랑 5번 강요", ["FORCE 1 5 2"])
    case("row", "turn", "보트로 이동할게요", ["ROW"])
    case("row", "turn", "노 젓기", ["ROW"])
    case("negation", "turn", "공격 말고 보트 이동", ["ROW"])
    case("negation", "turn", "공격 안 할래요. 보트로 이동", ["ROW"])
    case("negation", "turn", "공격 안 해요", [])
    case("ambiguous", "turn", "2번이나 3번 공개", [], nu=[{"suggestion_verb": "REVEAL", **AMB}])
    case("ambiguous", "turn", "2번 공개 아니면 1번 4번 확인", [], nu=[AMB])
    case("ambiguous", "turn", "공개 확인 3", [], nu=[AMB])
    case("bad_number", "turn", "9번 공개", [], nu=[{"suggestion_verb": "REVEAL"}])
    case("courtesy", "turn", "감사합니다\n3번 공개", ["REVEAL 3"])
    case("courtesy", "turn", "3번 공개. 감사합니다", ["REVEAL 3"])
    case("courtesy", "turn", "민준입니다. 5번 공개할게요", ["REVEAL 5"])
    case("courtesy", "turn", "안녕하세요 여러분", [])
    case("english", "turn", "REVEAL 3", ["REVEAL 3"])
    case("english", "turn", "reveal 3번", ["REVEAL 3"])
    case("english", "turn", "view 1 2", ["VIEW 1 2"])
    case("english_names", "turn", "Cleo 고립", ["MAROON 3"], names="en")
    case("english_names", "turn", "Dmitri한테 1번 2번 지목", ["FORCE 1 2 4"], names="en")
    case("english_names", "turn", "Émile 고립시킬게요", ["MAROON 5"], names="en")
    # ---- SMS: votes (지호 votes in 민준's Attack; cards: 1 Cannon, 2 Torch, 3 Torch + Torch)
    case("vote", "vote", "2번에 투표", ["VOTE 2"])
    case("vote", "vote", "2번 투표합니다", ["VOTE 2"])
    case("vote", "vote", "투표 1번", ["VOTE 1"])
    case("vote", "vote", "3번 낼게요", ["VOTE 3"])
    case("vote", "vote", "첫 번째 카드로 투표할게요", ["VOTE 1"])
    case("vote", "vote", "2번 카드 제출", ["VOTE 2"])
    case("vote", "vote", "세 번째", ["VOTE 3"])
    case("vote", "vote", "2", ["VOTE 2"])
    case("symbol", "vote", "대포 낼게요", ["VOTE 1"])
    case("symbol", "vote", "대포", ["VOTE 1"])
    case("symbol", "vote", "횃불 두 개", ["VOTE 3"])
    case("symbol", "vote", "횃불 2개 카드", ["VOTE 3"])
    case("symbol", "vote", "영국 국기로 투표", ["VOTE 1"])
    # ---- SMS: other seats and answers
    case("brawl", "governor", "전투", ["BRAWL"])
    case("brawl", "governor", "전투명령 내릴게요", ["BRAWL"])
    case("row_ship", "governor", "졸리 로저로 이동", ["ROW JR"])
    case("row_ship", "governor", "플라잉 더치맨 보트로", ["ROW FD"])
    case("row_ship", "governor", "더치맨 쪽 보트로 갈게요", ["ROW FD"])
    case("row_ship", "governor", "전투 말고 졸리로저로 노 젓기", ["ROW JR"])
    case("shift", "cabin_boy", "프랑스로 옮길게요", ["SHIFT TO FRENCH"])
    case("shift", "cabin_boy", "보물을 프랑스 칸으로 옮기기", ["SHIFT TO FRENCH"])
    case("mutiny", "first_mate", "반란", ["MUTINY"])
    case("mutiny", "first_mate", "반란 선동합니다", ["MUTINY"])
    case("mutiny", "first_mate", "반란을 일으킬게요", ["MUTINY"])
    case("land", "rowboat", "상륙", ["LAND"])
    case("land", "rowboat", "토르투가에 상륙할게요", ["LAND"])
    case("board", "rowboat", "승선할게요", ["BOARD"])
    case("board", "rowboat", "배로 돌아갈게요", ["BOARD"])
    case("shoot", "shoot", "지호 쏠게요", ["SHOOT 3"])
    case("shoot", "shoot", "권총으로 하은 쏘기", ["SHOOT 4"])
    case("shoot", "shoot", "도윤", ["SHOOT 5"])
    case("give", "give", "서연한테 줄게요", ["GIVE 2"])
    case("give", "give", "하은에게 보물 지도 줄게요", ["GIVE 4"])
    case("take", "take", "영국으로 가져올게요", ["TAKE TO BRITISH"])
    case("place", "place", "영국에 놓을게요", ["PLACE BRITISH"])
    case("place", "place", "프랑스", ["PLACE FRENCH"])
    case("choose", "choose", "2번 선택", ["CHOOSE 2"])
    case("choose", "choose", "5번 고를게요", ["CHOOSE 5"])
    case("marque", "marque", "사략 허가증으로 하은 졸리 로저로 보내기", ["MARQUE 4 JR"])
    case("marque", "marque", "보관할게요", ["SAVE"])
    case("fountain", "fountain", "젊음의 샘 쓸게요", ["FOUNTAIN"])
    case("fountain", "fountain", "수락", ["ACCEPT"])
    case("two_player", "two_player", "보트 이동\n공격", ["ROW", "ATTACK"])
    case("two_player", "two_player", "2번 공개하고 보트 이동", ["REVEAL 2", "ROW"])
    # ---- SMS: invitations and any-time words
    case("invite", "invited", "네", meta=[("JOIN", "")])
    case("invite", "invited", "참가할게요", meta=[("JOIN", "")])
    case("invite", "invited", "네 참여합니다!", meta=[("JOIN", "")])
    case("invite", "invited", "좋아요", meta=[("JOIN", "")])
    case("invite", "invited", "불참", meta=[("DECLINE", "")])
    case("invite", "invited", "아니요", meta=[("DECLINE", "")])
    case("invite", "invited", "죄송하지만 이번엔 패스", meta=[("DECLINE", "")])
    case("help", "waiting", "도움말", meta=[("HELP", "")])
    case("help", "waiting", "도움말 공격", meta=[("HELP", "ATTACK")])
    case("help", "waiting", "도움말 권총", meta=[("HELP", "SHOOT")])
    case("help", "waiting", "도움말 카드", meta=[("HELP", "CARDS")])
    case("status", "waiting", "상태", meta=[("STATUS", "")])
    case("log", "waiting", "기록 보여주세요", meta=[("LOG", "")])
    case("say", "waiting", "말: 다들 행운을 빌어요", meta=[("SAY", "다들 행운을 빌어요")])
    case("say", "waiting", "채팅 저 영국팀 아니에요 ㅋㅋ", meta=[("SAY", "저 영국팀 아니에요 ㅋㅋ")])

    case("sequence", "two_player", "3번 공개한 다음 보트 이동", ["REVEAL 3", "ROW"])
    case("sequence", "two_player", "1번 2번 확인하고 나서 공격할게요", ["VIEW 1 2", "ATTACK"])
    case("quantity", "turn", "이벤트 카드 2장 확인", [], nu=[{"suggestion_verb": "VIEW"}])
    case("say", "waiting", "SAY 안녕하세요 민준 ㅋㅋ", meta=[("SAY", "안녕하세요 민준 ㅋㅋ")])
    case("say", "waiting", "채팅: 공개 공격 3번 (그냥 잡담)", meta=[("SAY", "공개 공격 3번 (그냥 잡담)")])
    case("menu_pick", "turn", "4번", ["ROW"])
    case("menu_pick", "vote", "3번이요", ["VOTE 3"])
    case("signature", "turn", "3번 공개\n\n민준 드림", ["REVEAL 3"])

    case("land", "rowboat", "보트에서 상륙", ["LAND"])
    case("board", "rowboat", "보트에서 승선할게요", ["BOARD"])
    case("chatty", "turn", "지호님 미안해요 ㅠㅠ 고립할게요 지호", ["MAROON 3"])
    case("chatty", "vote", "저는 2번 낼게요. 비밀입니다 ㅎㅎ", ["VOTE 2"])
    case("chatty", "turn", "제 차례죠? 1번 공개", ["REVEAL 1"])
    case("chatty", "vote", "무조건 3번", ["VOTE 3"])
    case("negation", "turn", "지호 말고 도윤 고립", ["MAROON 5"])
    case("negation", "turn", "도윤이는 고립 안 할게요. 지호 고립", ["MAROON 3"])

    case("html", "turn", "3번 공개할게요", ["REVEAL 3"], client="gmailhtml")
    case("html", "vote", "안녕하세요!\n\n2번에 투표합니다.\n\n민준 드림", ["VOTE 2"], client="naverhtml")
    case("html", "turn", "1번이랑 3번 확인", ["VIEW 1 3"], client="naverhtml")
    case("html", "governor", "전투!", ["BRAWL"], client="gmailhtml")
    # written after the rewrite, run once untouched: 20 of 25 read, the 5 others not
    # understood (none misread); then the rewrite learned them
    case("fresh", "turn", "4번 카드 까볼게요", ["REVEAL 4"])
    case("fresh", "turn", "1번 2번 몰래 볼게요", ["VIEW 1 2"])
    case("fresh", "turn", "도윤님 토르투가로 보내주세요 고립이요", ["MAROON 5"])
    case("fresh", "turn", "갈레온 공격하자!", ["ATTACK"])
    case("fresh", "turn", "서연님한테 1번 3번 중에 공개하라고 할게요", ["FORCE 1 3 2"])
    case("fresh", "turn", "보트 타러 갈게요", ["ROW"])
    case("fresh", "turn", "두번째 꺼 공개", ["REVEAL 2"])
    case("fresh", "turn", "3번 5번 확인 부탁드려요", ["VIEW 3 5"])
    case("fresh", "vote", "1번 카드 낼게요~", ["VOTE 1"])
    case("fresh", "vote", "세번째 카드로 투표", ["VOTE 3"])
    case("fresh", "vote", "두 번째로 할게요", ["VOTE 2"])
    case("fresh", "governor", "토르투가 전투 개시합니다", ["BRAWL"])
    case("fresh", "governor", "플라잉 더치맨 쪽 보트로 이동할게요", ["ROW FD"])
    case("fresh", "cabin_boy", "보물 하나 프랑스 보관함으로 옮깁니다", ["SHIFT TO FRENCH"])
    case("fresh", "first_mate", "선장 끌어내립시다 반란!", ["MUTINY"])
    case("fresh", "rowboat", "토르투가로 상륙합니다", ["LAND"])
    case("fresh", "rowboat", "다시 배에 탈게요 승선", ["BOARD"])
    case("fresh", "shoot", "하은 쏩니다", ["SHOOT 4"])
    case("fresh", "give", "지도는 지호 줄게요", ["GIVE 3"])
    case("fresh", "choose", "2번으로 할게요", ["CHOOSE 2"])
    case("fresh", "place", "프랑스 쪽에 놓겠습니다", ["PLACE FRENCH"])
    case("fresh", "take", "프랑스 보관함으로 가져가요", ["TAKE TO FRENCH"])
    case("fresh", "fountain", "샘 쓸게요 안 나가요", ["FOUNTAIN"])
    case("fresh", "marque", "보관해둘게요", ["SAVE"])
    case("fresh", "waiting", "명령어 뭐였죠?", meta=[("HELP", "")])
    # a second fresh set, run once untouched: 23 of 25 read, 2 not understood (none
    # misread); then the rewrite learned them (낼께요, 선장 권한으로)
    case("fresh", "turn", "마지막 카드 5번 공개해 주세요", ["REVEAL 5"])
    case("fresh", "turn", "2번하고 3번 살짝 볼게요", ["VIEW 2 3"])
    case("fresh", "turn", "선장 권한으로 지호 고립시킵니다", ["MAROON 3"])
    case("fresh", "turn", "스페인 갈레온 공격 개시!", ["ATTACK"])
    case("fresh", "turn", "저 보트로 갈래요", ["ROW"])
    case("fresh", "turn", "1번 오픈할게요 ㅎㅎ", ["REVEAL 1"])
    case("fresh", "turn", "도윤한테 4번 5번 지목합니다", ["FORCE 4 5 5"])
    case("fresh", "turn", "1번, 4번 볼래요", ["VIEW 1 4"])
    case("fresh", "vote", "2번 낼께요", ["VOTE 2"])
    case("fresh", "vote", "대포 카드로 투표", ["VOTE 1"])
    case("fresh", "vote", "3번 카드 제출합니다", ["VOTE 3"])
    case("fresh", "governor", "졸리로저 보트로 갈게요", ["ROW JR"])
    case("fresh", "governor", "전투 시작!", ["BRAWL"])
    case("fresh", "first_mate", "반란 일으킵니다", ["MUTINY"])
    case("fresh", "rowboat", "상륙할래요", ["LAND"])
    case("fresh", "rowboat", "졸리 로저에 승선", ["BOARD"])
    case("fresh", "shoot", "서연 쏠래요", ["SHOOT 2"])
    case("fresh", "give", "도윤한테 지도 줄게요", ["GIVE 5"])
    case("fresh", "take", "영국 칸으로 가져올래요", ["TAKE TO BRITISH"])
    case("fresh", "choose", "5번 고를래요", ["CHOOSE 5"])
    case("fresh", "place", "영국 쪽에 놓을게요", ["PLACE BRITISH"])
    case("fresh", "marque", "하은을 플라잉 더치맨으로", ["MARQUE 4 FD"])
    case("fresh", "fountain", "수락할게요 그냥 갈게요", ["ACCEPT"])
    case("fresh", "waiting", "현재 상태 알려주세요", meta=[("STATUS", "")])
    case("fresh", "waiting", "기록 좀 보여줘", meta=[("LOG", "")])
    case("mixed", "turn", "reveal 3 or view 1 4 ㅎㅎ", [], nu=[AMB])
    case("mixed", "turn", "REVEAL 3 감사합니다", ["REVEAL 3"])
    case("mixed", "turn", "MAROON 지호요", ["MAROON 3"])
    case("mixed", "turn", "Please reveal 5번 ㅎㅎ", ["REVEAL 5"])
    case("mixed", "waiting", "help 공격", meta=[("HELP", "ATTACK")])
    case("mixed", "governor", "row to 졸리로저", ["ROW JR"])
    # self-corrections (issue 25's logic reads the English markers they become)
    case("correction", "turn", "3번 공개 아니 4번 공개", ["REVEAL 4"])
    case("correction", "turn", "3번 공개 아 잠깐 4번 공개할게요", ["REVEAL 4"])
    case("correction", "vote", "2번 투표 취소 3번 투표", ["VOTE 3"])
    case("correction", "vote", "2번에 투표\n아니 3번", ["VOTE 3"])
    case("correction", "turn", "지호 고립 아니 도윤 고립", ["MAROON 5"])
    case("correction", "turn", "3번 공개... 아니 잠깐만", [], retracted=["REVEAL 3"])
    case("correction", "vote", "2번 투표. 취소", [], retracted=["VOTE 2"])
    case("revote", "vote", "3번으로 바꿀게요", ["VOTE 3"])
    case("revote", "vote", "제 투표 1번으로 바꿔주세요", ["VOTE 1"])
    # phone reactions (a tapback on our text) are never read
    case("reaction", "turn", '"Tortuga: 민준, 당신 차례입니다"에 좋아요 표시함', [], reaction=True)
    case("reaction", "turn", "‘3번 공개’에 하트", [], reaction=True)
    case("phone", "turn", "[Web발신]\n3번 공개", ["REVEAL 3"])
    case("phone", "turn", "３번 공개", ["REVEAL 3"])
    case("phone", "turn", "2,4 확인", ["VIEW 2 4"])
    case("phone", "turn", "#3 공개", ["REVEAL 3"])
    case("phone", "vote", "투표: 2", ["VOTE 2"])
    case("try_once", "turn", "3번 한번 공개해볼게요", ["REVEAL 3"])
    case("try_once", "turn", "한 번 2번 4번 확인해볼게요", ["VIEW 2 4"])
    case("symbol", "vote", "대포 한 장 낼게요", ["VOTE 1"])
    case("ambiguous", "turn", "지호나 도윤 고립", [], nu=[{"suggestion_verb": "MAROON", **AMB}])
    case("maroon", "turn", "도윤아 미안 고립이야", ["MAROON 5"])
    # ---- email, every Korean client layout, with the quoted prompt below
    mail("reveal", "turn", "3번 공개할게요", ["REVEAL 3"])
    mail("reveal", "turn", "안녕하세요,\n\n3번 카드 공개하겠습니다.\n\n감사합니다.\n민준 드림", ["REVEAL 3"])
    mail("reveal", "turn", "5번 공개", ["REVEAL 5"])
    mail("reveal", "turn", "이번 턴에는 1번 공개할게요.", ["REVEAL 1"])
    mail("reveal", "turn", "REVEAL 2", ["REVEAL 2"])
    mail("reveal", "turn", "두 번째 카드 공개해 주세요", ["REVEAL 2"])
    mail("reveal", "turn", "네 번째 공개!", ["REVEAL 4"])
    mail("view", "turn", "1번이랑 3번 확인", ["VIEW 1 3"])
    mail("view", "turn", "1번과 5번 확인해 주세요.\n\n민준", ["VIEW 1 5"])
    mail("view", "turn", "안녕하세요\n3번, 5번 볼게요", ["VIEW 3 5"])
    mail("view", "turn", "2번 4번 확인합니다", ["VIEW 2 4"])
    mail("maroon", "turn", "지호 고립", ["MAROON 3"])
    mail("maroon", "turn", "도윤을 토르투가로 고립시키겠습니다.", ["MAROON 5"])
    mail("maroon", "turn", "지호를 고립시킬게요\n\n미안해요 ㅠㅠ", ["MAROON 3"])
    mail("attack", "turn", "공격합니다", ["ATTACK"])
    mail("attack", "turn", "선장으로서 공격 명령을 내립니다!", ["ATTACK"])
    mail("force", "turn", "하은에게 2번 4번 지목", ["FORCE 2 4 4"])
    mail("force", "turn", "2번 5번 서연한테 공개시킬게요", ["FORCE 2 5 2"])
    mail("row", "turn", "보트로 이동할게요", ["ROW"])
    mail("ambiguous", "turn", "2번 공개 아니면 3번 공개", [], nu=[{"suggestion_verb": "REVEAL", **AMB}])
    mail("ambiguous", "turn", "1번이나 2번 공개할게요", [], nu=[AMB])
    mail("english_names", "turn", "Cleo 고립시킬게요", ["MAROON 3"], names="en")
    mail("english_names", "turn", "Bartholomew한테 1번 3번 지목", ["FORCE 1 3 2"], names="en")
    mail("vote", "vote", "2번에 투표", ["VOTE 2"])
    mail("vote", "vote", "3번 카드로 투표합니다.", ["VOTE 3"])
    mail("vote", "vote", "투표: 1번", ["VOTE 1"])
    mail("vote", "vote", "첫 번째 카드 낼게요", ["VOTE 1"])
    mail("vote", "vote", "대포로 투표할게요", ["VOTE 1"])
    mail("vote", "vote", "횃불 두 개짜리로 낼게요", ["VOTE 3"])
    mail("vote", "vote", "2", ["VOTE 2"])
    mail("brawl", "governor", "전투 명령 내립니다", ["BRAWL"])
    mail("brawl", "governor", "총독으로서 전투!", ["BRAWL"])
    mail("row_ship", "governor", "졸리 로저 보트로 이동", ["ROW JR"])
    mail("row_ship", "governor", "플라잉 더치맨으로 노 젓기", ["ROW FD"])
    mail("shift", "cabin_boy", "영국 보물 하나 프랑스로 옮길게요", ["SHIFT TO FRENCH"])
    mail("mutiny", "first_mate", "반란을 선동합니다!", ["MUTINY"])
    mail("land", "rowboat", "토르투가에 상륙", ["LAND"])
    mail("board", "rowboat", "승선합니다", ["BOARD"])
    mail("shoot", "shoot", "지호를 쏘겠습니다", ["SHOOT 3"])
    mail("shoot", "shoot", "권총으로 서연 쏠게요", ["SHOOT 2"])
    mail("give", "give", "보물 지도는 하은에게 줄게요", ["GIVE 4"])
    mail("take", "take", "프랑스 칸으로 가져올게요", ["TAKE TO FRENCH"])
    mail("place", "place", "영국 칸에 놓을게요", ["PLACE BRITISH"])
    mail("choose", "choose", "5번 선택합니다", ["CHOOSE 5"])
    mail("marque", "marque", "나중에 쓸게요", ["SAVE"])
    mail("invite", "invited", "네, 참가할게요!", meta=[("JOIN", "")])
    mail("invite", "invited", "죄송하지만 이번엔 빠질게요", meta=[("DECLINE", "")])
    mail("invite", "invited", "참여합니다", meta=[("JOIN", "")])
    mail("status", "waiting", "상태\n도움말 투표", meta=[("STATUS", ""), ("HELP", "VOTE")])
    mail("say", "waiting", "말: 이번 판 재밌네요", meta=[("SAY", "이번 판 재밌네요")])
    mail("log", "waiting", "기록", meta=[("LOG", "")])
    mail("chatty", "turn", "안녕하세요 민준입니다\n\n이번 턴은 2번이랑 4번 확인할게요\n그리고 다들 화이팅!\n\n민준 드림", ["VIEW 2 4"])
    mail("chatty", "turn", "오늘 좀 늦었네요 죄송합니다\n5번 공개", ["REVEAL 5"])
    mail("chatty", "governor", "하은입니다. 전투 명령!", ["BRAWL"])
    mail("negation", "turn", "공격은 안 할게요.\n대신 보트로 이동합니다.", ["ROW"])


def never_a_guess() -> None:
    """Issue 36: two answers asked about, corrections, questions, Korean as written."""
    # two answers to one decision, nothing known between them: asked
    case("two_answers", "turn", "1번 공개\n5번 공개", nu=[AMB])
    case("two_answers", "vote", "2번 투표\n3번 투표", nu=[AMB])
    case("two_answers", "give", "지호한테 줄게요\n하은한테 줄게요", nu=[AMB])
    case("two_answers", "place", "영국\n프랑스", nu=[AMB])
    case("two_answers", "turn", "REVEAL 1\n4번 공개요", nu=[AMB])
    case("two_answers", "choose", "2번\n5번", nu=[AMB])
    case("same_twice", "vote", "2번 투표\n2번이요", ["VOTE 2"])
    mail("two_answers", "turn", "1번 공개할게요\n\n아 5번 공개\n\n민준 드림", nu=[AMB])
    # corrections
    case("correction", "turn", "2번 공개 아니 5번 공개", ["REVEAL 5"])
    case("correction", "vote", "1번 투표 잠깐 3번", ["VOTE 3"])
    case("correction", "turn", "2번 말고 4번 공개", ["REVEAL 4"])
    case("correction", "turn", "2번 공개 말고 4번", ["REVEAL 4"])
    case("rhetorical", "turn", "2번 공개할까요?", nu=[{}])
    case("rhetorical", "turn", "2번 공개? 아니면 4번?", nu=[{}])
    case("correction", "vote", "VOTE 1\n*3", ["VOTE 3"])
    case("correction", "turn", "REVEAL 2, 아니 REVEAL 4", ["REVEAL 4"])
    mail("correction", "give", "하은한테 줄게요\n아니 지호한테 줄게요", ["GIVE 3"])
    # questions and refusals around a command word
    case("rhetorical", "turn", "공격? 절대 안 해요", nu=[{}])
    case("rhetorical", "turn", "3번 공개할까요?", nu=[{}])
    case("rhetorical", "first_mate", "반란? 안 해요", nu=[{}])
    # questions about the game: HELP on the topic
    case("question_help", "turn", "반란이 뭐예요?", meta=[("HELP", "MUTINY")])
    case("question_help", "turn", "검은 딱지는 어떻게 돼요?", meta=[("HELP", "BLACK SPOT")])
    case("question_help", "turn", "시간대 어떻게 바꿔요?", meta=[("HELP", "ZONE")])
    case("question_help", "turn", "보물 지도가 뭐예요?", meta=[("HELP", "TREASURE MAP")])
    case("question_help", "turn", "공격은 어떻게 해?", meta=[("HELP", "ATTACK")])
    case("question_help", "waiting", "사략 허가증은 뭐에요?", meta=[("HELP", "LETTER OF MARQUE")])
    case("question_help", "waiting", "투표는 어떻게 하나요?", meta=[("HELP", "VOTE")])
    mail("question_help", "waiting", "안녕하세요\n젊음의 샘이 뭔가요?\n감사합니다", meta=[("HELP", "FOUNTAIN OF YOUTH")])
    # numbers as Koreans write them
    case("native_number", "turn", "셋 공개", ["REVEAL 3"])
    case("native_number", "turn", "넷 공개할게요", ["REVEAL 4"])
    case("native_number", "turn", "둘 셋 확인", ["VIEW 2 3"])
    case("native_number", "vote", "둘이요", ["VOTE 2"])
    case("native_number", "vote", "하나", ["VOTE 1"])
    case("native_number", "choose", "다섯", ["CHOOSE 5"])
    case("sino_number", "turn", "삼 번 공개", ["REVEAL 3"])
    case("sino_number", "turn", "사 번 공개할게요", ["REVEAL 4"])
    case("sino_number", "vote", "일번 투표", ["VOTE 1"])
    case("quantity", "vote", "보물 하나", [])
    # names with honorifics and particles
    case("honorific", "turn", "지호 형 고립시킬게요", ["MAROON 3"])
    case("honorific", "give", "지호 누나한테 지도 줄게", ["GIVE 3"])
    case("honorific", "give", "하은님에게 줄게요", ["GIVE 4"])
    case("honorific", "shoot", "서연 씨 쏠게요", ["SHOOT 2"])
    case("honorific", "turn", "도윤 오빠 고립", ["MAROON 5"])
    mail("honorific", "give", "지도는 서연 언니한테 줄게요", ["GIVE 2"])
    # the map kept, acceptance where one choice fits
    case("keep_map", "give", "제가 가질게요", ["GIVE 1"])
    case("keep_map", "give", "내가 가질게", ["GIVE 1"])
    case("just_go", "fountain", "그냥 갈게요", ["ACCEPT"])
    # settings in Korean words
    case("setting", "turn", "서울 시간으로 해주세요", meta=[("SET", "ZONE Seoul")])
    case("setting", "waiting", "도쿄 시간으로 바꿔주세요", meta=[("SET", "ZONE Tokyo")])
    case("setting", "waiting", "3일 동안 부재", meta=[("SET", "AWAY 3 days")])
    case("setting", "waiting", "5일간 여행", meta=[("SET", "AWAY 5 days")])
    # shorthand in a Korean text
    case("shorthand", "turn", "r2 갈게요", ["REVEAL 2"])
    case("shorthand", "vote", "v1 이요", ["VOTE 1"])


def main() -> None:
    """Rewrite the corpus directory from the replies above."""
    OUT.mkdir(exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    cases()
    never_a_guess()
    (OUT / "manifest.json").write_text(
        json.dumps(MANIFEST, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    emails = sum(k.endswith(".eml") for k in MANIFEST)
    print(f"{len(MANIFEST)} replies: {len(MANIFEST) - emails} SMS, {emails} emails")


if __name__ == "__main__":
    main()
