"""SMS out through Twilio's official client (``messages.create`` with a status callback)."""

from __future__ import annotations

from pbm.config import Settings
from pbm.transports.base import OutgoingMessage, Receipt, TransportError

MAX_SMS_CHARS = 1600  # Twilio's limit for one (concatenated) message

# Twilio error codes that no retry can fix, and what they say about the recipient.
OPTED_OUT = 21610
BAD_NUMBER_CODES = frozenset({21211, 21212, 21214, 21217, 21401, 21407, 21408, 21612, 21614})


def _twilio_error(exc: Exception) -> TransportError:
    # here: twilio is slow to import: only when SMS is sent
    from twilio.base.exceptions import TwilioRestException

    if isinstance(exc, TwilioRestException):
        code = int(exc.code) if exc.code else 0
        if code == OPTED_OUT:
            return TransportError(f"recipient opted out (21610): {exc.msg}", permanent=True,
                                  reason="opted_out", code=str(code))
        if code in BAD_NUMBER_CODES:
            return TransportError(f"bad recipient ({code}): {exc.msg}", permanent=True,
                                  reason="recipient", code=str(code))
        if exc.status == 429 or exc.status >= 500:
            return TransportError(f"Twilio busy ({exc.status}): {exc.msg}", permanent=False,
                                  reason="busy", code=str(code or exc.status))
        if exc.status in (401, 403):
            return TransportError(f"Twilio refused our credentials: {exc.msg}", permanent=False,
                                  reason="auth", code=str(code or exc.status))
        return TransportError(f"Twilio rejected the message ({code}): {exc.msg}",
                              permanent=True, reason="rejected", code=str(code or exc.status))
    return TransportError(f"Twilio unreachable: {exc!r}", permanent=False, reason="network")


class TwilioTransport:
    """Send SMS with the Twilio REST API (``settings.twilio_api_base_url`` may point elsewhere)."""

    name = "twilio"

    def __init__(self, settings: Settings) -> None:
        # here: twilio is slow to import: only when SMS is sent
        from twilio.http.http_client import TwilioHttpClient
        from twilio.rest import Client  # here: twilio is slow to import: only when SMS is sent

        if not (settings.twilio_account_sid and settings.twilio_auth_token
                and settings.twilio_from_number):
            raise TransportError("TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and "
                                 "TWILIO_FROM_NUMBER must be set", permanent=False,
                                 reason="config")
        self.settings = settings
        self.client = Client(
            settings.twilio_account_sid,
            settings.twilio_auth_token.get_secret_value(),
            http_client=TwilioHttpClient(timeout=20),
        )
        if settings.twilio_api_base_url:
            self.client.api.base_url = settings.twilio_api_base_url.rstrip("/")

    def send(self, message: OutgoingMessage) -> Receipt:
        """Send one SMS; Twilio's MessageSid is the receipt."""
        body = message.sms_text[:MAX_SMS_CHARS]
        if not message.to.startswith("+"):
            raise TransportError(f"not an E.164 number: {message.to!r}", permanent=True,
                                 reason="recipient")
        kwargs: dict[str, str] = {"to": message.to, "from_": str(self.settings.twilio_from_number),
                                  "body": body}
        if message.status_callback:
            kwargs["status_callback"] = message.status_callback
        try:
            created = self.client.messages.create(**kwargs)
        except Exception as exc:  # every failure is classified; none escapes raw
            raise _twilio_error(exc) from exc
        return Receipt(transport=self.name, provider_id=created.sid, detail=str(created.status))
