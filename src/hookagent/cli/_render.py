"""The live view of a run, shared by `hookagent run` and `hookagent demo`.

It prints stream events as they arrive: steps, what the model says (word by word when the
driver streams), each tool call with its result, and every decision that did something,
naming the hook that made it. Text is built
as `rich.text.Text`, never markup, so brackets in tool output print as they are.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final, final

from rich.console import Console
from rich.text import Text

from hookagent._agent import Agent
from hookagent.hooks._decision import Decision
from hookagent.kernel._approval import Approver
from hookagent.kernel._records import ToolExecution
from hookagent.kernel._result import RunResult
from hookagent.live._events import (
    DecisionMade,
    ModelReplied,
    QuestionWaiting,
    ReasoningDelta,
    RunFinished,
    StepStarted,
    StreamEvent,
    TextDelta,
    ToolFinished,
    ToolStarted,
)

__all__ = ["Interrupted", "LiveRenderer", "decision_line", "is_shown", "shown", "stream_run"]

SHORT: Final = 100
"""Characters of a tool result or argument value shown before it is cut."""

_OUTCOME_STYLE: Final = {
    "block": "bold red",
    "stop": "bold yellow",
    "ask": "bold magenta",
    "retry": "bold yellow",
    "continue": "bold cyan",
    "modify": "bold blue",
    "context": "cyan",
}
_STATUS_STYLE: Final = {"completed": "bold green", "stopped": "bold yellow", "failed": "bold red"}


def is_shown(decision: Decision) -> bool:
    """Notable decisions (as `DecisionLog.notable`), minus two routines: tool-call presence
    says `continue` after every step with tool calls, and the cost meter adds up every reply
    (the total is in the summary). Showing them would bury the decisions people look for.
    """
    notable = decision.outcome != "proceed" or any(v.error for v in decision.votes)
    routine = (
        decision.point == "should_continue"
        and decision.outcome == "continue"
        and decision.hook == "limits:tool_call_presence"
    ) or (decision.outcome == "modify" and decision.hook == "limits:cost_meter")
    return notable and not routine


class Interrupted(Exception):
    """Ctrl-C stopped the run (`asyncio.run` cancelled its task); `result` is how it stopped."""

    def __init__(self, result: RunResult) -> None:
        super().__init__(result.run_id)
        self.result = result


async def stream_run(
    agent: Agent,
    prompt: str,
    renderer: LiveRenderer | None,
    *,
    approver: Approver | None = None,
    metadata: Mapping[str, Any] | None = None,
    session: str | None = None,
    clear: bool = False,
) -> RunResult:
    """Run `agent` on `prompt`, showing each event (with a renderer; without one, model calls
    are not streamed); the result the stream ended with. Cancelled (Ctrl-C), the run stops
    and shows how; then `Interrupted`."""
    events = agent.stream(
        prompt,
        approver=approver,
        metadata=metadata,
        session=session,
        deltas=renderer is not None,
        clear=clear,
    )
    return await shown(events, renderer)


async def shown(events: AsyncIterator[StreamEvent], renderer: LiveRenderer | None) -> RunResult:
    """Show each of a run's `events` (with a renderer); the result the stream ended with.
    Cancelled (Ctrl-C) after the run stopped and said so: `Interrupted`."""
    result: RunResult | None = None
    try:
        async for event in events:
            if renderer is not None:
                renderer.show(event)
            if isinstance(event, RunFinished):
                result = event.result
    except asyncio.CancelledError:
        if result is None:
            raise
        raise Interrupted(result) from None
    if result is None:
        raise RuntimeError("the run's stream ended without a RunFinished event")
    return result


@final
class LiveRenderer:
    """Turns stream events into lines on a console."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._asked: dict[str, Mapping[str, Any]] = {}
        """Arguments each call was made with, to show when hooks rewrote them."""
        self._open: type[TextDelta | ReasoningDelta] | None = None
        """The kind of delta whose line is being written, if one is."""
        self._streamed: list[str] = []
        """The answer text streamed in this step, to tell whether a hook rewrote it."""

    def show(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta | ReasoningDelta):
            self._delta(event)
            return
        self._close()
        if isinstance(event, StepStarted):
            self._streamed.clear()
            self._line(Text(f"step {event.step}", style="bold"))
        elif isinstance(event, ModelReplied):
            text = event.response.message.content.strip()
            streamed = "".join(self._streamed).strip()
            self._streamed.clear()
            if text and text != streamed:
                label = "  model (after hooks): " if streamed else "  model: "
                self._line(Text(label, style="dim") + Text(text))
        elif isinstance(event, ToolStarted):
            self._asked[event.call_id] = event.args
            self._line(Text("  → ", style="dim") + Text(_call(event.name, event.args)))
        elif isinstance(event, DecisionMade):
            if is_shown(event.decision):
                self._line(decision_line(event.decision))
        elif isinstance(event, ToolFinished):
            self._line(self._result_line(event.execution))
        elif isinstance(event, QuestionWaiting):
            self._line(_waiting(event))
        elif isinstance(event, RunFinished):
            self.summary(event.result)

    def _delta(self, event: TextDelta | ReasoningDelta) -> None:
        kind = type(event)
        piece = event.text
        if kind is TextDelta:
            self._streamed.append(piece)
        if self._open is not kind:
            piece = piece.lstrip()
            if not piece:
                return  # no line for leading whitespace
            self._close()
            label = "  model: " if kind is TextDelta else "  thinking: "
            self.console.print(Text(label, style="dim"), end="")
            self._open = kind
        style = "dim italic" if kind is ReasoningDelta else ""
        self.console.print(Text(piece, style=style), end="", soft_wrap=True)

    def _close(self) -> None:
        if self._open is not None:
            self.console.print()
            self._open = None

    def summary(self, result: RunResult) -> None:
        status = Text(result.status, style=_STATUS_STYLE.get(result.status, "bold"))
        line = Text("─ ") + status + Text(f" · stop reason: {result.stop_reason}")
        cost = result.state.metadata.get("cost_usd")
        if isinstance(cost, int | float):
            line += Text(f" · cost ${cost:.4f}")
        self._line(line)
        for label, value in (
            ("stop message", result.stop_message),
            ("error", result.error),
            ("output", result.output),
        ):
            if value:
                self._line(Text(f"  {label}: ", style="dim") + Text(value))

    def _result_line(self, execution: ToolExecution) -> Text:
        line = Text("    ← ", style="dim")
        asked = self._asked.pop(execution.call_id, execution.args)
        if dict(asked) != dict(execution.args) and not execution.blocked:  # a blocked call
            # did not run: the decision line above says what was rewritten and who blocked
            line += Text("ran as ", style="blue") + Text(_call(execution.name, execution.args))
            line += Text(": ")
        if execution.blocked:
            line += Text("[blocked] ", style="bold red")
        elif execution.result.is_error:
            line += Text("[error] ", style="red")
        return line + Text(_short(execution.result.content))

    def _line(self, text: Text) -> None:
        self.console.print(text)


