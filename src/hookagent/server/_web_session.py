"""A browser's sign-in: a signed cookie naming the token it signed in with (its id, never
its secret) and the session's CSRF token, which every form posts back in a hidden field.

The signing key is made when the app is, so a restarted server signs everyone out. The
cookie is HttpOnly and SameSite=Strict; `Secure` too when the page came over HTTPS."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Final

from fastapi import Request, Response

from hookagent.store import _tokens as tokens
from hookagent.store._records import TokenRecord

__all__ = ["COOKIE", "LOGIN_COOKIE", "WebSession", "login_nonce", "read", "sign_in", "sign_out"]

COOKIE: Final = "hookagent_session"
LOGIN_COOKIE: Final = "hookagent_login"
"""Before signing in: a nonce the login form posts back, so no other site can sign a
browser in (its cross-site post carries no SameSite=Strict cookie)."""
LIFETIME: Final = 12 * 3600
"""Seconds a sign-in lasts."""


@dataclass(frozen=True)
class WebSession:
    token: TokenRecord
    csrf: str


def _key(request: Request) -> bytes:
    key: bytes = request.app.state.session_key
    return key


def _mac(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode(), hashlib.sha256).hexdigest()


def sign_in(request: Request, response: Response, token: TokenRecord) -> None:
    fields = {"t": token.id, "c": secrets.token_urlsafe(24), "e": time.time() + LIFETIME}
    body = base64.urlsafe_b64encode(json.dumps(fields).encode()).decode()
    response.set_cookie(
        COOKIE,
        f"{body}.{_mac(_key(request), body)}",
        max_age=LIFETIME,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    response.delete_cookie(LOGIN_COOKIE, httponly=True, samesite="strict")


def login_nonce(request: Request, response: Response, nonce: str) -> None:
    """Keep the nonce the login form carries in its own cookie, for 10 minutes."""
    response.set_cookie(
        LOGIN_COOKIE,
        nonce,
        max_age=600,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def sign_out(response: Response) -> None:
    response.delete_cookie(COOKIE, httponly=True, samesite="strict")


async def read(request: Request) -> WebSession | None:
    """The session of the request's cookie, or None: no cookie, a forged or expired one, or
    its token revoked since."""
    cookie = request.cookies.get(COOKIE, "")
    body, _, mac = cookie.partition(".")
    if not body or not hmac.compare_digest(mac, _mac(_key(request), body)):
        return None
    try:
        fields = json.loads(base64.urlsafe_b64decode(body))
        token_id, csrf, expiry = str(fields["t"]), str(fields["c"]), float(fields["e"])
    except (ValueError, KeyError, TypeError):
        return None
    if expiry < time.time():
        return None
    found = next((t for t in await tokens.live(request.app.state.store) if t.id == token_id), None)
    return None if found is None else WebSession(found, csrf)
