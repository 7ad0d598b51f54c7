"""`--notify URL` and `--notify-inbox URL` of `hookagent run` and `hookagent worker`: each
question a run asks a human is POSTed to the webhooks (`capabilities.notify`), linking to
the inbox page of `hookagent serve`. A process waits for its messages before it exits; one
that failed for good is printed as a warning (or logged by the worker)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent.capabilities.notify import Delivery, Notify
    from hookagent.sessions._agent_spec import RunOptions

__all__ = ["NotifyInboxOpt", "NotifyOpt", "notified", "notifier", "with_notify"]

NotifyOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--notify",
        metavar="URL",
        help="POST each question a run asks a human to this webhook, as JSON with a "
        "Slack-compatible text (retried with backoff; the run never waits for it). "
        "Repeatable.",
    ),
]
NotifyInboxOpt = Annotated[
    str | None,
    typer.Option(
        "--notify-inbox",
        metavar="URL",
        help="The inbox page of `hookagent serve` (e.g. http://host:8765/ui) that --notify "
        "messages link to, at the question.",
    ),
]


def notifier(
    urls: Sequence[str] | None, inbox: str | None, report: Callable[[Delivery], None]
) -> Notify | None:
    """The `Notify` the options ask for (None without `--notify`); a `ConfigError` naming
    the option for a URL that is not http(s), or `--notify-inbox` alone."""
    if not urls:
        if inbox is not None:
            raise ConfigError(
                "links the messages of --notify, which is not given", key="--notify-inbox"
            )
        return None
    from hookagent.capabilities.notify import Notify, check_url

    checked = [check_url(url, key="--notify") for url in urls]
    link = check_url(inbox, key="--notify-inbox") if inbox is not None else None
    return Notify(checked, inbox_url=link, on_failure=report)


def with_notify(
    options: RunOptions, urls: Sequence[str] | None, inbox: str | None, command: str | None
) -> RunOptions:
    """`options` with the `Notify` of `hookagent run`, whose failures print as warnings.
    `submit` refuses the options: a queued run asks in the worker that takes it up."""
    if command == "submit" and (urls or inbox is not None):
        raise ConfigError(
            "a queued run asks its questions in the worker that takes it up: give "
            "--notify to `hookagent worker`",
            key="--notify" if urls else "--notify-inbox",
        )
    notify = notifier(urls, inbox, lambda failed: typer.echo(f"warning: {failed}", err=True))
    return replace(options, notify=notify) if notify is not None else options


async def notified(notify: Notify | None) -> None:
    """Wait for the messages still in flight (each bounded by its retries)."""
    if notify is not None:
        await notify.drain()
