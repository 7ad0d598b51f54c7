"""Durable sessions from the command line: `hookagent run --session`, and what comes after.

- `sessions ls | show | fork`: list the store's sessions, look into one, branch one off;
- `approve` / `deny`: answer the questions a waiting run asked (`--resume` to go on at once);
- `resume`: take a paused or interrupted run up again where it stopped;
- `worker`: take up every runnable run of the store (answered, queued, or orphaned by a
  worker that died), one after another.

`resume` and `worker` rebuild each run's agent from the options `hookagent run` saved with it
(see `agent_spec`), so they can only take up runs that `hookagent run` started. A resumed run
is not streamed (`Agent.resume` has no stream form): once it ends, its steps since its last
checkpoint are shown from its result, as the live view would have shown them, then the summary.
"""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import shlex
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar, final

import typer
from rich.console import Console
from rich.text import Text

from hookagent.cli.agent_spec import CLI_KEY, RunOptions, build_agent, options_of, saved_options
from hookagent.durable import codec
from hookagent.durable.answers import Scope
from hookagent.durable.runner import lease_seconds, worker_name
from hookagent.durable.sessions import SessionDetail, answer, find_run, fork, inspect
from hookagent.errors import ConfigError, StoreError
from hookagent.hooks.decision import Decision
from hookagent.kernel.result import RunResult
from hookagent.kernel.stream import RunFinished, StepStarted, ToolFinished, ToolStarted
from hookagent.store.base import Store
from hookagent.store.open import open_store
from hookagent.store.records import QuestionRecord, RunRecord, SessionRecord

__all__ = ["register", "run_in_session", "sessions_app"]

T = TypeVar("T")

SHORT: Final = 100
"""Characters of a message or value shown in text output before it is cut."""
_ENDED: Final = ("completed", "failed", "stopped")
_SCOPES: Final[Mapping[str, Scope]] = {"once": "once", "run": "run", "session": "session"}

sessions_app = typer.Typer(
    help="Sessions kept in a store: list, inspect, fork.", no_args_is_help=True
)

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        help="The store: a path, sqlite:///path or postgresql://… "
        "(default: .hookagent/sessions.db).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
RunKey = Annotated[str, typer.Argument(metavar="ID", help="A run id, or a session (id or name).")]
CallArg = Annotated[
    str | None,
    typer.Argument(metavar="CALL", help="Only the question about this tool call id."),
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Resume the run right away, as `hookagent resume` does.")
]


def register(app: typer.Typer) -> None:
    """Add `sessions`, `approve`, `deny`, `resume` and `worker` to the `hookagent` command."""
    app.add_typer(sessions_app, name="sessions")
    app.command("approve")(approve)
    app.command("deny")(deny)
    app.command("resume")(resume)
    app.command("worker")(worker)


# -- run --session ----------------------------------------------------------------------------
def run_in_session(options: RunOptions) -> int:
    """`hookagent run --session/--store`: the run kept in the store, its options saved with
    it; the open questions and how to answer them if it ends waiting."""
    from hookagent.cli.app import _console, exit_code

    store = open_store(options.store, project_dir=options.cwd or os.getcwd())
    agent, _ = build_agent(options, store)
    metadata = {CLI_KEY: saved_options(options)}
    console = _console()

    async def go(store: Store) -> _Outcome:
        result: RunResult | None = None
        if options.json:
            result = await agent.run(options.prompt, metadata=metadata, session=options.session)
        else:
            from hookagent.cli.render import LiveRenderer

            renderer = LiveRenderer(console)
            async for event in agent.stream(
                options.prompt, metadata=metadata, session=options.session
            ):
                renderer.show(event)
                if isinstance(event, RunFinished):
                    result = event.result
            if result is None:
                raise RuntimeError("the run's stream ended without a RunFinished event")
        return await _outcome(store, result)

    outcome = _in_store(store, go)
    _report(outcome, json_output=options.json, console=console, store_url=options.store)
    return exit_code(outcome.result)


