"""Command handlers that run in the background (`async`, `asyncRewake`), and what they leave
for the model (CLAUDE_HOOKS §5.5).

The event does not wait for them and they never vote. When one finishes, what it has for the
model waits in the run's session: an `async` handler's `additionalContext` and
`systemMessage`; an `asyncRewake` handler's stderr (its stdout when stderr is empty) when it
exits 2, after its `rewakeMessage`. Waiting texts reach the model as a system reminder before
its next step. A run about to end while an `asyncRewake` handler is still running, or has
reported, is the idle session Claude Code wakes: the run waits for those handlers (each within
its own timeout) and, if they found anything, goes on with their findings as the next
instruction, as a stop hook's block does. An `async` handler's texts alone do not keep a run
going: they wait for its next step, as in Claude Code they wait for the next turn.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Iterator
from typing import Any, Final, final

from hookagent._record import record
from hookagent.claude._model import HandlerSpec, HandlerVerdict, ProcessOutcome
from hookagent.claude._output import read_verdict
from hookagent.hooks._events import StepEvent, StopEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import BEFORE_STEP, STOP
from hookagent.hooks._result import HookResult
from hookagent.spill._preview import preview

__all__ = ["Background", "Finding", "finding", "read_later", "wake_hooks"]

log = logging.getLogger("hookagent.claude")

TEXT_CAP: Final = 10_000
"""Characters of a finding the model reads, as Claude Code caps hook output."""
_LAST: Final = -1_000_000
"""Priority of the wake hook: after every other stop hook of its tier, so the stop hooks that
start background handlers have started them."""


@record(kw_only=False)
class Finding:
    text: str
    wakes: bool
    """From an `asyncRewake` handler's exit 2: keeps a run that would end going."""
    summary: str | None = None
    """What the user is told when it wakes the model (`rewakeSummary`)."""


def finding(spec: HandlerSpec, outcome: ProcessOutcome, verdict: HandlerVerdict) -> Finding | None:
    """What a finished background handler has for the model, if anything."""
    if spec.async_rewake and outcome.exit_code == 2:
        body = outcome.stderr.strip() or outcome.stdout.strip() or "(no output)"
        file = outcome.stderr_file if outcome.stderr.strip() else outcome.stdout_file
        if len(body) > TEXT_CAP:
            size = f"{len(body):,} characters"
            body = preview(body, what="background hook output", size=size, path=file)
        head = spec.rewake_message or f"A background hook ({_named(spec)}) found:"
        summary = spec.rewake_summary or f"background hook {spec.label} exited 2"
        return Finding(text=f"{head}\n\n{body}", wakes=True, summary=summary)
    texts = [t for t in (verdict.additional_context, verdict.system_message) if t]
    return Finding(text="\n".join(texts), wakes=False) if texts else None


async def read_later(
    event: str,
    spec: HandlerSpec,
    ran: Awaitable[ProcessOutcome],
    *,
    spill_dir: str | None,
) -> Finding | None:
    """A background handler's run (`ran`), read for what it has for the model; its errors
    are logged, as nothing waits for it to report them."""
    outcome = await ran
    verdict = read_verdict(event, outcome, spec, spill_dir=spill_dir)
    found = finding(spec, outcome, verdict)
    if verdict.error and not (found and found.wakes):
        log.warning("%s hook (background) %s: %s", event, spec.label, verdict.error)
    return found


def _named(spec: HandlerSpec) -> str:
    return " ".join([spec.command or "", *(spec.args or ())]).strip() or spec.label


@final
class Background:
    """A run's background handlers: those still running, and what finished ones found."""

    __slots__ = ("_findings", "_rewakes", "tasks")

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()
        self._rewakes: set[asyncio.Task[Any]] = set()
        self._findings: list[Finding] = []

    def start(self, spec: HandlerSpec, task: asyncio.Task[Finding | None]) -> None:
        """Keep `task` (one handler's run) and its finding when it has one."""
        self.tasks.add(task)
        if spec.async_rewake:
            self._rewakes.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Finding | None]) -> None:
        self.tasks.discard(task)
        self._rewakes.discard(task)
        if task.cancelled():
            return
        if (error := task.exception()) is not None:
            log.warning("background hook failed: %s", error)
        elif (found := task.result()) is not None:
            self._findings.append(found)

    def take(self) -> list[Finding]:
        """The findings not yet given to the model; they are given now."""
        found, self._findings = self._findings, []
        return found

    @property
    def may_wake(self) -> bool:
        """An `asyncRewake` handler is running, or one has findings waiting."""
        return bool(self._rewakes) or any(f.wakes for f in self._findings)

    async def settle(self) -> None:
        """Wait for the `asyncRewake` handlers still running (each ends by its timeout)."""
        while self._rewakes:
            await asyncio.wait(set(self._rewakes))


def wake_hooks(of_run: Any, source: str) -> Iterator[Hook[Any]]:
    """The hooks that give findings to the model: as a system reminder before each step, and
    as the next instruction when the run would end while an `asyncRewake` handler may wake it.
    `of_run(run)` gives the run's `Background`, or None."""

    def deliver(event: StepEvent) -> HookResult | None:
        background = of_run(event.run)
        found = background.take() if background is not None else []
        if not found:
            return None
        return HookResult.context("\n\n".join(f.text for f in found))

    async def wake(event: StopEvent) -> HookResult | None:
        background = of_run(event.run)
        if background is None or not background.may_wake:
            return None
        await background.settle()
        found = background.take()
        if not any(f.wakes for f in found):
            return None
        for f in found:
            if f.summary:
                log.warning("%s", f.summary)  # the user's one line, as Claude Code shows it
        return HookResult.block("\n\n".join(f.text for f in found))

    yield make_hook(
        BEFORE_STEP, deliver, name="background", source=source, kind="transform", timeout=None
    )
    yield make_hook(STOP, wake, name="rewake", source=source, priority=_LAST, timeout=None)
