"""The run as a JSONL transcript in Claude Code's line shape, for hooks that read it.

Each line: `type` (user | assistant), `message` {role, content blocks}, `uuid`,
`parentUuid`, `sessionId`, `timestamp`, `cwd`. Tool calls are `tool_use` blocks in the
assistant line; tool results are `tool_result` blocks in a user line. The writer appends
only messages it has not written yet, so flushing before every hook costs O(new messages).
A session's later run (a continued session, a resumed run, another process) finds the
transcript already holding the conversation it starts from and appends after it.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, final

from hookagent._messages import AssistantMessage, Message, SystemMessage, ToolResultMessage

__all__ = ["TranscriptWriter"]


@final
class TranscriptWriter:
    __slots__ = ("_cwd", "_last_uuid", "_opened", "_session_id", "_written", "path")

    def __init__(self, path: str | Path, *, session_id: str, cwd: str) -> None:
        self.path = Path(path)
        self._session_id = session_id
        self._cwd = cwd
        self._written = 0
        self._last_uuid: str | None = None
        self._opened = False

    def flush(self, messages: Sequence[Message]) -> None:
        """Append the messages added since the last flush."""
        if not self._opened:
            self._opened = True
            self._continue(messages)
        if self._written >= len(messages):
            if self._written == 0:
                self._touch()
            return
        lines = []
        stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")  # one per flush
        for message in messages[self._written :]:
            line = self._line(message, stamp)
            if line is not None:
                lines.append(_dumps(line))
        self._written = len(messages)
        self._touch()
        if lines:
            with self.path.open("a", encoding="utf-8") as out:
                out.write("\n".join(lines) + "\n")

    def _continue(self, messages: Sequence[Message]) -> None:
        """Skip the messages an earlier writer of this session wrote already: one line each,
        system messages none."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return
        lines = [line for line in lines if line.strip()]
        if not lines:
            return
        with contextlib.suppress(ValueError, AttributeError):
            self._last_uuid = json.loads(lines[-1]).get("uuid")
        left = len(lines)
        for index, message in enumerate(messages):
            if left == 0:
                self._written = index
                return
            if not isinstance(message, SystemMessage):
                left -= 1
        self._written = len(messages)

    def _touch(self) -> None:
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()

    def _line(self, message: Message, stamp: str) -> dict[str, Any] | None:
        if isinstance(message, SystemMessage):
            return None
        if isinstance(message, AssistantMessage):
            kind, content = "assistant", _assistant_blocks(message)
        elif isinstance(message, ToolResultMessage):
            kind = "user"
            content = [
                {
                    "type": "tool_result",
                    "tool_use_id": message.call_id,
                    "content": message.content,
                    "is_error": message.is_error,
                }
            ]
        else:
            kind, content = "user", [{"type": "text", "text": message.content}]
        line_uuid = str(uuid.uuid4())
        line = {
            "type": kind,
            "message": {"role": kind, "content": content},
            "uuid": line_uuid,
            "parentUuid": self._last_uuid,
            "sessionId": self._session_id,
            "timestamp": stamp,
            "cwd": self._cwd,
        }
        self._last_uuid = line_uuid
        return line


_dumps = json.JSONEncoder(ensure_ascii=False, default=str, separators=(",", ":")).encode
"""Compact, as Claude Code writes its lines: hooks grep for `"role":"assistant"`."""


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.args)}
        )
    return blocks