@final
@dataclass(frozen=True, slots=True)
class _Outcome:
    """A run as it ended (or paused), with its session and the questions it waits on."""

    result: RunResult
    session: SessionRecord | None
    questions: list[QuestionRecord]

    @property
    def session_label(self) -> str:
        if self.session is None:
            return self.result.state.session_id or "?"
        return self.session.name or self.session.id


async def _outcome(store: Store, result: RunResult) -> _Outcome:
    session_id = result.state.session_id
    session = await store.session(session_id) if session_id else None
    questions = await store.questions(result.run_id) if result.status == "waiting" else []
    return _Outcome(result, session, questions)


def _report(
    outcome: _Outcome, *, json_output: bool, console: Console, store_url: str | None
) -> None:
    if json_output:
        session = outcome.session
        data = {
            **outcome.result.to_dict(),
            "session_id": outcome.result.state.session_id,
            "session": session.name if session is not None else None,
            "questions": [question_dict(q) for q in outcome.questions],
        }
        typer.echo(json.dumps(data, indent=2, default=str))
    elif outcome.result.status == "waiting":
        _print_waiting(console, outcome, store_url)


def question_dict(question: QuestionRecord) -> dict[str, Any]:
    """A waiting run's question as `--json` output shows it."""
    data = _object(question.data)
    return {
        "id": question.id,
        "run_id": question.run_id,
        "call_id": data.get("call_id"),
        "tool": data.get("tool_name"),
        "args": data.get("args"),
        "question": data.get("question"),
        "hook": data.get("hook"),
        "point": data.get("point"),
        "expires_at": question.expires_at,
    }


def _print_waiting(console: Console, outcome: _Outcome, store_url: str | None) -> None:
    run_id = outcome.result.run_id
    say = _sayer(console)
    say(f"waiting for an answer · run {run_id} · session {outcome.session_label}", "bold magenta")
    questions = [question_dict(q) for q in outcome.questions]
    for question in questions:
        _print_question(console, question)
    calls = {q["call_id"] for q in questions}
    call = f" [{calls.pop()}]" if len(calls) == 1 and None not in calls else " [CALL]"
    store = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
    say("answer it:", "bold")
    say(f"  hookagent approve {run_id}{call} [--scope once|run|session]{store}")
    say(f"  hookagent deny {run_id}{call} --reason TEXT{store}")
    say("then continue it:", "bold")
    say(f"  hookagent resume {run_id}{store}")


def _print_question(console: Console, question: Mapping[str, Any]) -> None:
    console.print(Text("  ? ", style="bold magenta") + Text(str(question["question"] or "")))
    parts = []
    if question["tool"]:
        parts.append(_call(str(question["tool"]), question["args"] or {}))
    if question["call_id"]:
        parts.append(f"call {question['call_id']}")
    parts.append(f"asked by {question['hook']} at {question['point']}")
    parts.append(f"question {question['id']}")
    console.print(Text("    " + " · ".join(parts), style="dim"))


# -- sessions ls / show / fork ----------------------------------------------------------------
@sessions_app.command("ls")
def ls(
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Sessions to list.")] = 50,
    json_output: JsonOpt = False,
) -> None:
    """List sessions, the most recently updated first."""

    def go() -> int:
        opened = _store(store)
        found = [] if _missing(opened) else _in_store(opened, lambda s: s.sessions(limit=limit))
        if json_output:
            typer.echo(json.dumps([_session_dict(s) for s in found], indent=2))
        elif not found:
            typer.echo(f"no sessions in {opened.url}")
        else:
            _print_sessions(_plain_console(), found)
        return 0

    raise typer.Exit(_guard(go))


def _print_sessions(console: Console, sessions: Sequence[SessionRecord]) -> None:
    now = time.time()
    rows = [
        (s.name or s.id, s.status, _ago(s.updated_at, now), _short(s.title, 60)) for s in sessions
    ]
    header = ("SESSION", "STATUS", "UPDATED", "TITLE")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        console.print(Text("  ".join([*cells, row[3]]).rstrip(), style=""))