def decision_line(decision: Decision) -> Text:
    """`decision <point>: <outcome> by <hook> — <reason, what changed, the start of the
    text hooks added>`."""
    style = _OUTCOME_STYLE.get(decision.outcome, "bold")
    line = Text("    decision ", style="dim") + Text(f"{decision.point}: ")
    line += Text(decision.outcome, style=style)
    if decision.hook:
        line += Text(" by ") + Text(decision.hook, style="bold")
        if decision.by:
            line += Text(f" ({decision.by})")
    details = [decision.reason] if decision.reason else []
    details += [change for vote in decision.votes for change in _changes(vote.changes)]
    if decision.contexts:
        details.append("added: " + _short("\n".join(decision.contexts)))
    details += [
        f"{vote.hook} failed: {vote.error}"
        for vote in decision.votes
        if vote.error and not (decision.reason and vote.error in decision.reason)
    ]
    if details:
        line += Text(" — " + "; ".join(details))
    return line


def _waiting(event: QuestionWaiting) -> Text:
    """`waiting for an answer: <question> (question q1 of run RUN_ID)`."""
    question = event.question
    line = Text("    waiting for an answer: ", style="bold magenta")
    line += Text(str(question.get("question") or question.get("tool_name") or ""))
    return line + Text(f" (question {question.get('id')} of run {event.run_id})", style="dim")


def _changes(changes: Mapping[str, Any], prefix: str = "") -> list[str]:
    """`args.command: 'git push' → 'git push --dry-run'` for each changed field."""
    out: list[str] = []
    for name, change in changes.items():
        where = f"{prefix}{name}"
        if isinstance(change, Mapping) and set(change) <= {"before", "after"}:
            before = change.get("before")
            out.append(f"{where}: {_value(before)} → {_value(change.get('after'))}")
        elif isinstance(change, Mapping):
            out.extend(_changes(change, f"{where}."))
        else:
            out.append(f"{where} changed")
    return out


def _call(name: str, args: Mapping[str, Any]) -> str:
    inner = ", ".join(f"{key}={_value(value)}" for key, value in args.items())
    return f"{name}({inner})"


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return _short(repr(text) if isinstance(value, str) else text)


def _short(text: str) -> str:
    """One line of at most `SHORT` characters; line breaks show as ⏎."""
    flat = " ⏎ ".join(line.strip() for line in text.strip().splitlines() if line.strip())
    return flat if len(flat) <= SHORT else flat[: SHORT - 1] + "…"
