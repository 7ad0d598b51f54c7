"""The inbox in a browser, under /ui (and / leads there): sign in with a token, the waiting
questions with approve/deny forms, a run's live timeline. Pages read the store as the JSON
endpoints do and answer through the same `answer_question`; every form post carries the
session's CSRF token, checked, and a wrong or missing one is a 403 problem."""

from __future__ import annotations

import hmac
import secrets
from importlib.resources import files
from typing import Final
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from hookagent.durable._answering import StaleQuestion
from hookagent.server import _web_session as web_session
from hookagent.server._auth import store_of
from hookagent.server._pages import inbox_page, login_page, run_page
from hookagent.server._problems import Problem, known
from hookagent.server._source import Reply, source_of
from hookagent.server._streams import INBOX_WINDOW
from hookagent.server._web_session import WebSession
from hookagent.store import _tokens as tokens

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
_STATIC: Final = {
    "style.css": "text/css",
    "inbox.js": "text/javascript",
    "run.js": "text/javascript",
}
_HEADERS: Final = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_DONE: Final = {"approve": "Approved.", "deny": "Denied."}


def _html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=_HEADERS)


def _to(path: str) -> RedirectResponse:
    return RedirectResponse(path, status_code=303)


async def _form(request: Request) -> dict[str, str]:
    """A urlencoded form body (the only kind the pages post), one value a field."""
    text = (await request.body()).decode("utf-8", "replace")
    return {key: values[-1] for key, values in parse_qs(text).items()}


async def _checked(request: Request) -> tuple[WebSession, dict[str, str]]:
    """The signed-in session of a form post and its fields; 403 without a session or with
    a CSRF token other than the session's."""
    signed_in = await web_session.read(request)
    if signed_in is None:
        raise Problem(403, "not signed in (or the sign-in lapsed): sign in at /ui/login")
    form = await _form(request)
    if not hmac.compare_digest(form.get("csrf", ""), signed_in.csrf):
        raise Problem(403, "the form's CSRF token is missing or wrong: reload the page")
    return signed_in, form


@router.get("/")
async def root() -> RedirectResponse:
    return _to("/ui")


def _login(request: Request, message: str | None = None, status: int = 200) -> HTMLResponse:
    nonce = secrets.token_urlsafe(24)
    response = _html(login_page(nonce, message), status)
    web_session.login_nonce(request, response, nonce)
    return response


@router.get("/ui/login")
async def login_form(request: Request) -> HTMLResponse:
    return _login(request)


@router.post("/ui/login")
async def login(request: Request) -> Response:
    form = await _form(request)
    nonce = request.cookies.get(web_session.LOGIN_COOKIE, "")
    if not nonce or not hmac.compare_digest(form.get("csrf", ""), nonce):
        raise Problem(403, "the login form's CSRF token is missing or wrong: reload /ui/login")
    token = await tokens.verify(store_of(request), form.get("token", "").strip())
    if token is None:
        return _login(request, "That token is unknown or revoked.", 401)
    response = _to("/ui")
    web_session.sign_in(request, response, token)
    return response


@router.post("/ui/logout")
async def logout(request: Request) -> Response:
    await _checked(request)
    response = _to("/ui/login")
    web_session.sign_out(response)
    return response


@router.get("/ui")
async def inbox(request: Request, done: str | None = None) -> Response:
    signed_in = await web_session.read(request)
    if signed_in is None:
        return _to("/ui/login")
    return await _inbox(request, signed_in, _DONE.get(done or ""))


async def _inbox(
    request: Request, signed_in: WebSession, message: str | None, status: int = 200
) -> HTMLResponse:
    items, _ = await source_of(request).inbox(INBOX_WINDOW, rewrites=True)
    token = signed_in.token
    page = inbox_page(
        items,
        csrf=signed_in.csrf,
        who=f"{token.name} ({token.role})",
        can_answer=tokens.allows(token.role, "approver"),
        message=message,
    )
    return _html(page, status)


@router.get("/ui/runs/{run_id}")
async def run(request: Request, run_id: str) -> Response:
    signed_in = await web_session.read(request)
    if signed_in is None:
        return _to("/ui/login")
    found = known(await source_of(request).run(run_id), f"run {run_id!r}")
    who = f"{signed_in.token.name} ({signed_in.token.role})"
    return _html(run_page(found, csrf=signed_in.csrf, who=who))


@router.post("/ui/questions/{question_id:path}/answer")
async def answer(request: Request, question_id: str) -> Response:
    signed_in, form = await _checked(request)
    token = signed_in.token
    if not tokens.allows(token.role, "approver"):
        raise Problem(403, f"token {token.name!r} is a {token.role}; answering needs an approver")
    decision, scope = form.get("decision"), form.get("scope", "once")
    if decision not in _DONE or scope not in ("once", "run", "session"):
        raise Problem(422, "decision must be approve or deny, scope once, run or session")
    try:
        reply = Reply(
            approved=decision == "approve",
            scope=scope if decision == "approve" else "once",  # type: ignore[arg-type]
            reason=form.get("reason") or None,
            ttl=None,
            by=f"web:{token.name}",
            seen=form.get("fingerprint") or None,
        )
        await source_of(request).answer(question_id, reply)
    except StaleQuestion as exc:
        return await _inbox(request, signed_in, str(exc), 409)
    return _to(f"/ui?done={decision}")


@router.get("/ui/static/{name}")
async def static(name: str) -> Response:
    if name not in _STATIC:
        raise Problem(404, f"no file {name!r}")
    body = files("hookagent.server").joinpath("static", name).read_bytes()
    return Response(body, media_type=_STATIC[name], headers={"Cache-Control": "no-cache"})
