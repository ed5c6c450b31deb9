"""The admin pages over real HTTP against a real database: what they show, what each
action does through pbm.games, and that looking never changes anything."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from pbm import games
from pbm.db import get_engine, run_transaction
from pbm.models import (
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    InboundMessage,
    InboundStatus,
    OutboundMessage,
)
from tests.web.conftest import ADMIN_NAME, LiveServer, csrf_of

pytestmark = pytest.mark.postgres

PLAYERS = [
    games.PlayerSpec("Anne", "anne@example.org"),
    games.PlayerSpec("Jack", "jack@example.org", "+15550001002"),
    games.PlayerSpec("Mary", None, "+447700900003", "Europe/London"),
    games.PlayerSpec("Edward", "teach@example.org"),
]


def make_game(database_url: str, name: str, started_at: datetime, *, start: bool = True) -> int:
    """A game created (and started) through pbm.games at ``started_at``."""
    engine = get_engine(database_url)

    def work(session: Session) -> int:
        game = games.create_game(session, name, PLAYERS, now=started_at, seed=7)
        assert game.id is not None
        if start:
            games.start(session, game.id, now=started_at, force=True)
        return game.id

    return run_transaction(work, engine)


def act(client: httpx.Client, game_id: int, action: str, **fields: str) -> httpx.Response:
    """Open an action's confirmation page and confirm it with ``fields``."""
    confirm = client.get(f"/admin/games/{game_id}/actions/{action}")
    assert confirm.status_code == 200, confirm.text
    return client.post(f"/admin/games/{game_id}/actions/{action}",
                       data={"csrf_token": csrf_of(confirm.text), "confirm": "yes", **fields})


def flash(client: httpx.Client, response: httpx.Response) -> str:
    """Follow an action's redirect and return the page's flash messages."""
    assert response.status_code == 303, response.text
    page = client.get(response.headers["location"])
    return " ".join(re.findall(r'<div class="flash \w+" role="status">([^<]*)</div>', page.text))


def database_snapshot(database_url: str) -> dict[str, object]:
    """Row counts and versions of everything an admin page could change."""
    with get_engine(database_url).connect() as conn:
        snapshot: dict[str, object] = {}
        for table in ("games", "seats", "players", "command_log", "game_events",
                      "outbound_messages", "inbound_messages", "deadlines"):
            snapshot[table] = conn.execute(sa.text(f"select count(*) from {table}")).scalar()
        snapshot["versions"] = conn.execute(
            sa.text("select id, version, status, updated_at from games order by id")).all()
        snapshot["deadlines_due"] = conn.execute(
            sa.text("select id, due_at, reminders_sent from deadlines order by id")).all()
    return snapshot


