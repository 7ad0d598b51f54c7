"""Reaching a Temporal server from a command: `on_server` runs a coroutine with a client
and turns what the server refuses into a `ConfigError`; `exit_now` ends a process that holds
a client. asyncio and temporalio are imported when a command runs, so `hookagent --help`
pays for neither."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from temporalio.client import Client

T = TypeVar("T")

__all__ = ["exit_now", "on_server", "reach", "run_async"]


def exit_now(code: int) -> NoReturn:
    """End the process with `code` without tearing the interpreter down: the Temporal
    client's Rust threads may still call into Python while it finalizes, which aborts a
    short-lived client process (temporalio/sdk-python#300)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def on_server(address: str, main: Callable[[Client], Awaitable[T]], run_id: str | None = None) -> T:
    """`main` with a client of the server at `address`; what the server refuses (no such
    run, an answer that cannot apply) is a `ConfigError` naming the run or the server."""
    from temporalio.client import WorkflowUpdateFailedError
    from temporalio.service import RPCError

    async def go() -> T:
        return await main(await reach(address))

    try:
        return run_async(go())
    except WorkflowUpdateFailedError as exc:
        raise ConfigError(str(exc.cause or exc), key=f"run {run_id}") from exc
    except RPCError as exc:
        raise ConfigError(exc.message, key=f"run {run_id}" if run_id else address) from exc


async def reach(address: str, namespace: str = "default") -> Client:
    """A client of the server at `address` (in `namespace`), or a `ConfigError` saying it
    cannot be reached."""
    from hookagent.temporal._client import connect

    try:
        return await connect(address, namespace)
    except RuntimeError as exc:  # what the SDK raises when the connection fails
        raise ConfigError(f"cannot reach a Temporal server there ({exc})", key=address) from exc


def run_async(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, imported when a command runs: `hookagent --help` does not pay for it."""
    import asyncio

    return asyncio.run(main)
