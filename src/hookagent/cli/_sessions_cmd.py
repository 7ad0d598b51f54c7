"""Durable sessions from the command line: `hookagent run --session`, and what comes after.

- `sessions ls | show | fork`: list the store's sessions, look into one, branch one off;
- `approve` / `deny`: answer the questions a waiting run asked (`--resume` to go on at once);
- `resume`: take a paused or interrupted run up again where it stopped;
- `worker`: take up every runnable run of the store (answered, queued, or orphaned by a
  worker that died), one after another.

The commands here only parse their options: `session_runs` starts, answers and resumes runs,
`worker_cmd` is the worker's loop, `session_views` prints (text or `--json`), and
`store_access` opens the store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Final, NamedTuple, NoReturn

import typer

from hookagent._errors import ConfigError
from hookagent.cli._groups import command_group
from hookagent.cli._json_out import emit_json
from hookagent.cli._notify_option import NotifyInboxOpt, NotifyOpt
from hookagent.cli._session_views import (
    detail_dict,
    plain_console,
    print_detail,
    print_sessions,
    session_dict,
)
from hookagent.cli._shared_options import JsonOpt, ScopeOpt, StoreOpt
from hookagent.cli._store_access import existing, guard, in_store, missing, open_at
from hookagent.cli._temporal_answers import TemporalOpt
from hookagent.sessions._validate import positive_number

if TYPE_CHECKING:
    from hookagent.durable._answers import Scope

__all__ = ["register", "sessions_app"]

_SCOPES: Final[Mapping[str, Scope]] = {"once": "once", "run": "run", "session": "session"}

sessions_app = command_group("Sessions kept in a store: list, inspect, fork.")

SessionKey = Annotated[
    str, typer.Argument(metavar="ID", help="A session (id or name) or a run id.")
]
RunKey = Annotated[str, typer.Argument(metavar="ID", help="A run id, or a session (id or name).")]
CallArg = Annotated[
    str | None,
    typer.Argument(metavar="CALL", help="Only the question about this tool call id."),
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Resume the run right away, as `hookagent resume` does.")
]


def register(app: typer.Typer) -> None:
    """Add `sessions`, `approve`, `deny`, `resume`, `worker` and `replay` to the `hookagent`
    command."""
    app.add_typer(sessions_app, name="sessions")
    app.command("approve")(approve)
    app.command("deny")(deny)
    app.command("resume")(resume)
    app.command("worker")(worker)
    from hookagent.cli._replay_cmd import replay_command

    app.command("replay")(replay_command)


# -- sessions ls / show / fork ----------------------------------------------------------------
@sessions_app.command("ls")
def ls(
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Sessions to list.")] = 50,
    json_output: JsonOpt = False,
) -> None:
    """List sessions, the most recently updated first."""

    def go() -> int:
        opened = open_at(store)
        found = [] if missing(opened) else in_store(opened, lambda s: s.sessions(limit=limit))
        if json_output:
            emit_json([session_dict(s) for s in found])
        elif not found:
            typer.echo(f"no sessions in {opened.url}")
        else:
            print_sessions(plain_console(), found)
        return 0

    raise typer.Exit(guard(go))


@sessions_app.command("show")
def show(
    key: SessionKey,
    store: StoreOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A session: its runs, its newest run's messages, steps and decisions, open questions."""

    from hookagent.durable._sessions import inspect

    def go() -> int:
        detail = in_store(existing(store), lambda s: inspect(s, key))
        if json_output:
            emit_json(detail_dict(detail))
        else:
            print_detail(plain_console(), detail, store)
        return 0

    raise typer.Exit(guard(go))


