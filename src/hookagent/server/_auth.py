"""Who calls: a bearer token from the store, checked on every endpoint against the role the
endpoint needs (`viewer` reads, `approver` answers, `admin` may do all).

A browser signed in at /ui/login (`web_session`) may read with its cookie too, but only
read: whatever changes something needs the bearer token, or a page's form with its CSRF
token.

There is no anonymous access, on a loopback address either: any local user, and any web
page through the browser of one, can reach a loopback port.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Final

from fastapi import Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hookagent.server import _web_session as web_session
from hookagent.server._problems import Problem
from hookagent.store import _tokens as tokens
from hookagent.store._base import Store
from hookagent.store._records import TokenRecord, TokenRole

__all__ = ["Approver", "Viewer", "require", "store_of"]

_BEARER: Final = HTTPBearer(auto_error=False, description="A token of `hookagent tokens create`.")
_CHALLENGE: Final = {"WWW-Authenticate": 'Bearer realm="hookagent"'}


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def require(needed: TokenRole) -> Callable[..., Awaitable[TokenRecord]]:
    """A dependency giving the caller's token, or a 401 (no token, or not a live one) or a
    403 (a role below `needed`) problem."""

    async def caller(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Security(_BEARER)],
    ) -> TokenRecord:
        if credentials is None and needed == "viewer" and request.method == "GET":
            signed_in = await web_session.read(request)  # a page's EventSource sends no header
            if signed_in is not None:
                return signed_in.token
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise Problem(
                401,
                "a bearer token is needed (Authorization: Bearer TOKEN); "
                "`hookagent tokens create --role viewer|approver|admin` makes one",
                headers=_CHALLENGE,
            )
        token = await tokens.verify(store_of(request), credentials.credentials.strip())
        if token is None:
            raise Problem(401, "the bearer token is unknown or revoked", headers=_CHALLENGE)
        if not tokens.allows(token.role, needed):
            raise Problem(
                403, f"token {token.name!r} is a {token.role}; this needs an {needed} or admin"
            )
        return token

    return caller


Viewer = Annotated[TokenRecord, Depends(require("viewer"))]
Approver = Annotated[TokenRecord, Depends(require("approver"))]
