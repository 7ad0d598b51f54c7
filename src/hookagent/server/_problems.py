"""Every error as an RFC 9457 problem (`application/problem+json`: type, title, status,
detail), never a traceback: what went wrong and, where it helps, what to do."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, Final, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from hookagent._errors import StoreError
from hookagent.durable._answering import StaleQuestion
from hookagent.durable._sessions import WrongState

__all__ = ["MEDIA_TYPE", "Problem", "install", "known", "problem_response"]

MEDIA_TYPE: Final = "application/problem+json"
_LOG = logging.getLogger("hookagent.server")


class Problem(Exception):
    """An error a handler raises to answer with `status` and `detail`."""

    def __init__(self, status: int, detail: str, *, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers


_T = TypeVar("_T")


def known(found: _T | None, what: str) -> _T:
    """`found`, or a 404 saying there is no `what` (`run 'r1'`)."""
    if found is None:
        raise Problem(404, f"no {what}")
    return found


def problem_response(
    status: int,
    detail: str,
    *,
    headers: Mapping[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    body = {
        "type": "about:blank",  # RFC 9457 4.2.1: the status says it all, titled by its phrase
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        **(extra or {}),
    }
    return JSONResponse(body, status_code=status, headers=headers, media_type=MEDIA_TYPE)


def install(app: FastAPI) -> None:
    """Answer every error the app can meet as a problem."""

    async def problem(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Problem)
        return problem_response(exc.status, exc.detail, headers=exc.headers)

    async def http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, HTTPException)
        detail = exc.detail if isinstance(exc.detail, str) else ""
        if detail in ("", HTTPStatus(exc.status_code).phrase):  # Starlette's own: say where
            detail = (
                f"{HTTPStatus(exc.status_code).phrase}: {request.method} {request.url.path} "
                "(/openapi.json lists the endpoints)"
            )
        return problem_response(exc.status_code, detail, headers=exc.headers)

    async def invalid(_: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {"where": ".".join(str(part) for part in e.get("loc", ())), "message": e.get("msg")}
            for e in exc.errors()
        ]
        text = "; ".join(f"{e['where']}: {e['message']}" for e in errors)
        return problem_response(422, f"the request is not valid: {text}", extra={"errors": errors})

    async def stale(_: Request, exc: Exception) -> JSONResponse:
        return problem_response(409, str(exc))

    async def store(request: Request, exc: Exception) -> JSONResponse:
        _LOG.error("%s %s: the store failed: %s", request.method, request.url.path, exc)
        return problem_response(503, "the store failed; the server's log says why")

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        _LOG.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return problem_response(500, "the server failed; its log says why")

    app.add_exception_handler(Problem, problem)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StaleQuestion, stale)
    app.add_exception_handler(WrongState, stale)
    app.add_exception_handler(StoreError, store)
    app.add_exception_handler(Exception, unexpected)
