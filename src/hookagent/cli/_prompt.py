"""`TerminalApprover`: questions from hooks, answered by the person at the terminal.

`hookagent run` passes one to the run when stdin and stdout are terminals and the run is not
kept in a store (a stored run's questions pause it for `hookagent approve` instead). It
prints the question, the tool and its arguments, and reads one line:

- ``y``, ``yes`` or nothing: approve this call (``once``);
- ``r``: approve this call for the rest of the run; ``s``: for the session (this process);
- ``a``: always: `Approvals` saves an allow rule to the project's settings;
- ``n`` or ``no``, optionally followed by a reason: deny; the model reads the reason.

``r``, ``s`` and ``a`` are offered when the question offers them (`Approvals`' questions
do); a question offering other options also takes them as typed. Anything else asks again;
end of input denies ("no answer").

The line is read on a daemon thread and awaited, so the event loop keeps running (streamed
output, timers, a hook's timeout) while the person thinks. Not `asyncio.to_thread`: its
worker is joined when `asyncio.run` ends, so a read still blocked after a timeout or Ctrl-C
would hold the process until Enter is pressed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Mapping
from typing import Any, Final, TextIO, final

from hookagent.kernel._approval import Answer, Question

__all__ = ["TerminalApprover"]

_APPROVE: Final = frozenset({"", "y", "yes", "once", "o"})
_DENY: Final = frozenset({"n", "no", "deny", "d"})
_SCOPES: Final = {"r": "run", "run": "run", "s": "session", "session": "session"}
_ALWAYS: Final = frozenset({"a", "always"})
_LABELS: Final = {
    "once": "y once",
    "run": "r this run",
    "session": "s this session",
    "always": "a always",
    "deny": "n [reason] deny",
}
_CATCH_UP: Final = 3
"""Turns of the event loop given before asking, so the live view (`hookagent run` prints
stream events from another task) shows what led to the question before it."""
_VALUE: Final = 80
"""Characters of an argument's value shown."""


@final
class TerminalApprover:
    """An approver (`run(..., approver=TerminalApprover())`) that asks at the terminal.

    `input` and `output` default to stdin and stderr (stdout carries the run's own view).
    """

    def __init__(self, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stderr
        self._pending: asyncio.Future[str] | None = None
        """A line being read; kept when the question that asked for it timed out, so the
        next question does not start a second reader on the same stream."""
        self._lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    async def __call__(self, question: Question) -> Answer:
        async with self._one_at_a_time():
            for _ in range(_CATCH_UP):
                await asyncio.sleep(0)
            self._write(_describe(question))
            hint = _hint(question.options)
            while True:
                self._write(f"answer [{hint}]: ")
                line = await self._readline()
                if not line:
                    self._write("\n")
                    return Answer(approved=False, reason="no answer", by="terminal")
                answer = _parse(line.strip(), question.options)
                if answer is not None:
                    return answer
                self._write(f"  please answer {_choices(question.options)}\n")

    def _one_at_a_time(self) -> asyncio.Lock:
        """Questions asked at once (parallel tool calls) are put one after the other."""
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock[0] is not loop:
            self._lock = (loop, asyncio.Lock())
        return self._lock[1]

    async def _readline(self) -> str:
        loop = asyncio.get_running_loop()
        pending = self._pending
        if pending is None or pending.done() or pending.get_loop() is not loop:
            # (a line that came in after its question timed out answered nothing: dropped)
            pending = self._pending = loop.create_future()
            reader = threading.Thread(
                target=_read, args=(self.input, loop, pending), daemon=True, name="hookagent-ask"
            )
            reader.start()
        line = await asyncio.shield(pending)
        self._pending = None
        return line

    def _write(self, text: str) -> None:
        self.output.write(text)
        self.output.flush()


def _read(stream: TextIO, loop: asyncio.AbstractEventLoop, future: asyncio.Future[str]) -> None:
    try:
        line = stream.readline()
    except (OSError, ValueError):
        line = ""  # a closed or broken input: as good as its end
    with contextlib.suppress(RuntimeError):  # the loop closed while we waited
        loop.call_soon_threadsafe(_deliver, future, line)


def _deliver(future: asyncio.Future[str], line: str) -> None:
    if not future.done():
        future.set_result(line)


def _parse(line: str, options: tuple[str, ...]) -> Answer | None:
    word, _, rest = line.partition(" ")
    word = word.lower()
    reason = rest.strip()
    if word in _DENY:
        return Answer(
            approved=False, reason=reason or "denied at the terminal", choice="deny", by="terminal"
        )
    if word in _APPROVE and not rest.strip():
        choice = "once" if "once" in options else None
        return Answer(approved=True, choice=choice, by="terminal")
    scope = _SCOPES.get(word) or ("always" if word in _ALWAYS else None)
    if scope is not None and scope in options and not reason:
        return Answer(approved=True, choice=scope, extra={"scope": scope}, by="terminal")
    custom = next((o for o in options if o.lower() == line.lower() and o not in _LABELS), None)
    if custom is not None:
        return Answer(approved=True, choice=custom, by="terminal")
    return None


def _hint(options: tuple[str, ...]) -> str:
    letters = ["y"]
    letters += [o[0] for o in ("run", "session", "always") if o in options]
    letters += [o for o in options if o not in _LABELS]
    return "/".join([*letters, "n"])


def _choices(options: tuple[str, ...]) -> str:
    shown = [_LABELS["once"]]
    shown += [_LABELS[o] for o in ("run", "session", "always") if o in options]
    shown += [o for o in options if o not in _LABELS]
    return ", ".join([*shown, _LABELS["deny"]])


def _describe(question: Question) -> str:
    first, *more = question.question.splitlines() or [""]
    lines = [f"\n? {question.hook} asks ({question.point}): {first}"]
    lines += [f"  {line}" for line in more]
    if question.tool_name is not None:
        lines.append(f"  tool: {question.tool_name}")
        lines += _arguments(question.args or {})
    lines.append(f"  {_choices(question.options)}")
    return "\n".join(lines) + "\n"


def _arguments(args: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in args.items():
        text = value if isinstance(value, str) else repr(value)
        flat = " ⏎ ".join(line.strip() for line in text.splitlines() if line.strip())
        shown = flat if len(flat) <= _VALUE else flat[: _VALUE - 1] + "…"
        out.append(f"  {key}: {shown}")
    return out