def test_the_games_list_shows_who_is_awaited_and_marks_overdue_games(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    now = datetime.now(UTC)
    make_game(live_server.database_url, "Old Harbour", now - timedelta(days=3))
    make_game(live_server.database_url, "New Harbour", now - timedelta(minutes=5))
    make_game(live_server.database_url, "Not Yet", now, start=False)
    page = admin_client.get("/admin/games")
    assert page.status_code == 200
    rows = {}
    for row in page.text.split("<tr>")[2:]:
        name = re.search(r"<strong>([^<]+)</strong></a>", row)
        assert name, row
        rows[name.group(1)] = row
    assert {"Old Harbour", "New Harbour", "Not Yet"} <= set(rows)
    assert "overdue" in rows["Old Harbour"]
    assert "place treasure" in rows["Old Harbour"]
    assert "overdue" not in rows["New Harbour"]
    assert "in 23 hours 55 minutes" in rows["New Harbour"]
    assert "Anne, Jack, Mary, Edward" in rows["Not Yet"]
    running = admin_client.get("/admin/games", params={"status": "running"}).text
    assert "Old Harbour" in running and "Not Yet" not in running
    assert re.search(r"Running \(\d+\)", running) and re.search(r"Created \(\d+\)", running)


def test_a_paused_game_is_never_marked_overdue_its_clock_is_stopped(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    now = datetime.now(UTC)
    game_id = make_game(live_server.database_url, "Becalmed", now - timedelta(days=3))
    run_transaction(lambda s: games.pause(s, game_id, "the admin is away",
                                          now=now - timedelta(days=2)),
                    get_engine(live_server.database_url))
    listing = admin_client.get("/admin/games").text
    row = next(r for r in listing.split("<tr>") if "<strong>Becalmed</strong>" in r)
    assert "place treasure" in row and "overdue" not in row
    page = admin_client.get(f"/admin/games/{game_id}").text
    assert "badge overdue" not in page


def test_looking_at_every_page_changes_nothing(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    game_id = make_game(live_server.database_url, "Looking Glass",
                        datetime.now(UTC) - timedelta(days=3))
    before = database_snapshot(live_server.database_url)
    pages = ["/admin/games", "/admin/games?status=running", "/admin/games/new",
             f"/admin/games/{game_id}", "/admin/quarantine", "/admin", "/admin/login",
             "/admin/games/999999", "/admin/quarantine/999999/retry"]
    pages += [f"/admin/games/{game_id}/actions/{name}" for name in
              ("invite", "start", "pause", "resume", "extend", "nudge", "replace", "abort")]
    for path in pages:
        assert admin_client.get(path).status_code in {200, 303, 404}, path
    assert database_snapshot(live_server.database_url) == before


def test_the_game_page_keeps_secrets_behind_the_logged_spoilers_toggle(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    game_id = make_game(live_server.database_url, "Secret Cove", datetime.now(UTC))
    engine = get_engine(live_server.database_url)
    with Session(engine) as session:
        state = games.load_state(session.get(Game, game_id))  # type: ignore[arg-type]
        private = session.exec(select(GameEvent).where(GameEvent.game_id == game_id,
                                                       GameEvent.audience.is_not(None))).all()  # type: ignore[union-attr]
    page = admin_client.get(f"/admin/games/{game_id}")
    assert page.status_code == 200
    assert "<svg" in page.text and "Flying Dutchman" in page.text
    for loyalty in ("British", "French", "Dutch"):
        assert f"<strong>{loyalty}</strong>" not in page.text
    for event in private:
        assert event.text not in page.text.split('id="public-log"')[-1].split("</ul>")[0]
    shown = admin_client.post(f"/admin/games/{game_id}/spoilers",
                              data={"show": "1", "csrf_token": csrf_of(page.text)})
    assert shown.status_code == 303
    spoiled = admin_client.get(f"/admin/games/{game_id}").text
    for seat, loyalty in enumerate(state.loyalties):
        assert re.search(rf"{seat + 1}\. {PLAYERS[seat].name}</td>\s*<td><strong>"
                         rf"{loyalty.value.capitalize()}</strong>", spoiled)
    assert f"Spoilers shown: {ADMIN_NAME} at" in spoiled
    audit = (live_server.data_dir / "admin-audit.log").read_text().splitlines()
    entry = json.loads([line for line in audit if "show_spoilers" in line][-1])
    assert entry["admin"] == ADMIN_NAME and entry["game_id"] == game_id and entry["at"]
    # Spoilers are per game: another game stays hidden.
    other = make_game(live_server.database_url, "Other Cove", datetime.now(UTC))
    assert "Show spoilers" in admin_client.get(f"/admin/games/{other}").text


def test_extend_nudge_replace_and_abort_go_through_the_game_service(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    game_id = make_game(live_server.database_url, "Busy Bay",
                        datetime.now(UTC) - timedelta(hours=1))
    engine = get_engine(live_server.database_url)

    def open_deadlines() -> list[Deadline]:
        with Session(engine) as session:
            return list(session.exec(select(Deadline).where(
                Deadline.game_id == game_id, Deadline.status == DeadlineStatus.OPEN)).all())

    def outbox(kind: str) -> list[OutboundMessage]:
        with Session(engine) as session:
            return list(session.exec(select(OutboundMessage).where(
                OutboundMessage.game_id == game_id, OutboundMessage.kind == kind)).all())

    due = {d.id: d.due_at for d in open_deadlines()}
    assert "moved 12 hours later" in flash(admin_client, act(admin_client, game_id, "extend",
                                                         hours="12"))
    assert {d.id: d.due_at for d in open_deadlines()} == {
        i: at + timedelta(hours=12) for i, at in due.items()}

    assert outbox("reminder") == []
    assert "Reminder sent to 1 awaited player" in flash(admin_client,
                                                         act(admin_client, game_id, "nudge"))
    assert len(outbox("reminder")) == 1
    assert [d.reminders_sent for d in open_deadlines()] == [1]

    replaced = act(admin_client, game_id, "replace", seat="2", name="Calico",
                   email="calico@example.org", phone="", time_zone="America/Jamaica")
    assert "Seat 2 now belongs to Calico" in flash(admin_client, replaced)
    page = admin_client.get(f"/admin/games/{game_id}").text
    players = page.split('aria-label="Players"')[1].split("</section>")[0]
    assert "calico@example.org" in players and "jack@example.org" not in players
    assert any(m.to_address == "calico@example.org" for m in outbox("seat_replaced"))

    wrong = act(admin_client, game_id, "resume")
    assert wrong.status_code == 422
    assert "not paused" in wrong.text

    aborted = act(admin_client, game_id, "abort", reason="Too many pirates")
    assert "Game aborted" in flash(admin_client, aborted)
    page = admin_client.get(f"/admin/games/{game_id}").text
    assert 'id="game-status">aborted<' in page
    assert "/actions/" not in page  # nothing left to do
    audit = (live_server.data_dir / "admin-audit.log").read_text()
    assert '"action": "abort"' in audit and "Too many pirates" in audit


def test_invite_sends_invitations_and_the_page_shows_them(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    game_id = make_game(live_server.database_url, "Invite Isle", datetime.now(UTC), start=False)
    assert "Invitations sent to 4 player(s)" in flash(admin_client,
                                                       act(admin_client, game_id, "invite"))
    page = admin_client.get(f"/admin/games/{game_id}").text
    assert 'id="game-status">inviting<' in page
    assert page.count("invitation</strong>") == 4
    assert "JOIN or DECLINE" in page  # four seats awaited
    not_joined = act(admin_client, game_id, "start", force="")
    assert not_joined.status_code == 422
    assert "Still waiting for Anne, Jack, Mary, Edward to join" in not_joined.text


def test_the_message_history_shows_what_the_provider_reported(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    started = datetime.now(UTC) - timedelta(hours=2)
    game_id = make_game(live_server.database_url, "Report Reef", started)
    sent, delivered = started + timedelta(minutes=1), started + timedelta(minutes=3)
    reports = {0: ("sent", "accepted", None), 1: ("failed", "undelivered", None),
               2: ("sent", "delivered", delivered)}

    def record(session: Session) -> None:
        for row in session.exec(select(OutboundMessage).where(
                OutboundMessage.game_id == game_id)):
            status, report, at = reports.get(row.seat, ("pending", None, None))  # type: ignore[arg-type]
            row.status, row.delivery_status, row.delivered_at = status, report, at
            row.sent_at = sent if status != "pending" else None
            row.claimed_at = sent

    run_transaction(record, get_engine(live_server.database_url))
    page = admin_client.get(f"/admin/games/{game_id}").text
    seats = {int(m.group(1)): m.group(2) for m in re.finditer(
        r'<div class="seat-history" data-seat="(\d+)">(.*?)</div>\s*(?=<div class="seat|</div>)',
        page, re.S)}

    assert f"sent {sent:%Y-%m-%d %H:%M} UTC · delivery: accepted" in seats[1]
    assert '<span class="badge delivery' not in seats[1], "an accepted email is no news"
    assert '<span class="badge delivery undelivered"' in seats[2]
    assert f"delivery: delivered {delivered:%Y-%m-%d %H:%M} UTC" in seats[3]
    assert "to teach@example.org" in seats[4]
    assert "delivery:" not in seats[4] and " · sent " not in seats[4], "not sent yet"


def test_the_new_game_form_explains_what_is_wrong(admin_client: httpx.Client) -> None:
    token = csrf_of(admin_client.get("/admin/games/new").text)
    response = admin_client.post("/admin/games/new", data={
        "csrf_token": token, "name": "", "time_zone": "Mars/Olympus",
        "p0_name": "Ann", "p0_phone": "555-1234", "p1_name": "Ann", "p1_email": "not-an-email",
        "p2_name": "Cy (", "p2_email": "cy@example.org",
        "p3_name": "Dee", "p3_email": "dee@example.org", "p3_tz": "Mars/Base",
        "action_hours": "-3",
    })
    assert response.status_code == 422
    for expected in ("Give the game a name", "Two players are called Ann",
                     "Player 1 (Ann): '555-1234' has no +country code",
                     "Player 2 (Ann): 'not-an-email' is not an email address",
                     "Player 3 (Cy (): a name is 1-40 characters",
                     "Player 4 (Dee): unknown time zone 'Mars/Base'",
                     "Unknown time zone Mars/Olympus for the game",
                     "the turn time must be more than 0"):
        assert expected in response.text.replace("&#39;", "'"), expected
    assert 'value="555-1234"' in response.text  # what was typed is kept
    named = admin_client.post("/admin/games/new", data={
        "csrf_token": token, "name": "bad name!", "p0_name": "Ann", "p0_phone": "+1 555 0100 200",
        "p1_name": "Bob", "p1_email": "bob@example.org"})
    assert named.status_code == 422
    assert ("Game name 'bad name!': use 1-40 lower-case letters, digits and hyphens, "
            "e.g. bad-name") in named.text.replace("&#39;", "'")
    assert "Player 1 (Ann)" not in named.text, "a phone in any common notation is fine"


def test_a_game_is_created_after_its_review(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    token = csrf_of(admin_client.get("/admin/games/new").text)
    form = {"csrf_token": token, "name": "review-reef", "time_zone": "Europe/Berlin",
            "p0_name": "Ann", "p0_email": "ann@example.org",
            "p1_name": "Bob", "p1_phone": "+1 (555) 000-9999", "p1_tz": "America/New_York",
            "action_hours": "36", "vote_hours": "12", "other_hours": "6",
            "invitation_hours": "48", "grace_hours": "0", "on_timeout": "pause",
            "quiet_start": "23", "quiet_end": "7", "prefer_sms": "1"}
    review = admin_client.post("/admin/games/new", data=form)
    assert review.status_code == 200 and "Create “review-reef”?" in review.text
    with Session(get_engine(live_server.database_url)) as session:
        assert session.exec(select(Game).where(Game.name == "review-reef")).first() is None
    created = admin_client.post("/admin/games/new", data={**form, "confirm": "yes"})
    assert created.status_code == 303
    with Session(get_engine(live_server.database_url)) as session:
        game = session.exec(select(Game).where(Game.name == "review-reef")).one()
        seats = games.seats_of(session, game.id)  # type: ignore[arg-type]
        policy = games.policy_of(game)
    assert [(p.display_name, p.time_zone, p.preferred_channel) for _, p in seats] == [
        ("Ann", "Europe/Berlin", "email"), ("Bob", "America/New_York", "sms")]
    assert (policy.hours_for("ACTION"), policy.hours_for("VOTE"), policy.hours_for("CHOOSE"),
            policy.invitation_hours, policy.grace_hours, policy.on_timeout,
            policy.quiet_start, policy.quiet_end, policy.auto_start) == (
        36, 12, 6, 48, 0, "pause", 23, 7, False)
    again = admin_client.post("/admin/games/new", data={**form, "confirm": "yes"})
    assert again.status_code == 422 and "already exists" in again.text


def test_a_quarantined_message_can_be_retried(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    engine = get_engine(live_server.database_url)

    def quarantined(session: Session) -> int:
        row = InboundMessage(channel="sms", provider_message_id="SMbroken", sender="+15550001",
                             raw=json.dumps({"Body": "VOTE 2"}), status=InboundStatus.QUARANTINED,
                             error="ZeroDivisionError: something broke", attempts=3)
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id

    message_id = run_transaction(quarantined, engine)
    listing = admin_client.get("/admin/quarantine")
    assert "something broke" in listing.text and "VOTE 2" in listing.text
    page = admin_client.get(f"/admin/quarantine/{message_id}/retry")
    assert "Process message" in page.text and "ZeroDivisionError" in page.text
    retried = admin_client.post(f"/admin/quarantine/{message_id}/retry",
                                data={"csrf_token": csrf_of(page.text)})
    assert retried.status_code == 303
    assert f"Message {message_id} is back in line" in admin_client.get("/admin/quarantine").text
    with Session(engine) as session:
        assert session.get(InboundMessage, message_id).status != InboundStatus.QUARANTINED  # type: ignore[union-attr]
    again = admin_client.post(f"/admin/quarantine/{message_id}/retry",
                              data={"csrf_token": csrf_of(page.text)})
    assert "not quarantined" in admin_client.get(again.headers["location"]).text


def test_a_missing_game_is_a_404_not_a_crash(admin_client: httpx.Client) -> None:
    assert admin_client.get("/admin/games/999999").status_code == 404
    assert admin_client.get("/admin/games/999999/actions/pause").status_code == 404
    assert admin_client.get("/admin/games/1/actions/explode").status_code == 404
    assert admin_client.get("/admin/games/not-a-number").status_code == 422


def test_a_resumed_game_keeps_its_name_and_says_for_how_long_it_was_paused(
    admin_client: httpx.Client, live_server: LiveServer
) -> None:
    game_id = make_game(live_server.database_url, "harbour", datetime.now(UTC))
    assert "Game paused: storm" in flash(admin_client,
                                         act(admin_client, game_id, "pause", reason="storm"))
    engine = get_engine(live_server.database_url)
    with Session(engine) as session:  # the pause began 4 minutes ago
        game = session.get(Game, game_id)
        assert game is not None and game.paused_at is not None
        game.paused_at = datetime.now(UTC) - timedelta(minutes=4, seconds=5)
        session.add(game)
        session.commit()
    assert flash(admin_client, act(admin_client, game_id, "resume")) == (
        "Game harbour resumed after 4 minutes. Deadlines moved by the pause.")
    with Session(engine) as session:
        resumed = session.exec(select(OutboundMessage).where(
            OutboundMessage.game_id == game_id, OutboundMessage.kind == "resumed")).first()
    assert resumed is not None and "It was paused for 4 minutes;" in resumed.text
