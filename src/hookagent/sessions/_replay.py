"""Replay: a recorded run's hook folds run again through today's hooks, with the model's
replies and the tools' results taken from the record, and every decision that changed is
reported. A policy change can be tried against real past runs before it ships.

Nothing is called for real: the model is the record's replies in order (by how far the
conversation has got, so a retry or a rewrite stays aligned), and each tool returns what the
call returned when it ran. A call that the record blocked but today's hooks let through has
no recorded result: it gets an error result saying so, and the replay goes on. No one is
asked either: a question a hook asks again where the record has its answer gets that
answer (so an approved `ask` replays as the same `ask`), and one the record never answered
is denied, saying so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, final

from hookagent._agent import Agent
from hookagent._errors import StoreError
from hookagent._messages import AssistantMessage, Message, UserMessage
from hookagent._record import record
from hookagent.durable import _codec as codec
from hookagent.durable._reconcile import RECONCILE
from hookagent.hooks._decision import Decision
from hookagent.kernel._approval import Answer, Question
from hookagent.kernel._records import StepRecord
from hookagent.models._base import ModelResponse
from hookagent.models._scripted import ScriptedModel
from hookagent.store._base import Store
from hookagent.tools._base import Tool, ToolContext, ToolResult

__all__ = ["Change", "ReplayReport", "Recording", "load_recording", "replay"]


@record
class Change:
    """One decision that came out differently."""

    point: str
    step: int
    call_id: str | None
    before: str
    """`outcome by hook`, or `none` when no hook decided there before."""
    after: str
    reason: str | None

    def line(self) -> str:
        where = f"step {self.step} {self.point}" + (f" call {self.call_id}" if self.call_id else "")
        why = f" — {self.reason}" if self.reason else ""
        return f"{where}: {self.before} → {self.after}{why}"


@final
@dataclass(slots=True, kw_only=True)
class Recording:
    """What a run did, as replay needs it."""

    run_id: str
    prompt: str
    replies: list[AssistantMessage]
    results: dict[str, ToolResult]
    decisions: list[Decision]
    system_prompt: str | None = None

    @classmethod
    def of(
        cls,
        run_id: str,
        prompt: str,
        messages: Sequence[Message],
        steps: Iterable[StepRecord],
        decisions: Iterable[Decision],
    ) -> Recording:
        """A run's recording from its conversation, steps and decisions, wherever it was
        kept (a store, a Temporal workflow's history)."""
        return cls(
            run_id=run_id,
            prompt=prompt,
            replies=[m for m in messages if isinstance(m, AssistantMessage)],
            results={e.call_id: e.result for s in steps for e in s.executions if not e.blocked},
            decisions=list(decisions),
        )


@final
@dataclass(slots=True, kw_only=True)
class ReplayReport:
    run_id: str
    changes: list[Change] = field(default_factory=list[Change])
    decisions_before: int = 0
    decisions_after: int = 0
    status_before: str = ""
    status_after: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "changed": len(self.changes),
            "decisions_before": self.decisions_before,
            "decisions_after": self.decisions_after,
            "changes": [
                {
                    "point": c.point,
                    "step": c.step,
                    "call_id": c.call_id,
                    "before": c.before,
                    "after": c.after,
                    "reason": c.reason,
                }
                for c in self.changes
            ],
        }


async def load_recording(store: Store, run_id: str) -> Recording:
    rows = await store.rows(run_id)
    if rows is None:
        raise StoreError(f"no run {run_id!r} in {store.url}")
    messages: list[Message] = [codec.load("message", m) for m in rows.messages]
    steps: list[StepRecord] = [codec.load("step", s) for s in rows.steps]
    prompt = rows.run.prompt or next(
        (m.content for m in messages if isinstance(m, UserMessage) and not m.synthetic), ""
    )
    decisions = [codec.load("decision", d) for d in rows.decisions]
    return Recording.of(run_id, prompt, messages, steps, decisions)


