"""`Summarization`: keep each request's conversation within a token budget.

A `before_inference` hook (`summarization:compact`) splits the request's conversation into
three sections (see `sections`): **summary** (what earlier compactions summarized),
**buffer** (older messages that no longer fit in `max_message_tokens` and are not summarized
yet) and **recent** (the newest messages that fit). Once the buffer exceeds
`max_buffer_tokens` it is compacted:

1. `before_compact` fires (trigger `auto`): a block skips compaction this time (the request
   carries the buffer unchanged), a stop ends the run, and `instructions` rewritten by its
   hooks are appended to the summarizer's prompt;
2. the summarizer (the agent's own model unless one is given) gets the previous summary and
   the buffer in one call, with `max_tokens = max_summary_tokens`;
3. the new summary and the index up to which messages are summarized go into the run's
   metadata (`SUMMARY`, `BOUNDARY`), as a recorded change of this hook;
4. `after_compact` fires with the summary.

The request then carries one synthetic summary message followed by the history from the
boundary on (buffer, then recent). Only the request is compacted: the run's own history
stays whole and append-only, so records, stores and resumption see every message.

Per step the hook counts only the messages appended since the previous step and finds the
recent boundary by binary search over cumulative counts: O(new messages + log n), whatever
the history's length. The bookkeeping is per run and dropped at `execution_end`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, final

from hookagent._errors import ConfigError, ModelError
from hookagent._messages import Message, UserMessage
from hookagent._record import record
from hookagent._usage import Usage
from hookagent.capabilities.summarization._prompt import summary_prompt
from hookagent.capabilities.summarization._sections import Ledger
from hookagent.capabilities.summarization._tokens import EstimatedTokens, TokenCounter
from hookagent.hooks._events import CompactEvent, InferenceEvent, RunEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_COMPACT, BEFORE_COMPACT, BEFORE_INFERENCE, EXECUTION_END
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._view import RunView
from hookagent.models._base import Model, ModelRequest
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = ["BOUNDARY", "COMPACTIONS", "SUMMARIZER_USAGE", "SUMMARY", "Summarization"]

SUMMARY: Final = MetadataKey[str]("summarization.summary")
"""The current summary of the conversation's start."""
BOUNDARY: Final = MetadataKey[int]("summarization.boundary", default=0)
"""How many messages of the conversation (from its start) the summary stands for."""
COMPACTIONS: Final = MetadataKey[int]("summarization.compactions", default=0)
"""How many times the run's conversation was compacted."""
SUMMARIZER_USAGE: Final = MetadataKey[dict[str, int]]("summarization.usage")
"""Tokens the summarizer's calls used (not part of the run's own usage or its limits)."""

_PRIORITY: Final = -100
"""After other before_inference hooks of its tier, so it budgets the request they shaped."""


