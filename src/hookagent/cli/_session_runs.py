"""A run kept in a store, driven from the command line: started (`hookagent run --session`),
answered (`approve` / `deny`) and taken up again (`resume`).

`resume` rebuilds the run's agent from the options `hookagent run` saved with it (see
`agent_spec`), and shows it live as `run` does (`Agent.stream_resume`): the segment it takes up
again, then what it does from there; Ctrl-C stops it as it stops `run`.
"""

from __future__ import annotations

import getpass
import os
import shlex
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import typer
from rich.text import Text

from hookagent.cli._exits import EXIT_INTERRUPTED, exit_code, interrupted, kept_line
from hookagent.cli._json_out import emit_json
from hookagent.cli._notify_option import notified, notifier
from hookagent.cli._session_views import Outcome, call_text, plain_console, report
from hookagent.cli._store_access import existing, in_store
from hookagent.durable._answers import Scope
from hookagent.durable._sessions import answer, find_run
from hookagent.kernel._result import RunResult
from hookagent.sessions._agent_spec import CLI_KEY, RunOptions, connected_agent, saved_options
from hookagent.sessions._kept_runs import resume, unended
from hookagent.sessions._records_json import question_dict
from hookagent.store._base import Store
from hookagent.store._open import open_store
from hookagent.store._records import SessionRecord

__all__ = ["answer_questions", "resume_run", "run_in_session"]


# -- run --session ----------------------------------------------------------------------------
def run_in_session(options: RunOptions) -> int:
    """`hookagent run --session/--store`: the run kept in the store, its options saved with
    it; the open questions and how to answer them if it ends waiting."""
    from hookagent.cli._render import Interrupted, LiveRenderer, stream_run
    from hookagent.sessions._session_script import continued_script
    from hookagent.sessions._settings_files import run_settings_files

    store = open_store(options.store, project_dir=options.cwd or os.getcwd())
    console = plain_console()
    renderer = None if options.json else LiveRenderer(console)

    async def go(store: Store) -> Outcome:
        run_options = await continued_script(store, options)
        metadata = {CLI_KEY: saved_options(run_options)}
        async with connected_agent(run_options, store) as (agent, _):
            result = await stream_run(
                agent,
                options.prompt,
                renderer,
                metadata=metadata,
                session=options.session,
                clear=options.clear,
            )
        await notified(options.notify)  # a paused run's question is read from the store
        return await _outcome(store, result)

    try:
        outcome = in_store(store, go)
    except Interrupted as stop:
        return interrupted(
            stop.result, json_output=options.json, store_url=options.store, kept=True
        )
    files = {"settings_files": run_settings_files(options)} if options.json else None
    report(outcome, json_output=options.json, console=console, store_url=options.store, extra=files)
    return exit_code(outcome.result)


async def _outcome(store: Store, result: RunResult) -> Outcome:
    session_id = result.state.session_id
    session = await store.session(session_id) if session_id else None
    questions = await store.questions(result.run_id) if result.status == "waiting" else []
    return Outcome(result, session, questions)


# -- approve / deny ---------------------------------------------------------------------------
def answer_questions(
    key: str,
    call: str | None,
    store_url: str | None,
    *,
    approved: bool,
    scope: Scope,
    reason: str | None,
    ttl: float | None,
    resume_now: bool,
    json_output: bool,
) -> int:
    """Approve or deny the open question(s) of run `key` (only the one about `call` if
    given), print what was answered, then resume the run or say how to. `json_output`: one
    object, `{"run_id", "answered": [...], "resume"}`, or with `resume_now` the resumed
    run's object with `answered` added."""
    by = f"cli:{_user()}"
    answered = in_store(
        existing(store_url),
        lambda s: answer(
            s,
            key,
            approved=approved,
            call_id=call,
            scope=scope,
            reason=reason,
            ttl=ttl,
            by=by,
        ),
    )
    run_id = answered[0].run_id
    flag = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
    if json_output:
        given = {"approved": approved, "scope": scope if approved else None, "ttl": ttl}
        records = [{**question_dict(q), **given, "reason": reason, "by": by} for q in answered]
        if resume_now:
            return resume_run(run_id, store_url, json_output=True, extra={"answered": records})
        emit_json(
            {"run_id": run_id, "answered": records, "resume": f"hookagent resume {run_id}{flag}"}
        )
        return 0
    verb = "approved" if approved else "denied"
    for question in answered:
        data = question_dict(question)
        what = (
            call_text(str(data["tool"]), data["args"] or {}) if data["tool"] else data["question"]
        )
        details = [f"call {data['call_id']}"] if data["call_id"] else []
        details.append(f"question {question.id} of run {question.run_id}")
        if approved:
            details.append(f"scope {scope}" + (f" for {ttl:g} s" if ttl is not None else ""))
        if reason:
            details.append(f"reason: {reason}")
        typer.echo(f"{verb} {what} ({'; '.join(details)}) as {by}")
    if resume_now:
        return resume_run(run_id, store_url, json_output=False)
    typer.echo(f"continue it: hookagent resume {run_id}{flag} (or let `hookagent worker` take it)")
    return 0


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment
        return "unknown"


# -- resume -----------------------------------------------------------------------------------
def resume_run(
    key: str,
    store_url: str | None,
    *,
    json_output: bool,
    force: bool = False,
    extra: Mapping[str, Any] | None = None,
    notify: tuple[Sequence[str] | None, str | None] = (None, None),
) -> int:
    """Take run `key` up where it stopped, show what it did since, report; the exit code.
    `force`: take it over from a holder that is provably gone (see `durable.lease`);
    `extra`: keys added to the `--json` object; `notify`: the `--notify` webhooks and
    `--notify-inbox` page told of the questions it asks from here."""
    from hookagent.cli._render import Interrupted, LiveRenderer, shown

    notice = notifier(*notify, lambda failed: typer.echo(f"warning: {failed}", err=True))
    console = plain_console()
    renderer = None if json_output else LiveRenderer(console)
    session: SessionRecord | None = None

    async def go(store: Store) -> Outcome:
        nonlocal session
        run = await find_run(store, key)
        unended(run)
        session = await store.session(run.session_id) if run.session_id else None
        if renderer is not None:
            label = (session.name or session.id) if session is not None else run.session_id or "?"
            console.print(Text(f"resumed run {run.id} · session {label}", style="bold"))
        try:
            watch = partial(shown, renderer=renderer)
            result = await resume(
                store, run, force=force, notify=notice, watch=watch, deltas=renderer is not None
            )
            return await _outcome(store, result)
        finally:
            await notified(notice)

    try:
        outcome = in_store(existing(store_url), go)
    except Interrupted as stop:  # stopped at its next safe point, kept as it was; shown
        outcome = Outcome(stop.result, session, [])
        if json_output:
            report(outcome, json_output=True, console=console, store_url=store_url, extra=extra)
        typer.echo(kept_line(stop.result.run_id, store_url), err=True)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:  # before the run was taken up
        typer.echo(kept_line(key, store_url), err=True)
        return EXIT_INTERRUPTED
    report(outcome, json_output=json_output, console=console, store_url=store_url, extra=extra)
    return exit_code(outcome.result)
