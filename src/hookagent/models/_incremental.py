"""Which messages of a history a driver has already converted, so each request converts only
what was appended since the last one; and which of them are the driver's own replies, whose
wire form it sends back as it came (`Originals`).

Two cases. The run's own live history (the same sequence object as last time) only grows,
unless compaction replaces its start: checking the first message and the last one converted
is enough, in constant time. Any other sequence — a new run, or a list a `before_inference`
hook built, perhaps with a message in the middle redacted — is compared message by message
(identity only, at C speed), so a rewritten message is never sent in its old form.

`Incremental` puts the two together for a driver's converter, which says only how one
message and one reply's text and tool calls are written on its wire.
"""

from __future__ import annotations

import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, final

from hookagent._messages import AssistantMessage, Message, ToolCall

__all__ = ["Incremental", "Originals", "SeenPrefix"]


@final
class SeenPrefix:
    __slots__ = ("history", "messages")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.history: Sequence[Message] | None = None
        """The sequence last converted from (a run's live view of its messages)."""

    def new(self, history: Sequence[Message]) -> tuple[bool, Sequence[Message]]:
        """Whether `history` is not a continuation of what was seen (convert it all over),
        and the messages still to convert; they are counted as seen."""
        seen, done = self.messages, len(self.messages)
        continues = not done or (
            len(history) >= done
            and history[0] is seen[0]
            and history[done - 1] is seen[done - 1]
            and (history is self.history or not any(map(operator.is_not, seen, history)))
        )
        if not continues:
            seen.clear()
            done = 0
        self.history = history
        todo = history[done:]
        seen.extend(todo)
        return not continues, todo


@final
class Originals:
    """The driver's own replies whose wire form carries more than the neutral message
    (reasoning, thinking): sent back verbatim for as long as that exact reply object stays in
    the history."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[int, tuple[AssistantMessage, list[dict[str, Any]]]] = {}

    def remember(self, message: AssistantMessage, wire: list[dict[str, Any]]) -> None:
        self._kept[id(message)] = (message, wire)

    def wire(self, message: Message) -> list[dict[str, Any]] | None:
        """A copy of the reply's wire form, if `message` is that very reply (an id alone
        may be reused)."""
        kept = self._kept.get(id(message))
        return list(kept[1]) if kept is not None and kept[0] is message else None

    def keep_only(self, history: Sequence[Message]) -> None:
        """Forget the replies no longer in `history`."""
        alive = {id(m) for m in history}
        self._kept = {k: v for k, v in self._kept.items() if k in alive}


class Incremental(ABC):
    """A driver's wire form of a run's history, kept between requests: `update` converts
    the messages appended since the last request, or the whole history again (`_restart`
    first) when it does not continue what was converted."""

    def __init__(self) -> None:
        self.seen = SeenPrefix()
        self.originals = Originals()
        self.converted = 0
        """How many neutral messages were converted, over all requests (for tests)."""
        self.rebuilds = 0
        """How many times the whole history was converted again."""
        self._restart()

    def update(self, messages: Sequence[Message]) -> None:
        fresh, todo = self.seen.new(messages)
        if fresh:
            self.rebuilds += 1
            self.originals.keep_only(messages)
            self._restart()
        for message in todo:
            self.converted += 1
            self._append(message)

    def reply(
        self,
        message: AssistantMessage,
        text: Callable[[str], dict[str, Any]],
        call: Callable[[ToolCall], dict[str, Any]],
    ) -> list[dict[str, Any]]:
        """The wire form of a reply: as the driver received it while `originals` keeps it,
        else its text (when it has any) then its tool calls, each as the driver writes it."""
        original = self.originals.wire(message)
        if original is not None:
            return original
        wire = [text(message.content)] if message.content else []
        wire.extend(map(call, message.tool_calls))
        return wire

    @abstractmethod
    def _restart(self) -> None:
        """Start the wire form empty (first, and before converting a history again)."""

    @abstractmethod
    def _append(self, message: Message) -> None:
        """Append the wire form of one more message."""
