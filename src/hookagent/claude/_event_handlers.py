"""`EventHandlers`: the hook for one Claude Code event, from settings files or from a skill's
or subagent's front matter: select the handlers that fit, run them in parallel (each by its
type: command, http, mcp_tool, prompt, agent), merge their answers with Claude Code's rules
(`combine`) and turn the merged answer into a `HookResult` (`translate`). The errors of
handlers that failed ride on it into the vote. The transcript is flushed before any handler
reads it, so handlers that read it see the whole run.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, NamedTuple, final

from hookagent._messages import Message
from hookagent.claude._agent_hook import ask_agent
from hookagent.claude._background import read_later
from hookagent.claude._combine import combine
from hookagent.claude._env_file import ENV_FILE_KEY
from hookagent.claude._events import EventMapping, applies_to, ends_run
from hookagent.claude._http_hook import run_http
from hookagent.claude._mcp_hook import run_mcp_tool
from hookagent.claude._model import HandlerSpec, HandlerVerdict, ProcessOutcome
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._output import read_verdict
from hookagent.claude._payload import (
    build_payload,
    claude_tool_input,
    claude_tool_name,
    failure_type,
)
from hookagent.claude._project_events import occurrences
from hookagent.claude._prompt_hook import PromptModels, Spend, ask
from hookagent.claude._runner import run_handler, timeout_for
from hookagent.claude._selection import Selected, run_once_each
from hookagent.claude._session import ClaudeSession, Sessions
from hookagent.claude._translate import to_hook_result
from hookagent.hooks._result import HookResult

__all__ = ["AfterOutcome", "EventHandlers", "Ran"]

log = logging.getLogger("hookagent.claude")

Ran = tuple[HandlerSpec, HandlerVerdict]
"""A handler that ran, and its verdict."""

_SESSION_ENV = frozenset({"Setup", "SessionStart"})
"""Events whose hooks write the session's `CLAUDE_ENV_FILE`, which the run's Bash sources."""


class _Call(NamedTuple):
    """What every handler of one firing shares, whatever its type."""

    payload: dict[str, Any]
    session: ClaudeSession
    env_file: str | None
    flush: Callable[[], None]
    """Writes the transcript; called just before a handler can read it."""
    conversation: Sequence[Message]
    spend: Spend | None


@final
class EventHandlers:
    """The hook for one Claude Code event: select, run in parallel, merge, translate."""

    __slots__ = (
        "_event",
        "_handlers",
        "_mapping",
        "_models",
        "_options",
        "_ran",
        "_select",
        "_sessions",
    )

    def __init__(
        self,
        event_name: str,
        mapping: EventMapping,
        handlers: tuple[Selected, ...],
        options: ClaudeHookOptions,
        sessions: Sessions,
        models: PromptModels,
        *,
        select: Callable[[Any, HandlerSpec], bool] | None = None,
        ran: Callable[[Any, Sequence[HandlerSpec], Sequence[Ran]], None] | None = None,
    ) -> None:
        """`select(event, spec)`: whether a handler is live for this event (a skill's, once
        the skill is loaded); `ran(event, chosen, verdicts)`: told what ran and answered."""
        self._event, self._mapping, self._handlers = event_name, mapping, handlers
        self._options, self._sessions, self._models = options, sessions, models
        self._select, self._ran = select, ran

    async def __call__(self, event: Any) -> HookResult | None:
        if not applies_to(self._event, event):
            return None
        session = self._sessions.of(event.run)
        result = None
        for occurrence in occurrences(self._event, event, self._options):
            result = await self._answer(occurrence, session) or result
        if self._event in _SESSION_ENV:
            result = _with_env_file(result, event, session)
        return result

    async def _answer(self, event: Any, session: ClaudeSession) -> HookResult | None:
        cwd = session.payload.cwd
        subject, tool_input = self._subject(event, session)
        live = self._select
        chosen = run_once_each(
            [
                h.spec
                for h in self._handlers
                if (live is None or live(event, h.spec)) and h.fits(subject, tool_input, cwd)
            ]
        )
        if not chosen:
            return None
        payload = build_payload(self._event, event, session.payload)
        # the transcript is written while the hooks start: they learn its path from stdin
        flush = functools.partial(session.flush, event.run.messages)
        verdicts = await self.run(
            chosen, payload, session, flush, event.run.messages, spend=event.run.spend
        )
        if self._ran is not None:
            self._ran(event, chosen, verdicts)
        combined = combine(
            self._event, verdicts, updated_input_conflict=self._options.updated_input_conflict
        )
        for notice in (*combined.system_messages, *combined.errors):
            log.warning("%s hook: %s", self._event, notice)  # meant for the user
        result = to_hook_result(
            self._event, combined, event, self._options, _decider(combined.decision, verdicts)
        )
        if combined.errors:  # a failing handler leaves its error in the vote
            result = (result or HookResult.proceed()).with_error("; ".join(combined.errors))
        return result

    async def run(
        self,
        specs: Sequence[HandlerSpec],
        payload: dict[str, Any],
        session: ClaudeSession,
        flush: Callable[[], None],
        conversation: Sequence[Message] = (),
        *,
        spend: Spend | None = None,
    ) -> list[Ran]:
        """Run `specs` on `payload` in parallel; background ones (`async`, `asyncRewake`)
        are started, not awaited: what they find waits in `session.background`. Prompt
        handlers on Stop/SubagentStop are shown `conversation`; the usage of prompt and agent
        handlers' model calls goes to `spend` (the run's)."""
        env_file = session.env_file_ready() if self._event in _SESSION_ENV else None
        call = _Call(payload, session, env_file, flush, conversation, spend)
        waited = [spec for spec in specs if not spec.background]

        def one(spec: HandlerSpec) -> Coroutine[Any, Any, HandlerVerdict]:
            return self._one(spec, timeout_for(spec, specs), call)

        for spec in specs:
            if spec.background:
                ran = self._command(spec, timeout_for(spec, specs), call)
                later = read_later(self._event, spec, ran, spill_dir=session.files)
                session.background.start(spec, asyncio.create_task(later))
        verdicts = await asyncio.gather(*(one(s) for s in waited))
        return list(zip(waited, verdicts, strict=True))

    async def _one(self, spec: HandlerSpec, limit: float, call: _Call) -> HandlerVerdict:
        options, payload, session, spend = self._options, call.payload, call.session, call.spend
        if spec.type == "agent":
            return await ask_agent(
                spec,
                payload,
                self._models.of(spec),
                project_dir=options.project_dir,
                timeout=limit,
                failure_default=options.on_failure_default,
                spend=spend,
                checker=self._models.checker,
            )
        if spec.type == "prompt":
            model = self._models.of(spec)
            fail = options.on_failure_default
            return await ask(
                spec,
                payload,
                model,
                timeout=limit,
                conversation=call.conversation,
                failure_default=fail,
                spend=spend,
            )
        if spec.type == "http":
            call.flush()  # the payload names the transcript
            outcome = await run_http(spec, payload, timeout=limit, spill_dir=session.files)
        elif spec.type == "mcp_tool":
            call.flush()
            server = options.mcp_servers[spec.server or ""]
            outcome = await run_mcp_tool(spec, payload, server, timeout=limit)
        else:
            outcome = await self._command(spec, limit, call)
        return read_verdict(
            self._event,
            outcome,
            spec,
            failure_default=options.on_failure_default,
            spill_dir=session.files,
        )

    async def _command(self, spec: HandlerSpec, limit: float, call: _Call) -> ProcessOutcome:
        session, env_file = call.session, call.env_file
        return await run_handler(
            spec,
            call.payload,
            cwd=session.payload.cwd,
            project_dir=self._options.project_dir,
            env_file=env_file,
            session_id=session.payload.session_id,
            timeout=limit,
            kill_grace=self._options.kill_grace_s,
            before_stdin=call.flush,
            env=session.env(spec, with_env_file=env_file is not None),
            spill_dir=session.files,
        )

    def _subject(
        self, event: Any, session: ClaudeSession
    ) -> tuple[str | None, dict[str, Any] | None]:
        field = self._mapping.subject
        if field is None:
            return None, None
        value = getattr(event, field)
        if isinstance(value, BaseException):  # StopFailure: Claude Code's name for the error
            return failure_type(value), None
        if field != "tool_name" or value is None:
            return value, None
        name = claude_tool_name(value, session.payload)
        args = getattr(event, "args", None)
        if args is None:  # permission_request: the question carries the call
            args = event.question.args or {}
        return name, claude_tool_input(value, args, session.payload.cwd)


@final
class AfterOutcome:
    """An event's handlers run once the point's other hooks have voted, and only when their
    outcome means the event happens (StopFailure: the model error ends the run)."""

    __slots__ = ("__name__", "_runner")

    def __init__(self, runner: EventHandlers) -> None:
        self._runner = runner
        self.__name__ = "after_outcome"

    async def __call__(self, event: Any, outcome: HookResult) -> HookResult | None:
        if not ends_run(event, outcome):
            return None
        return await self._runner(event)


def _with_env_file(
    result: HookResult | None, event: Any, session: ClaudeSession
) -> HookResult | None:
    """Point the run's Bash at the `CLAUDE_ENV_FILE` once Setup or SessionStart hooks have
    written to it: Claude Code sources it before each Bash command."""
    path = session.env_file
    if event.run.metadata.get(ENV_FILE_KEY) == path or not _written(path):
        return result
    if result is None:
        return HookResult.modify(metadata={ENV_FILE_KEY: path})
    given = result.changes.get("metadata") or {}  # a sessionTitle stays
    return result.with_changes(metadata={**given, ENV_FILE_KEY: path})


def _written(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:
        return False


def _decider(decision: str, verdicts: Sequence[tuple[HandlerSpec, HandlerVerdict]]) -> str | None:
    """The handler whose verdict decided: the first with the winning decision."""
    for spec, verdict in verdicts:
        if decision != "none" and verdict.decision == decision:
            return _describe(spec)
    for spec, verdict in verdicts:
        if not verdict.continue_ or verdict.updated_input is not None:
            return _describe(spec)
    return None


def _describe(spec: HandlerSpec) -> str:
    command = spec.command or spec.url or spec.prompt or ""
    if spec.args:
        command = " ".join([command, *spec.args])
    return f"{command} ({spec.label})"
