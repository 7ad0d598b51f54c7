"""Run a Claude Code `http` handler: POST the event, read the answer like a command's stdout.

The body is the JSON a command hook reads on stdin, sent with `Content-Type:
application/json` and the handler's `headers`, whose `$VAR`/`${VAR}` expand only for names
in `allowedEnvVars` (any other becomes "", as in Claude Code). What comes back is a
`ProcessOutcome`, so `output.read_verdict` reads it exactly as it reads a command hook:
a 2xx with an empty body is exit 0 with no output; a 2xx whose body is a JSON object is
exit 0 with that stdout; any other 2xx body, a non-2xx status (redirects are not followed),
a connection failure or the timeout is a failure (exit code None) with its error, which
`onFailure` may turn into a block. The body is kept like a command's stdout: its first
`output_cap` bytes in memory, all of it in the run's folder when longer. httpx2 is imported
only when an http handler runs.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from time import perf_counter
from typing import Any, Final

from hookagent.claude._capture import OutputCapture
from hookagent.claude._model import HandlerSpec, ProcessOutcome
from hookagent.claude._runner import stdin_line

__all__ = ["expand_headers", "run_http"]

_VAR: Final = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand_headers(spec: HandlerSpec, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """`spec`'s headers with each `$VAR`/`${VAR}` replaced: by its value (or "") when listed
    in `allowedEnvVars`, by "" otherwise; then trimmed of surrounding blanks."""
    host = os.environ if env is None else env
    allowed = frozenset(spec.allowed_env_vars)

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return host.get(name, "") if name in allowed else ""

    # trimmed, as fetch normalizes a header value: "Bearer $UNSET" is sent as "Bearer"
    return {name: _VAR.sub(value, text).strip() for name, text in spec.headers}


async def run_http(
    spec: HandlerSpec,
    payload: Mapping[str, Any],
    *,
    timeout: float,  # noqa: ASYNC109  # the hook's limit, enforced on the request
    output_cap: int = 10_000_000,
    spill_dir: str | None = None,
) -> ProcessOutcome:
    """POST `payload` to `spec.url` and read the response, within `timeout` seconds."""
    import httpx2

    if spec.url is None:
        raise ValueError(f"{spec.label}: an http handler has no url")
    started = perf_counter()
    body = OutputCapture(output_cap, spill_dir, f"hook-{spec.event}-http")
    headers = {**expand_headers(spec), "Content-Type": "application/json"}
    status = 0
    try:
        async with asyncio.timeout(timeout), httpx2.AsyncClient(timeout=None) as client:
            request = client.build_request(
                "POST", spec.url, headers=headers, content=stdin_line(payload)
            )
            response = await client.send(request, stream=True)
            try:
                status = response.status_code
                if 200 <= status < 300:
                    await body.consume(response.aiter_bytes())
            finally:
                await response.aclose()
    except TimeoutError:
        await body.remove_spill()
        return _failed(f"timed out after {timeout:g} s", started, timed_out=True)
    except httpx2.HTTPError as exc:
        await body.remove_spill()
        return _failed(
            f"HTTP hook request to {spec.url} failed: {exc or type(exc).__name__}", started
        )
    if not 200 <= status < 300:
        return _failed(f"HTTP hook answered {status} from {spec.url}", started)
    text = body.text()
    if text.strip() and text.lstrip()[:1] != "{":
        await body.remove_spill()
        message = f"HTTP hook answered {status} with a body that is not a JSON object: unused"
        return _failed(message, started)
    return ProcessOutcome(
        exit_code=0,
        stdout=text,
        stdout_file=body.spill_path,
        stdout_bytes=body.total,
        duration_ms=_ms_since(started),
    )


def _failed(error: str, started: float, *, timed_out: bool = False) -> ProcessOutcome:
    return ProcessOutcome(
        exit_code=None, error=error, timed_out=timed_out, duration_ms=_ms_since(started)
    )


def _ms_since(started: float) -> float:
    return (perf_counter() - started) * 1000