@final
class Summarization:
    name = "summarization"

    def __init__(
        self,
        *,
        summarizer: Model | None = None,
        max_message_tokens: int = 4096,
        max_buffer_tokens: int = 8192,
        max_summary_tokens: int = 512,
        counter: TokenCounter | None = None,
    ) -> None:
        if summarizer is not None and not isinstance(summarizer, Model):
            raise ConfigError(
                f"must be a model driver (name and async request()), not {summarizer!r:.80}",
                key="Summarization(summarizer)",
                value=summarizer,
            )
        for key, value in (
            ("max_message_tokens", max_message_tokens),
            ("max_buffer_tokens", max_buffer_tokens),
            ("max_summary_tokens", max_summary_tokens),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(
                    f"must be a whole number of tokens >= 1, not {value!r}",
                    key=f"Summarization({key})",
                    value=value,
                )
        if counter is not None and not isinstance(counter, TokenCounter):
            raise ConfigError(
                f"must have a count(message) -> int method, not {counter!r:.80}",
                key="Summarization(counter)",
                value=counter,
            )
        self._summarizer = summarizer
        self._bound: Model | None = None
        self.max_message_tokens = max_message_tokens
        self.max_buffer_tokens = max_buffer_tokens
        self.max_summary_tokens = max_summary_tokens
        self.counter: TokenCounter = counter if counter is not None else EstimatedTokens()
        self._ledgers: dict[str, Ledger] = {}
        """Per-run bookkeeping, by run id; dropped when the run's execution ends."""

    def bind(self, agent: Agent, /) -> None:
        """With no summarizer given, the agent's own model summarizes."""
        self._bound = agent.model

    @property
    def summarizer(self) -> Model | None:
        return self._summarizer or self._bound

    @property
    def active_runs(self) -> int:
        """Runs whose bookkeeping is held (for tests and diagnostics)."""
        return len(self._ledgers)

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        common: dict[str, Any] = {"source": self.name, "timeout": None, "quiet": True}
        yield make_hook(
            BEFORE_INFERENCE, self.compact, name="compact", priority=_PRIORITY, **common
        )
        yield make_hook(EXECUTION_END, self.forget, name="forget", kind="observer", **common)

    # -- hooks ------------------------------------------------------------------------
    async def compact(self, event: InferenceEvent) -> HookResult | None:
        """Budget the request: compact the buffer if it grew too big, then send the summary
        message and the history from the boundary on (the request unchanged with no
        summary yet)."""
        run = event.run
        request = event.request
        messages = request.messages
        ledger = self._ledgers.get(run.run_id)
        if ledger is None:
            ledger = self._ledgers[run.run_id] = Ledger()
        n = ledger.update(messages, self.counter)
        summary, boundary = _current(run.metadata, n)
        recent = ledger.recent_start(messages, boundary, self.max_message_tokens)
        changes: dict[str, Any] = {}
        if ledger.tokens(boundary, recent) > self.max_buffer_tokens:
            made = await self._summarize(run, event.step, summary, messages, boundary, recent)
            if isinstance(made, HookResult):
                return made
            if made is not None:
                summary, boundary = made.text, recent
                changes = _stored(run.metadata, made, recent)
                stopped = await self._after(run, made.text)
                if stopped is not None:
                    return stopped.with_changes(metadata=changes)
        if summary is None:
            return None
        window = ledger.window_for(summary, messages, boundary)
        result = HookResult.modify(request=replace(request, messages=window))
        return result.with_changes(metadata=changes) if changes else result

    def forget(self, event: RunEvent) -> None:
        self._ledgers.pop(event.run.run_id, None)

    # -- compaction -------------------------------------------------------------------
    async def _summarize(
        self,
        run: RunView,
        step: int,
        previous: str | None,
        messages: Sequence[Message],
        start: int,
        stop: int,
    ) -> _Summary | HookResult | None:
        """The new summary; None if a before_compact hook blocked it; a stop result if one
        stopped the run."""
        decision, before = await run.fire(BEFORE_COMPACT, CompactEvent(run=run, trigger="auto"))
        if decision.outcome == "stop":
            return HookResult.stop(
                f"compaction stopped by {decision.hook or 'a before_compact hook'}: "
                f"{decision.reason or 'no reason given'}",
                stop_reason=decision.stop_reason or "hook_stop",
            )
        if decision.outcome == "block":
            return None
        model = self.summarizer
        if model is None:
            raise ConfigError(
                "no summarizer: pass summarizer= or install the capability with "
                "AgentBuilder().with_(...), which lends it the agent's model",
                key="Summarization(summarizer)",
            )
        prompt = summary_prompt(
            previous, messages[start:stop], before.instructions, limit=self.max_summary_tokens
        )
        response = await model.request(
            ModelRequest(
                messages=(UserMessage(content=prompt, synthetic=True),),
                settings={"max_tokens": self.max_summary_tokens},
                step=step,
            )
        )
        text = response.message.content.strip()
        if not text:
            raise ModelError(
                "the summarizer returned no text", provider="summarizer", model=model.name
            )
        return _Summary(text=text, usage=response.usage)

    async def _after(self, run: RunView, summary: str) -> HookResult | None:
        decision, _ = await run.fire(
            AFTER_COMPACT, CompactEvent(run=run, trigger="auto", summary=summary)
        )
        if decision.outcome != "stop":
            return None
        return HookResult.stop(
            f"stopped after compaction by {decision.hook or 'an after_compact hook'}: "
            f"{decision.reason or 'no reason given'}",
            stop_reason=decision.stop_reason or "hook_stop",
        )


@record(kw_only=False)
class _Summary:
    text: str
    usage: Usage


def _current(metadata: Mapping[str, Any], n: int) -> tuple[str | None, int]:
    """The stored summary and boundary; none if the metadata holds no usable summary."""
    summary = metadata.get(SUMMARY.name)
    boundary = metadata.get(BOUNDARY.name, 0)
    if not isinstance(summary, str) or not summary:
        return None, 0
    if isinstance(boundary, bool) or not isinstance(boundary, int) or boundary < 0:
        return None, 0
    return summary, min(boundary, n)


def _stored(metadata: Mapping[str, Any], made: _Summary, boundary: int) -> dict[str, Any]:
    """The metadata a compaction writes."""
    spent = metadata.get(SUMMARIZER_USAGE.name)
    before = spent if isinstance(spent, Mapping) else {}
    usage = made.usage
    return {
        SUMMARY.name: made.text,
        BOUNDARY.name: boundary,
        COMPACTIONS.name: int(metadata.get(COMPACTIONS.name, 0)) + 1,
        SUMMARIZER_USAGE.name: {
            "input_tokens": int(before.get("input_tokens", 0)) + usage.input_tokens,
            "output_tokens": int(before.get("output_tokens", 0)) + usage.output_tokens,
            "requests": int(before.get("requests", 0)) + max(usage.requests, 1),
        },
    }
