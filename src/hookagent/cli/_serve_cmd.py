"""`hookagent serve`: the HTTP API (`hookagent.server`) over a store, with uvicorn.

With `--temporal HOST:PORT`, the runs are those of a Temporal server (`hookagent temporal
worker`'s): the store keeps the tokens only.

Secure by default: every request needs a bearer token (`hookagent tokens`), and a server
on an address other than loopback is refused while the store has no live token. The socket
is bound before the server starts, so a taken port is an error naming it, and `--port 0`
takes a free port, which the ready line names.
"""

from __future__ import annotations

import ipaddress
import json
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hookagent._errors import ConfigError
from hookagent.cli._notify_option import NotifyInboxOpt, NotifyOpt, notified, notifier
from hookagent.cli._shared_options import StoreOpt, temporal_option
from hookagent.cli._store_access import existing, guard

if TYPE_CHECKING:
    from hookagent.capabilities.notify import Notify
    from hookagent.store._base import Store

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add `serve` and `tokens` to the `hookagent` command."""
    from hookagent.cli._tokens_cmd import tokens_app

    app.command("serve")(serve)
    app.add_typer(tokens_app, name="tokens")


def serve(
    store: StoreOpt = None,
    host: Annotated[
        str, typer.Option(help="The address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="The port (0: any free one).")] = 8765,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the ready line as one JSON object.")
    ] = False,
    files_root: Annotated[
        Path | None,
        typer.Option(
            metavar="DIR",
            help="Let requests name files under DIR (settings and plugins to replay under, "
            "audit files to verify); without it the server reads none.",
        ),
    ] = None,
    notify: NotifyOpt = None,
    notify_inbox: NotifyInboxOpt = None,
    temporal: Annotated[
        str | None,
        temporal_option(
            "Serve the runs of this Temporal server (the store keeps the tokens only)."
        ),
    ] = None,
    namespace: Annotated[
        str | None, typer.Option(metavar="NS", help="With --temporal: its namespace.")
    ] = None,
    task_queue: Annotated[
        str | None,
        typer.Option(metavar="Q", help="With --temporal: only the runs of this task queue."),
    ] = None,
) -> None:
    """Serve the store's sessions, runs and waiting questions over HTTP; Ctrl-C stops it.

    Every endpoint needs a token (hookagent tokens create) but /health and /openapi.json."""
    on = Temporal(temporal, namespace or "default", task_queue) if temporal else None

    def go() -> int:
        import asyncio

        for flag, given in (("--namespace", namespace), ("--task-queue", task_queue)):
            if given is not None and temporal is None:
                raise ConfigError(f"{flag} is for runs on Temporal: give --temporal HOST:PORT")
        for flag, urls in (("--notify", notify), ("--notify-inbox", notify_inbox)):
            if urls and temporal is not None:
                raise ConfigError(
                    f"{flag} is for the runs the server resumes, which it does not on "
                    "Temporal: leave it out (the workers' runs ask through their own hooks)"
                )
        notice = notifier(
            notify, notify_inbox, lambda failed: typer.echo(f"warning: {failed}", err=True)
        )
        try:
            return asyncio.run(
                _serve(store, host, port, json_output, _directory(files_root), notice, on)
            )
        except KeyboardInterrupt:  # uvicorn stopped on Ctrl-C, then passed the signal on
            return 0

    code = guard(go)
    if on is not None:  # a Temporal client must not be torn down with the interpreter
        from hookagent.cli._temporal_server import exit_now

        exit_now(code)
    raise typer.Exit(code)


@dataclass(frozen=True, slots=True)
class Temporal:
    """The Temporal server whose runs are served."""

    address: str
    namespace: str
    task_queue: str | None


def _directory(given: Path | None) -> Path | None:
    if given is not None and not given.is_dir():
        raise ConfigError(f"--files-root {given}: no such directory")
    return given


async def _serve(
    store_url: str | None,
    host: str,
    port: int,
    json_output: bool,
    files_root: Path | None,
    notify: Notify | None,
    on: Temporal | None,
) -> int:
    try:
        import uvicorn

        from hookagent.server import create_app
    except ImportError as exc:
        raise ConfigError(
            f"hookagent serve needs the server extra ({exc.name} is missing): "
            "pip install 'hookagent[server]'"
        ) from exc
    store = existing(store_url)
    client = None
    if on is not None:
        from hookagent.cli._temporal_server import reach

        client = await reach(on.address, on.namespace)
    await store.open()
    try:
        await _check_access(store, host)
        sock = _bind(host, port)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}"
        served = f"temporal:{on.address}/{on.namespace}" if on is not None else store.url
        if json_output:
            ready = {"url": url, "store": store.url, "openapi": f"{url}/openapi.json"}
            typer.echo(json.dumps(ready | ({"runs": served} if on is not None else {})))
        else:
            tokens = f" (tokens: {store.url})" if on is not None else ""
            typer.echo(f"serving {served}{tokens} at {url} (OpenAPI schema: {url}/openapi.json)")
        app = create_app(
            store,
            files_root=files_root,
            notify=notify,
            temporal=client,
            task_queue=on.task_queue if on is not None else None,
        )
        config = uvicorn.Config(
            app,
            log_level="info",
            server_header=False,
            lifespan="off",
        )
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await notified(notify)  # the messages of the runs it resumed, still in flight
        await store.close()
    return 0


async def _check_access(store: Store, host: str) -> None:
    """Refuse an address others reach while no token can authenticate anyone."""
    from hookagent.store import _tokens as tokens

    if await tokens.live(store):
        return
    if not loopback(host):
        raise ConfigError(
            f"--host {host} is reachable from other machines and {store.url} has no token, "
            "so no one could be told apart: create one first (hookagent tokens create "
            "--role admin), or serve on 127.0.0.1"
        )
    typer.echo(
        f"warning: {store.url} has no token: every request will be refused (401) until "
        "one is made with hookagent tokens create --role viewer|approver|admin",
        err=True,
    )


def loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only: `localhost` or a loopback
    address (a name is not resolved: it could change)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"--host {host} --port {port}: cannot listen there: {exc}") from exc
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
