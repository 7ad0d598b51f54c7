"""A request body larger than the limit is refused with 413 before it is read whole: by its
`Content-Length` at once, or, sent in chunks, as soon as the chunks pass the limit."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hookagent.server._problems import problem_response

__all__ = ["BodyLimit"]


class BodyLimit:
    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and not declared.isdigit():
            await problem_response(400, "the Content-Length header is not a number")(
                scope, receive, send
            )
            return
        if declared is not None and int(declared) > self.limit:
            await problem_response(413, self._detail())(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise HTTPException(413, self._detail())
            return message

        await self.app(scope, limited, send)

    def _detail(self) -> str:
        return f"the request body is larger than {self.limit} bytes"