@sessions_app.command("fork")
def fork_cmd(
    key: SessionKey,
    name: Annotated[
        str | None, typer.Option(help="The new session's name (default: none).")
    ] = None,
    store: StoreOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A new session that starts with the conversation of ID's newest run."""

    from hookagent.durable._sessions import fork

    def go() -> int:
        session = in_store(existing(store), lambda s: fork(s, key, name))
        if json_output:
            emit_json(session_dict(session))
            return 0
        typer.echo(
            f"forked {key} into session {session.name or session.id} (id {session.id}); "
            f"continue it: hookagent run PROMPT -m MODEL --session {session.name or session.id}"
        )
        return 0

    raise typer.Exit(guard(go))


# -- approve / deny ---------------------------------------------------------------------------
def approve(
    key: RunKey,
    call: CallArg = None,
    scope: ScopeOpt = "once",
    ttl: Annotated[
        float | None,
        typer.Option("--ttl", metavar="SECONDS", help="The approval lapses after this long."),
    ] = None,
    reason: Annotated[str | None, typer.Option(metavar="TEXT")] = None,
    store: StoreOpt = None,
    resume_now: ResumeOpt = False,
    json_output: JsonOpt = False,
    temporal: TemporalOpt = None,
) -> None:
    """Approve the open question(s) of a waiting run (or only the one about CALL)."""
    _answer(key, call, True, scope, reason, ttl, _To(store, resume_now, json_output, temporal))


def deny(
    key: RunKey,
    reason: Annotated[str, typer.Option(metavar="TEXT", help="Why; the model reads it.")],
    call: CallArg = None,
    store: StoreOpt = None,
    resume_now: ResumeOpt = False,
    json_output: JsonOpt = False,
    temporal: TemporalOpt = None,
) -> None:
    """Deny the open question(s) of a waiting run (or only the one about CALL)."""
    _answer(key, call, False, "once", reason, None, _To(store, resume_now, json_output, temporal))


class _To(NamedTuple):
    """Where an answer goes, as the options `approve` and `deny` share say."""

    store: str | None
    resume_now: bool
    json_output: bool
    temporal: str | None
    """The run is on the Temporal server there, where the store's options mean nothing."""


def _answer(
    key: str,
    call: str | None,
    approved: bool,
    scope: str,
    reason: str | None,
    ttl: float | None,
    to: _To,
) -> NoReturn:
    """`approve` or `deny`: through the store, or to the run on Temporal."""
    store, resume_now, json_output, temporal = to

    def go() -> int:
        if scope not in _SCOPES:
            raise ConfigError(f"--scope is once, run or session, not {scope!r}")
        positive_number("--ttl", ttl, unit=" of seconds")
        if temporal is not None:
            from hookagent.cli._temporal_answers import answer_on_temporal

            for given, name in ((store, "--store"), (resume_now, "--resume")):
                if given:
                    raise ConfigError("a run on Temporal goes on by itself once answered", key=name)
            return answer_on_temporal(
                temporal,
                key,
                call,
                approved,
                scope=scope,
                reason=reason,
                ttl=ttl,
                json_output=json_output,
            )
        from hookagent.cli._session_runs import answer_questions

        return answer_questions(
            key,
            call,
            store,
            approved=approved,
            scope=_SCOPES[scope],
            reason=reason,
            ttl=ttl,
            resume_now=resume_now,
            json_output=json_output,
        )

    code = guard(go)
    if temporal is not None:  # a Temporal client's threads may abort a normal exit
        from hookagent.cli._temporal_server import exit_now

        exit_now(code)
    raise typer.Exit(code)


# -- resume -----------------------------------------------------------------------------------
def resume(
    key: RunKey,
    store: StoreOpt = None,
    json_output: JsonOpt = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Take the run over before its lease runs out if its holder is provably "
            "gone (a process of this host that no longer exists).",
        ),
    ] = False,
    notify: NotifyOpt = None,
    notify_inbox: NotifyInboxOpt = None,
) -> None:
    """Take a paused or interrupted run up where it stopped (exit 3 if it pauses again)."""
    from hookagent.cli._session_runs import resume_run

    raise typer.Exit(
        guard(
            lambda: resume_run(
                key, store, json_output=json_output, force=force, notify=(notify, notify_inbox)
            )
        )
    )


# -- worker -----------------------------------------------------------------------------------
def worker(
    store: StoreOpt = None,
    poll: Annotated[
        float,
        typer.Option("--poll", metavar="SECONDS", min=0.0, help="Wait between looks for work."),
    ] = 1.0,
    once: Annotated[
        bool, typer.Option("--once", help="Stop as soon as nothing is runnable.")
    ] = False,
    max_runs: Annotated[int | None, typer.Option(min=1, help="Stop after this many runs.")] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print each event as one JSON object per line.")
    ] = False,
    notify: NotifyOpt = None,
    notify_inbox: NotifyInboxOpt = None,
) -> None:
    """Take up the store's runnable runs one after another; Ctrl-C stops it.

    A run is runnable once its questions are answered, when it is queued, or when the
    worker that ran it died (its lease ran out)."""
    from hookagent.cli._worker_cmd import run_worker

    raise typer.Exit(
        guard(
            lambda: run_worker(
                store,
                poll=poll,
                once=once,
                max_runs=max_runs,
                json_output=json_output,
                notify=(tuple(notify or ()), notify_inbox),
            )
        )
    )