@sessions_app.command("show")
def show(
    key: Annotated[str, typer.Argument(metavar="ID", help="A session (id or name) or a run id.")],
    store: StoreOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A session: its runs, its newest run's messages, steps and decisions, open questions."""

    def go() -> int:
        detail = _in_store(_existing(store), lambda s: inspect(s, key))
        if json_output:
            typer.echo(json.dumps(_detail_dict(detail), indent=2, default=str))
        else:
            _print_detail(_plain_console(), detail, store)
        return 0

    raise typer.Exit(_guard(go))


def _detail_dict(detail: SessionDetail) -> dict[str, Any]:
    return {
        "session": _session_dict(detail.session),
        "runs": [_run_dict(r) for r in detail.runs],
        "messages": detail.messages,
        "steps": [
            {"index": s.get("index"), "kind": s.get("kind"), "tool_calls": _step_calls(s)}
            for s in detail.steps
        ],
        "decisions": [
            {
                "point": d.point,
                "step": d.step,
                "call_id": d.call_id,
                "outcome": d.outcome,
                "hook": d.hook,
                "reason": d.reason,
                "answer": d.answer,
            }
            for d in _shown(detail.decisions)
        ],
        "questions": [question_dict(q) for q in detail.pending],
    }


def _print_detail(console: Console, detail: SessionDetail, store_url: str | None) -> None:
    from hookagent.cli.render import decision_line

    say = _sayer(console)
    session = detail.session
    say(f"session {session.name or session.id}", "bold")
    say(f"  id {session.id} · {session.status} · updated {_ago(session.updated_at, time.time())}")
    if session.title:
        say(f"  title: {_short(session.title)}")
    if session.forked_from:
        say(f"  forked from {session.forked_from}")
    say(f"runs ({len(detail.runs)}):", "bold")
    for run in detail.runs:
        say(f"  {run.id}  {run.status:<9}  {_when(run.created_at)}")
    if detail.messages:
        say(f"messages of {session.head_run_id}:", "bold")
        for message in detail.messages:
            say("  " + _message_line(message))
    if detail.steps:
        say("steps:", "bold")
        for step in detail.steps:
            calls = [_step_call_text(c) for c in _step_calls(step)]
            say(
                f"  {step.get('index')} {step.get('kind')}"
                + (": " if calls else "")
                + ", ".join(calls)
            )
    decisions = _shown(detail.decisions)
    if decisions:
        say("decisions:", "bold")
        for decision in decisions:
            console.print(decision_line(decision))
    if detail.pending:
        say("waiting for an answer:", "bold magenta")
        questions = [question_dict(q) for q in detail.pending]
        for question in questions:
            _print_question(console, question)
        store = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
        run_id = detail.pending[0].run_id
        say(
            f"  hookagent approve {run_id} [CALL]{store} · hookagent deny {run_id} [CALL] "
            f"--reason TEXT{store}"
        )


def _message_line(message: Mapping[str, Any]) -> str:
    role = str(message.get("role", "?"))
    content = _short(str(message.get("content") or ""))
    if role == "assistant":
        calls = [
            f"{_call(str(c.get('name')), c.get('args') or {})} [{c.get('id')}]"
            for c in message.get("tool_calls") or ()
            if isinstance(c, Mapping)
        ]
        return "assistant: " + " ".join(filter(None, [content, *(f"→ {c}" for c in calls)]))
    if role == "tool":
        error = "[error] " if message.get("is_error") else ""
        return f"tool {message.get('name')} [{message.get('call_id')}]: {error}{content}"
    return f"{role}: {content}"


def _step_calls(step: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for execution in step.get("executions") or ():
        result = execution.get("result") or {}
        calls.append(
            {
                "call_id": execution.get("call_id"),
                "name": execution.get("name"),
                "args": execution.get("args") or {},
                "blocked": bool(execution.get("blocked")),
                "is_error": bool(result.get("is_error")),
                "result": result.get("content"),
            }
        )
    return calls


def _step_call_text(call: Mapping[str, Any]) -> str:
    mark = " [blocked]" if call["blocked"] else " [error]" if call["is_error"] else ""
    return _call(str(call["name"]), call["args"]) + mark


def _shown(decisions: Sequence[Mapping[str, Any]]) -> list[Decision]:
    """The decisions that did something, as the live view shows them."""
    from hookagent.cli.render import is_shown

    loaded: list[Decision] = [codec.load("decision", json.dumps(d)) for d in decisions]
    return [d for d in loaded if is_shown(d)]


@sessions_app.command("fork")
def fork_cmd(
    key: Annotated[str, typer.Argument(metavar="ID", help="A session (id or name) or a run id.")],
    name: Annotated[
        str | None, typer.Option("--name", help="The new session's name (default: none).")
    ] = None,
    store: StoreOpt = None,
) -> None:
    """A new session that starts with the conversation of ID's newest run."""

    def go() -> int:
        session = _in_store(_existing(store), lambda s: fork(s, key, name))
        typer.echo(
            f"forked {key} into session {session.name or session.id} (id {session.id}); "
            f"continue it: hookagent run PROMPT -m MODEL --session {session.name or session.id}"
        )
        return 0

    raise typer.Exit(_guard(go))


# -- approve / deny ---------------------------------------------------------------------------
def approve(
    key: RunKey,
    call: CallArg = None,
    scope: Annotated[
        str,
        typer.Option(
            "--scope",
            metavar="once|run|session",
            help="How far the approval reaches: this question, the same call (tool and "
            "arguments) again in this run, or in any run of the session.",
        ),
    ] = "once",
    ttl: Annotated[
        float | None,
        typer.Option("--ttl", metavar="SECONDS", help="The approval lapses after this long."),
    ] = None,
    reason: Annotated[str | None, typer.Option("--reason", metavar="TEXT")] = None,
    store: StoreOpt = None,
    resume_now: ResumeOpt = False,
) -> None:
    """Approve the open question(s) of a waiting run (or only the one about CALL)."""

    def go() -> int:
        if scope not in _SCOPES:
            raise ConfigError(f"--scope is once, run or session, not {scope!r}")
        return _answer(key, call, store, resume_now, True, _SCOPES[scope], reason, ttl)

    raise typer.Exit(_guard(go))


def deny(
    key: RunKey,
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why; the model reads it.")
    ],
    call: CallArg = None,
    store: StoreOpt = None,
    resume_now: ResumeOpt = False,
) -> None:
    """Deny the open question(s) of a waiting run (or only the one about CALL)."""
    raise typer.Exit(_guard(lambda: _answer(key, call, store, resume_now, False, "once", reason)))


def _answer(
    key: str,
    call: str | None,
    store_url: str | None,
    resume_now: bool,
    approved: bool,
    scope: Scope,
    reason: str | None,
    ttl: float | None = None,
) -> int:
    by = f"cli:{_user()}"
    answered = _in_store(
        _existing(store_url),
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
    verb = "approved" if approved else "denied"
    for question in answered:
        data = question_dict(question)
        what = _call(str(data["tool"]), data["args"] or {}) if data["tool"] else data["question"]
        details = [f"call {data['call_id']}"] if data["call_id"] else []
        details.append(f"question {question.id} of run {question.run_id}")
        if approved:
            details.append(f"scope {scope}" + (f" for {ttl:g} s" if ttl is not None else ""))
        if reason:
            details.append(f"reason: {reason}")
        typer.echo(f"{verb} {what} ({'; '.join(details)}) as {by}")
    run_id = answered[0].run_id
    if resume_now:
        return _resume(run_id, store_url, json_output=False)
    flag = f" --store {shlex.quote(store_url)}" if store_url is not None else ""
    typer.echo(f"continue it: hookagent resume {run_id}{flag} (or let `hookagent worker` take it)")
    return 0


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name in this environment
        return "unknown"


# -- resume -----------------------------------------------------------------------------------
def resume(key: RunKey, store: StoreOpt = None, json_output: JsonOpt = False) -> None:
    """Take a paused or interrupted run up where it stopped (exit 3 if it pauses again)."""
    raise typer.Exit(_guard(lambda: _resume(key, store, json_output=json_output)))


def _resume(key: str, store_url: str | None, *, json_output: bool) -> int:
    from hookagent.cli.app import _console, exit_code

    opened = _existing(store_url)
    since: list[int] = []

    async def go(store: Store) -> _Outcome:
        run = await find_run(store, key)
        if run.status in _ENDED:
            raise StoreError(f"run {run.id} has ended ({run.status}); nothing to resume")
        agent, _ = build_agent(options_of(run), store)
        point = run.checkpoint
        since.extend((point.steps, point.decisions) if point is not None else (0, 0))
        return await _outcome(store, await agent.resume(run.id))

    outcome = _in_store(opened, go)
    console = _console()
    if not json_output:
        _print_resumed(console, outcome, steps_from=since[0], decisions_from=since[1])
    _report(outcome, json_output=json_output, console=console, store_url=store_url)
    return exit_code(outcome.result)


def _print_resumed(
    console: Console, outcome: _Outcome, *, steps_from: int, decisions_from: int
) -> None:
    """The steps since the run's last checkpoint, as the live view shows steps, then the
    summary: tool calls with their results, and the decisions that did something."""
    from hookagent.cli.render import LiveRenderer, decision_line, is_shown

    result = outcome.result
    console.print(
        Text(f"resumed run {result.run_id} · session {outcome.session_label}", style="bold")
    )
    renderer = LiveRenderer(console)
    decisions = [d for d in list(result.decisions)[decisions_from:] if is_shown(d)]
    for step in list(result.steps)[steps_from:]:
        renderer.show(StepStarted(step.index))
        text = step.response.content.strip() if step.response is not None else ""
        if text:
            console.print(Text("  model: ", style="dim") + Text(text))
        for execution in step.executions:
            renderer.show(
                ToolStarted(step.index, execution.call_id, execution.name, execution.args)
            )
            _show_decisions(console, decisions, step.index, execution.call_id)
            renderer.show(ToolFinished(step.index, execution))
        _show_decisions(console, decisions, step.index, None)
    for decision in decisions:  # of a step that has not finished (it paused again)
        console.print(decision_line(decision))
    renderer.summary(result)


def _show_decisions(
    console: Console, decisions: list[Decision], step: int, call_id: str | None
) -> None:
    from hookagent.cli.render import decision_line

    for decision in [d for d in decisions if d.step == step and d.call_id == call_id]:
        console.print(decision_line(decision))
        decisions.remove(decision)


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
    max_runs: Annotated[
        int | None, typer.Option("--max-runs", min=1, help="Stop after this many runs.")
    ] = None,
) -> None:
    """Take up the store's runnable runs one after another; Ctrl-C stops it.

    A run is runnable once its questions are answered, when it is queued, or when the
    worker that ran it died (its lease ran out)."""

    def go() -> int:
        opened = _store(store)
        try:
            asyncio.run(_work(opened, poll=poll, once=once, max_runs=max_runs))
        except KeyboardInterrupt:
            _log("worker stopped")
        return 0

    raise typer.Exit(_guard(go))


async def _work(store: Store, *, poll: float, once: bool, max_runs: int | None) -> None:
    """Claim, rebuild, resume, until told to stop. A run that cannot be rebuilt or resumed is
    held (its lease kept, under a name this worker then stops claiming with) until nothing
    else is runnable, then released: it neither blocks the runs behind it nor is retried in
    a tight loop; its reason is logged once."""
    await store.open()
    base = worker_name()
    name, serial, handled = base, 0, 0
    held: list[tuple[str, str]] = []  # (run id, the name holding it)
    skipped: set[str] = set()
    reported: dict[str, str] = {}
    _log(f"worker {base} on {store.url}")
    try:
        while max_runs is None or handled < max_runs:
            run = await store.claim(name, time.time(), lease_seconds())
            if run is None or run.id in skipped:
                if run is not None:  # a broken run again: hold it too, look further
                    held.append((run.id, name))
                    serial += 1
                    name = f"{base}/{serial}"
                    continue
                for run_id, owner in held:
                    await store.release(run_id, owner)
                held.clear()
                skipped.clear()
                if once:
                    break
                await asyncio.sleep(poll)
                continue
            label = await _session_label(store, run)
            problem = await _take_up(store, run, name, label)
            if problem is None:
                handled += 1
                continue
            if reported.get(run.id) != problem:
                _log(f"run {run.id} · session {label} · skipped: {problem}")
                reported[run.id] = problem
            held.append((run.id, name))
            skipped.add(run.id)
            serial += 1
            name = f"{base}/{serial}"
    finally:
        for run_id, owner in held:
            await store.release(run_id, owner)
        await store.close()


async def _take_up(store: Store, run: RunRecord, name: str, label: str) -> str | None:
    """Resume `run` under `name`; what went wrong if it could not be."""
    try:
        agent, _ = build_agent(options_of(run), store)
    except (ConfigError, StoreError) as exc:
        return str(exc)
    try:
        result = await agent.resume(run.id, worker=name)
    except Exception as exc:  # a worker outlives any one run
        return f"{type(exc).__name__}: {exc}"
    status: str = result.status
    if status == "waiting":
        status += " (asked again: approve or deny it)"
    elif result.error:
        status += f" ({_short(result.error)})"
    _log(f"run {run.id} · session {label} · {status}")
    return None


async def _session_label(store: Store, run: RunRecord) -> str:
    session = await store.session(run.session_id)
    return session.name or session.id if session is not None else run.session_id


def _log(line: str) -> None:
    typer.echo(f"{time.strftime('%H:%M:%S')} {line}")


# -- shared -----------------------------------------------------------------------------------
def _guard(action: Callable[[], int]) -> int:
    from hookagent.cli.app import _guarded

    return _guarded(action)


def _store(url: str | None) -> Store:
    return open_store(url, project_dir=os.getcwd())


def _existing(url: str | None) -> Store:
    """The store at `url`, which must exist already: looking into a store never creates one."""
    store = _store(url)
    if _missing(store):
        raise StoreError(f"no store at {store.url}: no session has been kept there")
    return store


def _missing(store: Store) -> bool:
    from hookagent.store.sqlite import SQLiteStore

    return isinstance(store, SQLiteStore) and not Path(store.url).exists()


def _in_store(store: Store, action: Callable[[Store], Awaitable[T]]) -> T:
    """`action(store)` on a fresh event loop, the store open around it."""

    async def go() -> T:
        await store.open()
        try:
            return await action(store)
        finally:
            await store.close()

    return asyncio.run(go())


def _session_dict(session: SessionRecord) -> dict[str, Any]:
    return {
        "id": session.id,
        "name": session.name,
        "status": session.status,
        "title": session.title,
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        "head_run_id": session.head_run_id,
        "forked_from": session.forked_from,
    }


def _run_dict(run: RunRecord) -> dict[str, Any]:
    return {
        "id": run.id,
        "status": run.status,
        "created_at": run.created_at,
        "updated_at": run.updated_at,
        "prompt": run.prompt,
    }


def _object(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _sayer(console: Console) -> Callable[..., None]:
    def say(text: str, style: str = "") -> None:
        console.print(Text(text, style=style))

    return say


def _plain_console() -> Console:
    from hookagent.cli.app import _console

    return _console()


def _call(name: str, args: Mapping[str, Any]) -> str:
    inner = ", ".join(f"{key}={_value(value)}" for key, value in args.items())
    return f"{name}({inner})"


def _value(value: Any) -> str:
    return _short(repr(value) if isinstance(value, str) else json.dumps(value, default=str))


def _short(text: str, limit: int = SHORT) -> str:
    """One line of at most `limit` characters; line breaks show as ⏎."""
    flat = " ⏎ ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _ago(at: float, now: float) -> str:
    seconds = max(0.0, now - at)
    if seconds < 60:
        return f"{seconds:.0f} s ago"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 86400:
        return f"{seconds // 3600:.0f} h ago"
    if seconds < 7 * 86400:
        return f"{seconds // 86400:.0f} d ago"
    return _when(at)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))
