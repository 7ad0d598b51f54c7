"""An MCP server's `elicitation/create` request, routed through the run's hooks and approver.

While a tool of a server runs, a request it makes for the user's input fires `elicitation`
(`ElicitationEvent`; a Claude Code `Elicitation` hook sees it as such). A hook answers for the
user by setting `action` and `content`, or declines with `block`. Otherwise the MCP
capability's own hook, which runs last, asks a human through the run's approver: approved is
`accept` (with the form's schema defaults, or what a hook put in `content`), denied is
`decline`, and a run with no approver declines with its reason recorded in the run's
decisions. A run kept in a store declines too (`KEPT_RUN`): its questions pause the run to be
answered later, but the server waits on the live call. `elicitation_result` then sees the
answer and may change it or `block` it (declined) before it goes back to the server. A
request outside any tool call is declined.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from mcp import types

from hookagent.hooks._events import ElicitationEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import ELICITATION, ELICITATION_RESULT
from hookagent.hooks._result import HookResult
from hookagent.kernel._view import RunView
from hookagent.mcp_client._client import Elicit

__all__ = ["ASK_PRIORITY", "KEPT_RUN", "ask_hook", "elicitation_handler"]

log = logging.getLogger("hookagent.mcp")

ASK_PRIORITY: Final = -1_000_000
"""The asking hook runs after every hook that might answer instead."""
_ACTIONS: Final = frozenset({"accept", "decline", "cancel"})
KEPT_RUN: Final = (
    "a run kept in a store cannot pause for an MCP server's question: the server waits on the "
    "live call; answer it with an elicitation (Claude Code: Elicitation) hook"
)
"""Why the request is declined in a run kept in a store."""


def ask_hook() -> Hook[ElicitationEvent]:
    """The hook that asks a human when no other hook answered the server."""
    return make_hook(ELICITATION, _ask, name="ask-user", source="mcp", priority=ASK_PRIORITY)


def _ask(event: ElicitationEvent) -> HookResult:
    if event.action is not None:
        return HookResult.proceed()
    if event.run.session_id is not None:
        return HookResult.block(KEPT_RUN)
    origin = f" (during {event.tool_name})" if event.tool_name else ""
    return HookResult.ask(f"MCP server {event.server!r} asks{origin}: {event.message}")


def elicitation_handler(run: RunView, call_id: str | None, tool_name: str | None) -> Elicit:
    """Answers the server's requests made during call `call_id` of `run`."""

    async def elicit(server: str, params: types.ElicitRequestParams) -> types.ElicitResult:
        event = ElicitationEvent(
            run=run,
            server=server,
            message=params.message,
            mode=params.mode or "form",
            requested_schema=_schema(params),
            url=getattr(params, "url", None),
            elicitation_id=getattr(params, "elicitation_id", None),
            call_id=call_id,
            tool_name=tool_name,
        )
        try:
            decision, event = await run.fire(ELICITATION, event)
            if decision.outcome in ("block", "stop"):
                event = _answered(event, "decline", None)
            elif event.action is None:  # the asking hook's question was approved
                event = _answered(event, "accept", event.content or _defaults(event))
            decision, event = await run.fire(ELICITATION_RESULT, event)
            if decision.outcome in ("block", "stop"):
                event = _answered(event, "decline", None)
        except Exception as exc:  # the server's request must get an answer
            log.warning("MCP server %r: its request for input was declined: %s", server, exc)
            return types.ElicitResult(action="decline")
        return _result(event)

    return elicit


def _answered(
    event: ElicitationEvent, action: str, content: Mapping[str, Any] | None
) -> ElicitationEvent:
    from dataclasses import replace

    return replace(event, action=action, content=content)


def _schema(params: types.ElicitRequestParams) -> dict[str, Any]:
    schema = getattr(params, "requested_schema", None)
    if schema is None:
        return {}
    return dict(schema) if isinstance(schema, Mapping) else dict(schema.model_dump())


def _defaults(event: ElicitationEvent) -> dict[str, Any]:
    properties = event.requested_schema.get("properties") or {}
    return {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and "default" in spec
    }


def _result(event: ElicitationEvent) -> types.ElicitResult:
    action = event.action if event.action in _ACTIONS else "decline"
    content = dict(event.content) if action == "accept" and event.content is not None else None
    return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]
