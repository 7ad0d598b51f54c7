"""The summarizer's prompt: the previous summary and the buffer, as plain text.

The buffer is rendered as text in one user message rather than sent as conversation
messages: it may start with an assistant turn or a tool result, which providers refuse at
the start of a conversation, and the summarizer is asked to write about it, not to answer it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from hookagent._messages import AssistantMessage, Message, ToolResultMessage, UserMessage

__all__ = ["INSTRUCTION", "render_message", "summary_prompt"]

INSTRUCTION: Final = (
    "Summarize the following conversation for later reference. The summary replaces these "
    "messages, so keep what the rest of the work needs: the task and its constraints, facts "
    "learned, decisions made and why, names of files, functions and other things involved, "
    "tool results that matter, and what is still open. Leave out pleasantries and repetition. "
    "Reply with the summary only."
)


def render_message(message: Message) -> str:
    if isinstance(message, AssistantMessage):
        parts = [f"[assistant] {message.content}"] if message.content else []
        parts.extend(
            f"[assistant calls {call.name}] {_args(call.args)}" for call in message.tool_calls
        )
        return "\n".join(parts) or "[assistant] (no text)"
    if isinstance(message, ToolResultMessage):
        status = " (error)" if message.is_error else ""
        return f"[{message.name} result{status}] {message.content}"
    if isinstance(message, UserMessage) and message.synthetic:
        return f"[note] {message.content}"
    return f"[{message.role}] {message.content}"


def summary_prompt(
    previous: str | None, buffer: Iterable[Message], instructions: str = "", *, limit: int
) -> str:
    """The one user message the summarizer gets."""
    parts = [f"{INSTRUCTION} Keep it under about {limit} tokens."]
    if previous:
        parts.append(
            "Summary of the conversation before these messages (fold it into yours):\n"
            f"<previous_summary>\n{previous}\n</previous_summary>"
        )
    body = "\n\n".join(render_message(message) for message in buffer)
    parts.append(f"<conversation>\n{body}\n</conversation>")
    if instructions.strip():
        parts.append(f"Additional instructions:\n{instructions.strip()}")
    return "\n\n".join(parts)


def _args(args: Mapping[str, Any]) -> str:
    return json.dumps(dict(args), ensure_ascii=False, default=str)
