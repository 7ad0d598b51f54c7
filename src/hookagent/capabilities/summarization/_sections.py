"""The sections of a conversation, kept per run so that a step costs the same at any length.

A request's conversation, oldest first::

    [0 ........ boundary)[boundary ........ recent)[recent ........ n)
      summarized            buffer                    recent

- **summarized** — replaced in requests by one synthetic message holding the summary;
- **buffer** — older messages that no longer fit in the recent budget, not summarized yet;
- **recent** — the newest messages that fit in `max_message_tokens` (at least the last
  message, and never starting with a tool result whose call is outside it).

`Ledger` keeps the cumulative token counts of the messages seen so far (appended for new
messages only), so finding the recent boundary is a binary search and the buffer's size a
subtraction: O(new messages + log n) per step. `CompactedMessages` is the request's
conversation — the summary message, then the history from the boundary on — as a live
window over the history, never a copy.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import final, overload

from hookagent._messages import Message, ToolResultMessage, UserMessage
from hookagent.capabilities.summarization._tokens import TokenCounter

__all__ = ["CompactedMessages", "Ledger", "summary_message"]


def summary_message(summary: str) -> UserMessage:
    """The synthetic message that stands for the summarized part of the conversation."""
    return UserMessage(
        content=(
            "The earlier part of this conversation was summarized to save space:\n"
            f"<summary>\n{summary}\n</summary>"
        ),
        synthetic=True,
    )


@final
class Ledger:
    """One run's bookkeeping: cumulative token counts, and the current summary message."""

    __slots__ = ("cumulative", "first", "last", "summary", "summary_text", "window")

    def __init__(self) -> None:
        self.cumulative: list[int] = [0]
        """`cumulative[i]`: tokens of the first `i` messages."""
        self.first: Message | None = None
        self.last: Message | None = None
        """The first and the last message counted: a history that does not still hold them
        at their places is not the one counted (another run's, or rewritten), and is
        counted afresh."""
        self.summary: UserMessage | None = None
        self.summary_text: str | None = None
        self.window: CompactedMessages | None = None

    @property
    def counted(self) -> int:
        return len(self.cumulative) - 1

    def update(self, messages: Sequence[Message], counter: TokenCounter) -> int:
        """Count the messages appended since the last call; returns the history's length."""
        n = len(messages)
        done = len(self.cumulative) - 1
        if done and (
            n < done or messages[0] is not self.first or messages[done - 1] is not self.last
        ):
            self.cumulative = [0]
            done = 0
        if n > done:
            cumulative = self.cumulative
            total = cumulative[-1]
            for message in messages[done:n]:
                total += max(0, int(counter.count(message)))
                cumulative.append(total)
            self.first = messages[0]
            self.last = messages[n - 1]
        return n

    def tokens(self, start: int, stop: int) -> int:
        """Tokens of messages `start` to `stop` (exclusive)."""
        return self.cumulative[stop] - self.cumulative[start]

    def recent_start(self, messages: Sequence[Message], start: int, budget: int) -> int:
        """Where the recent section begins: the oldest message from which the rest fits in
        `budget`, but not after the last message, and moved back onto the assistant message
        whose calls a leading tool result answers. Never before `start`."""
        cumulative = self.cumulative
        n = len(cumulative) - 1
        if n <= start:
            return n
        recent = min(bisect_left(cumulative, cumulative[n] - budget, start, n), n - 1)
        while recent > start and isinstance(messages[recent], ToolResultMessage):
            recent -= 1
        return recent

    def window_for(
        self, summary: str, history: Sequence[Message], boundary: int
    ) -> CompactedMessages:
        """The request's conversation: the same objects while the summary and the boundary
        are unchanged (the summary message, and the live window itself), so drivers that
        convert incrementally see the previous request continued, not a new one."""
        if self.summary is None or self.summary_text != summary:
            self.summary = summary_message(summary)
            self.summary_text = summary
        window = self.window
        if (
            window is None
            or window.summary is not self.summary
            or window.history is not history
            or window.start != boundary
        ):
            window = self.window = CompactedMessages(self.summary, history, boundary)
        return window


@final
class CompactedMessages(Sequence[Message]):
    """The summary message, then `history[start:]`: a live window, built in O(1).

    Live like the run's own view: a message appended to the history later (an
    after_inference retry's feedback) is in the window too.
    """

    __slots__ = ("_history", "_start", "summary")

    def __init__(self, summary: Message, history: Sequence[Message], start: int) -> None:
        self.summary = summary
        self._history = history
        self._start = start

    @property
    def start(self) -> int:
        """The index in the history of the window's second message."""
        return self._start

    @property
    def history(self) -> Sequence[Message]:
        return self._history

    def __len__(self) -> int:
        return 1 + max(0, len(self._history) - self._start)

    @overload
    def __getitem__(self, index: int) -> Message: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Message]: ...
    def __getitem__(self, index: int | slice) -> Message | Sequence[Message]:
        size = len(self)
        if isinstance(index, slice):
            first, stop, step = index.indices(size)
            if step != 1:
                return [self[i] for i in range(first, stop, step)]
            if stop <= first:
                return []
            head: list[Message] = [self.summary] if first == 0 else []
            lo = self._start + max(first, 1) - 1
            hi = self._start + stop - 1
            return head + list(self._history[lo:hi]) if hi > lo else head
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError("CompactedMessages index out of range")
        return self.summary if position == 0 else self._history[self._start + position - 1]

    def __iter__(self) -> Iterator[Message]:
        yield self.summary
        history = self._history
        for position in range(self._start, len(history)):
            yield history[position]

    def __repr__(self) -> str:
        return f"CompactedMessages(start={self._start}, len={len(self)})"
