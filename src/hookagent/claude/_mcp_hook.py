"""Run a Claude Code `mcp_tool` handler: call a configured MCP server's tool, read its text.

The arguments are the handler's `input` with every `${path}` in a string value replaced by
that dotted path of the event JSON (a missing path becomes "", a non-string value its JSON),
or the event JSON itself when the handler has no `input`. A server given as an open
`ServerConnection` (the run's) is called over it; otherwise each call opens its own
connection (a stdio server is started and stopped around it), within the handler's timeout.
The tool's text content is a `ProcessOutcome` with exit 0, so `output.read_verdict` reads it
as command stdout (a JSON object, or plain text); a result with `isError`, a server that
cannot be reached and the timeout are failures (exit code None), which `onFailure` may turn
into a block. The MCP SDK is imported only when such a handler runs.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping
from time import perf_counter
from typing import TYPE_CHECKING, Any, Final

from hookagent.claude._model import HandlerSpec, ProcessOutcome

if TYPE_CHECKING:
    from hookagent.mcp_client._client import ServerConnection
    from hookagent.mcp_client._config import ServerConfig

__all__ = ["build_input", "run_mcp_tool"]

_REF: Final = re.compile(r"\$\{([^{}]+)\}")


def build_input(spec: HandlerSpec, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The tool's arguments: `spec`'s `input` with `${path}` references to `payload`
    substituted, or `payload` when the handler has none."""
    if spec.tool_input is None:
        return dict(payload)
    template: dict[str, Any] = json.loads(spec.tool_input)
    return {key: _substitute(value, payload) for key, value in template.items()}


def _substitute(value: object, payload: Mapping[str, Any]) -> object:
    if isinstance(value, str):
        return _REF.sub(lambda match: _lookup(payload, match.group(1).strip()), value)
    if isinstance(value, list):
        return [_substitute(item, payload) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, payload) for key, item in value.items()}
    return value


def _lookup(payload: Mapping[str, Any], path: str) -> str:
    found: object = payload
    for part in path.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return ""
        found = found[part]
    return found if isinstance(found, str) else json.dumps(found)


async def run_mcp_tool(
    spec: HandlerSpec,
    payload: Mapping[str, Any],
    server: ServerConfig | ServerConnection,
    *,
    timeout: float,  # noqa: ASYNC109  # the hook's limit, enforced on connect and call
) -> ProcessOutcome:
    """Call `spec.tool` on `server` with the handler's input, within `timeout` seconds."""
    from hookagent.mcp_client._client import CallFailed, ServerConnection, describe

    started = perf_counter()
    name = f"{spec.server}/{spec.tool}"
    shared = server if isinstance(server, ServerConnection) and server.is_open else None
    config = server.config if isinstance(server, ServerConnection) else server
    connection = shared or ServerConnection(spec.server or "", config)
    try:
        async with asyncio.timeout(timeout):
            try:
                if shared is None:
                    await connection.open()
                result = await connection.call(spec.tool or "", build_input(spec, payload))
            finally:
                if shared is None:
                    await connection.close()
    except TimeoutError:
        return _failed(f"MCP tool {name} timed out after {timeout:g} s", started, timed_out=True)
    except CallFailed as exc:
        return _failed(f"MCP tool {name} failed: {exc}", started)
    except Exception as exc:  # a server that cannot start or connect is the hook's failure
        return _failed(f"MCP server {spec.server!r} could not be reached: {describe(exc)}", started)
    text = "\n".join(block.text for block in result.content if block.type == "text")
    if result.is_error:
        return _failed(f"MCP tool {name} returned an error: {text or 'no text'}", started)
    encoded = text.encode()
    return ProcessOutcome(
        exit_code=0, stdout=text, stdout_bytes=len(encoded), duration_ms=_ms_since(started)
    )


def _failed(error: str, started: float, *, timed_out: bool = False) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=None, error=error, timed_out=timed_out, duration_ms=_ms_since(started)
    )


def _ms_since(started: float) -> float:
    return (perf_counter() - started) * 1000
