"""The critic's side of self-critique: its prompt, the evidence it reads, its verdict.

Nothing here touches a run. `Critic.judge` asks any `Model` for a verdict on one answer and
parses it; a reply that is not a valid verdict is sent back once with the problems, and a
second bad reply (or any exception from the model) is the caller's to handle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Final, final

from pydantic import BaseModel, ConfigDict, Field

from hookagent._messages import AssistantMessage, Message, UserMessage
from hookagent._usage import Usage
from hookagent.capabilities.structured_output._schema import describe_errors
from hookagent.kernel._records import StepRecord
from hookagent.models._base import Model, ModelRequest

__all__ = [
    "SYSTEM_PROMPT",
    "Critic",
    "CriticError",
    "Verdict",
    "build_prompt",
    "clip",
    "collect_evidence",
    "parse_verdict",
    "task_of",
]

SYSTEM_PROMPT: Final = """\
You are a critical evaluator. You are given a task, the evidence gathered while working on \
it (tool calls and their results), and a proposed response. Decide whether the response \
can be given to the user as it is.

Check the response for:
- contradictions with the evidence;
- claims the evidence does not support (invented facts, numbers, file contents, results);
- evidence it missed or misread;
- an incomplete investigation: parts of the task left unanswered or unchecked.

APPROVE when the response answers the whole task and every claim in it is supported by the \
evidence or needs none. Minor wording or style issues are no reason to reject.
REJECT when the response is wrong, contradicted or unsupported by the evidence, or leaves \
part of the task undone.

Reply with only a JSON object, no other text:
{"approved": true or false, "summary": "one or two sentences: the main problem, or why it \
is sound", "weaknesses": ["specific problems"], "suggestions": ["concrete fixes"]}"""

RETRY: Final = (
    "Your reply could not be read as a verdict:\n{problems}\n"
    'Reply again with only the JSON object: {{"approved": bool, "summary": str, '
    '"weaknesses": [str], "suggestions": [str]}}.'
)

NO_EVIDENCE: Final = "(no tool calls were made)"

_FENCE: Final = re.compile(r"^```[A-Za-z]*[ \t]*\n(.*?)\n?```$", re.DOTALL)


class Verdict(BaseModel):
    """What the critic must answer (other fields, such as `strengths`, are ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    approved: bool
    summary: str
    weaknesses: list[str] = Field(default_factory=list)
    suggestions: list[str] = Field(default_factory=list)


class CriticError(Exception):
    """The critic replied, twice, with something that is not a verdict."""


@final
class Critic:
    """One consultation of a critic model; `usage` and `calls` add up its requests."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.usage = Usage()
        self.calls = 0

    async def judge(self, prompt: str, *, step: int = 0) -> Verdict:
        """The critic's verdict on `prompt`, asking again once if the reply is not one.

        Raises whatever the model raises, and `CriticError` after a second bad reply.
        """
        messages: list[Message] = [UserMessage(content=prompt)]
        for attempt in (1, 2):
            request = ModelRequest(messages=tuple(messages), system_prompt=SYSTEM_PROMPT, step=step)
            self.calls += 1
            response = await self.model.request(request)
            self.usage = self.usage + response.usage
            text = response.message.content
            try:
                return parse_verdict(text)
            except ValueError as exc:  # pydantic's ValidationError is a ValueError
                problems = describe_errors(exc, root="(reply)", most=10)
                if attempt == 2:
                    raise CriticError(
                        f"the critic's reply is not a valid verdict, after 1 retry:\n{problems}"
                    ) from exc
                messages += [
                    AssistantMessage(content=text),
                    UserMessage(content=RETRY.format(problems=problems)),
                ]
        raise AssertionError("unreachable")  # pragma: no cover


def parse_verdict(text: str) -> Verdict:
    """The verdict in `text`: a JSON object, possibly inside a ```json fence."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    elif not body.startswith("{") and "{" in body and body.rstrip().endswith("}"):
        body = body[body.index("{") :]  # a sentence before the object
    if not body:
        raise ValueError("the reply is empty")
    return Verdict.model_validate_json(body)


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, keeping its head and its tail around a marker."""
    if len(text) <= limit:
        return text
    head = (limit + 1) // 2
    tail = limit - head
    cut = len(text) - limit
    return f"{text[:head]}\n[... {cut} characters elided ...]\n{text[len(text) - tail :]}"


def collect_evidence(steps: Iterable[StepRecord], limit: int) -> str:
    """Every tool call of the run: its name, its JSON arguments and its result text, the
    arguments and the result each cut to `limit` characters."""
    parts: list[str] = []
    for step in steps:
        for execution in step.executions:
            args = json.dumps(dict(execution.args), ensure_ascii=False, default=str)
            if execution.blocked:
                status = " (blocked)"
            elif execution.result.is_error:
                status = " (error)"
            else:
                status = ""
            parts.append(
                f"### {len(parts) + 1}. {execution.name}\n"
                f"Arguments: {clip(args, limit)}\n"
                f"Result{status}:\n{clip(execution.result.content, limit)}"
            )
    return "\n\n".join(parts) or NO_EVIDENCE


def task_of(messages: Sequence[Message]) -> str:
    """The run's task: its prompt, the latest user message the runtime did not add itself
    (a run continuing a session carries the earlier turns before it)."""
    for message in reversed(messages):
        if isinstance(message, UserMessage) and not message.synthetic:
            return message.content
    return "(no task given)"


def build_prompt(task: str, evidence: str, answer: str) -> str:
    return (
        f"## Original task\n{task}\n\n"
        f"## Evidence\n{evidence}\n\n"
        f"## Proposed response\n{answer}\n\n"
        "Evaluate the proposed response and reply with the JSON verdict."
    )