async def replay(recording: Recording, agent: Agent) -> ReplayReport:
    """Run `recording` through `agent`'s hooks (its model and tools are not used)."""
    model = ScriptedModel(
        [ModelResponse(message=m, model_name="replay") for m in recording.replies],
        source=f"recording of {recording.run_id}",
        by_history=True,
    )
    tools: dict[str, Tool] = {
        name: _Recorded(tool.name, tool.description, tool.parameters, recording.results)
        for name, tool in agent.tools.items()
    }
    for reply in recording.replies:  # tools the record used that today's agent lacks
        for call in reply.tool_calls:
            if call.name not in tools:
                tools[call.name] = _Recorded(
                    call.name, "(recorded)", {"type": "object"}, recording.results
                )
    twin = Agent(
        model=model,
        tools=tools,
        registry=agent.registry.copy(),
        system_prompt=agent.system_prompt,
        settings=agent.settings,
        budgets=agent.budgets,
    )
    result = await twin.run(recording.prompt, approver=_recorded_answers(recording.decisions))
    after = list(result.decisions)
    before = [d for d in recording.decisions if d.point != RECONCILE]  # no crash to settle
    return ReplayReport(
        run_id=recording.run_id,
        changes=compare(before, after),
        decisions_before=len(before),
        decisions_after=len(after),
        status_after=result.status,
    )


def compare(before: Sequence[Decision], after: Sequence[Decision]) -> list[Change]:
    """Decisions matched by (point, step, call, occurrence): those whose outcome or deciding
    hook differ, and those on one side only, in the order they were made."""
    old, new = _keyed(before), _keyed(after)
    order = {key: index for index, key in enumerate([*new, *(k for k in old if k not in new)])}
    changes: list[Change] = []
    for key in sorted(old.keys() | new.keys(), key=lambda k: (k[1], order[k])):
        was, now = old.get(key), new.get(key)
        if was is not None and now is not None and _label(was) == _label(now):
            continue
        point, step, call_id, _ = key
        shown = now or was
        changes.append(
            Change(
                point=point,
                step=step,
                call_id=call_id,
                before=_label(was) if was is not None else "none",
                after=_label(now) if now is not None else "none",
                reason=shown.reason if shown is not None else None,
            )
        )
    return changes


Key = tuple[str, int, str | None, int]


def _keyed(decisions: Sequence[Decision]) -> dict[Key, Decision]:
    seen: Counter[tuple[str, int, str | None]] = Counter()
    out: dict[Key, Decision] = {}
    for d in decisions:
        base = (d.point, d.step, d.call_id)
        out[(*base, seen[base])] = d
        seen[base] += 1
    return out


def _label(decision: Decision) -> str:
    """`outcome by hook`: the deciding hook, or for a context the hooks that added it."""
    hook = decision.hook or ", ".join(v.hook for v in decision.votes) or None
    return f"{decision.outcome} by {hook}" if hook else decision.outcome


def _recorded_answers(decisions: Sequence[Decision]) -> Callable[[Question], Answer]:
    """An approver answering each question as the record answered it at the same point,
    step and call (in order, when one was asked there twice)."""
    answered: dict[tuple[str, int, str | None], list[str]] = {}
    for d in decisions:
        if d.answer is not None:
            answered.setdefault((d.point, d.step, d.call_id), []).append(d.answer)

    def answer(question: Question) -> Answer:
        given = answered.get((question.point, question.step, question.call_id))
        if not given:
            return Answer(
                approved=False,
                reason="the record has no answer to this question, and a replay asks no one",
                by="replay",
            )
        text = given.pop(0)
        return Answer(approved=text.startswith("approved"), reason=text, by="replay")

    return answer


@final
class _Recorded:
    """A tool that answers with what its call returned in the recording."""

    def __init__(
        self,
        name: str,
        description: str,
        parameters: Mapping[str, Any],
        results: Mapping[str, ToolResult],
    ) -> None:
        self.name = name
        self.description = description
        self.parameters = parameters
        self._results = results

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext, /) -> ToolResult:
        recorded = self._results.get(ctx.call.id)
        if recorded is None:
            return ToolResult.error(
                "Not recorded: the original run did not execute this call (replay calls no "
                "tool for real)."
            )
        return recorded
