"""Who is looking: a signed-in user (password file), a client certificate, or nobody in
particular on loopback; and the sign-in itself, rate-limited per address.

Sessions live in the server's memory under a random token in an HttpOnly, SameSite=Strict
cookie (Secure behind TLS): a restarted server signs everyone out. A request that changes
something (sign-in, a command, the live socket) must come from the console's own page:
its `Origin` is the console's.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floord.web.limits import LoginLimiter
from floord.web.passwords import Hashed, read_passwords, verify

COOKIE = "floord_session"
MAX_SESSIONS = 10_000


@dataclass(frozen=True)
class Session:
    user: str
    expires: float


class Access:
    """The console's rules of entry, from its config."""

    def __init__(
        self,
        *,
        passwords: Path | None,
        client_certs: bool,
        anonymous: bool,
        secure: bool,
        session_s: float,
        clock: Any = time.monotonic,
    ) -> None:
        self.passwords_path = passwords
        self.users: dict[str, Hashed] = read_passwords(passwords) if passwords else {}
        self.client_certs = client_certs
        self.anonymous = anonymous
        self.secure = secure
        self.session_s = session_s
        self.limiter = LoginLimiter()
        self._sessions: dict[str, Session] = {}
        self._clock = clock

    @property
    def needs_login(self) -> bool:
        return self.passwords_path is not None

    def session_user(self, token: str | None) -> str | None:
        if not token:
            return None
        session = self._sessions.get(token)
        if session is None:
            return None
        if self._clock() >= session.expires:
            del self._sessions[token]
            return None
        return session.user

    def end(self, token: str | None) -> None:
        if token:
            self._sessions.pop(token, None)

    async def sign_in(self, address: str, user: str, password: str) -> tuple[str | None, str]:
        """(a session token, '') or (None, why not): too many tries, or a wrong pair."""
        wait = self.limiter.allow(address, self._clock())
        if wait is not None:
            return None, f"too many sign-in attempts from {address}: try again in {wait:.0f} s"
        # scrypt takes tens of milliseconds of CPU: off the event loop.
        ok = await asyncio.to_thread(verify, self.users, user, password)
        if not ok:
            return None, "wrong user or password"
        if len(self._sessions) >= MAX_SESSIONS:
            now = self._clock()
            self._sessions = {t: s for t, s in self._sessions.items() if s.expires > now}
        token = secrets.token_urlsafe(32)
        self._sessions[token] = Session(user, self._clock() + self.session_s)
        return token, ""

    def cookie_options(self) -> dict[str, Any]:
        return {
            "httponly": True,
            "samesite": "Strict",
            "secure": self.secure,
            "path": "/",
            "max_age": int(self.session_s),
        }


def certificate_user(peercert: Any) -> str | None:
    """The common name of a verified client certificate (ssl's getpeercert() shape)."""
    if not isinstance(peercert, dict):
        return None
    for rdn in peercert.get("subject", ()):
        for name, value in rdn:
            if name == "commonName" and isinstance(value, str) and value:
                return value
    return None
