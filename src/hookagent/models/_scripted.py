"""Scripted models: play fixed turns, so hooks can be tested with no LLM.

`ScriptedModel` is strict: a call past the end of the script fails the run with a clear
error, and `assert_consumed` fails if turns were left over. Turns are checked when the model
is built, so a malformed script fails before any run starts, naming the turn at fault.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Final, final

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from hookagent._errors import ConfigError, ModelError
from hookagent._messages import AssistantMessage, ToolCall
from hookagent._record import record
from hookagent._surrogates import replace
from hookagent._usage import Usage
from hookagent.models._base import (
    ModelRequest,
    ModelResponse,
    OnDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from hookagent.models._script_file import read_script
from hookagent.models._tool_args import check_call, parse_call

__all__ = ["FunctionModel", "RecordedCall", "ScriptedModel", "reply", "tool_call", "turn"]


_WORDS: Final = re.compile(r"\s*\S+\s*|\s+")
"""A word with the spaces around it: joined back, the pieces give the text unchanged."""

_helper_turns = itertools.count(1)
"""Numbers turns built by the helpers, so their calls get distinct ids."""


def _text(value: object) -> object:
    """A model's text as a run keeps it (see `received`): checked for length after this."""
    return replace(value) if isinstance(value, str) else value


class _CallSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, BeforeValidator(_text)] = Field(min_length=1)
    args: dict[str, Any] | str = Field(default_factory=dict)
    """An object, or a raw JSON string as a provider would send it (may be malformed)."""
    id: str | None = None


class _UsageSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cached_tokens: int = Field(default=0, ge=0)


class _TurnSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = ""
    tool_calls: list[_CallSpec] = Field(default_factory=list)
    usage: _UsageSpec | None = None
    model: str | None = None
    """The model name the reply reports (pricing looks it up); "scripted" by default."""
    reasoning: str = ""


@record(kw_only=False)
class RecordedCall:
    """A snapshot of one request the model received (small: no copy of the history)."""

    step: int
    messages: int
    tools: tuple[str, ...]
    last_message: str | None


def turn(
    text: str = "",
    *calls: ToolCall | ModelResponse | Mapping[str, Any],
    usage: Usage | None = None,
) -> ModelResponse:
    """A scripted turn: some text, some tool calls. A call is a `ToolCall`, a mapping
    `{"name", "args", "id"}`, or what `tool_call()` returns (its calls are taken)."""
    number = next(_helper_turns)
    tool_calls: list[ToolCall] = []
    for i, call in enumerate(calls):
        if isinstance(call, ModelResponse):
            tool_calls.extend(call.message.tool_calls)
        elif isinstance(call, ToolCall):
            tool_calls.append(call)
        else:
            tool_calls.append(_to_call(_CallSpec.model_validate(call), i, number))
    return ModelResponse(
        message=AssistantMessage(content=text, tool_calls=tuple(tool_calls)),
        usage=usage or Usage(requests=1),
        model_name="scripted",
    )


def reply(text: str, *, usage: Usage | None = None) -> ModelResponse:
    """A final answer with no tool calls."""
    return turn(text, usage=usage)


def tool_call(name: str, _id: str | None = None, /, **args: Any) -> ModelResponse:
    """A turn that calls one tool."""
    return turn("", {"name": name, "args": args, "id": _id})


def _to_call(spec: _CallSpec, index: int, turn_no: int = 0) -> ToolCall:
    call_id = spec.id or f"call_{turn_no}_{index}"
    if isinstance(spec.args, dict):
        return check_call(ToolCall(id=call_id, name=spec.name, args=spec.args))
    return parse_call(call_id, spec.name, spec.args)


def _parse_turn(raw: Any, number: int, source: str) -> ModelResponse:
    if isinstance(raw, ModelResponse):
        return raw
    if isinstance(raw, AssistantMessage):
        return ModelResponse(message=raw, usage=Usage(requests=1), model_name="scripted")
    if isinstance(raw, str):
        raw = {"text": raw}
    try:
        spec = _TurnSpec.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(turn)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(problems, file=source, key=f"turn {number}", value=raw) from exc
    calls = tuple(_to_call(c, i, number) for i, c in enumerate(spec.tool_calls))
    usage = spec.usage or _UsageSpec()
    return ModelResponse(
        message=AssistantMessage(content=spec.text, tool_calls=calls, reasoning=spec.reasoning),
        usage=Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cached_tokens=usage.cached_tokens,
            requests=1,
        ),
        model_name=spec.model or "scripted",
    )


def _count_turns(count: int) -> str:
    return f"{count} turn" if count == 1 else f"{count} turns"


@final
class ScriptedModel:
    """Plays `turns` in order: ModelResponse objects, or dicts `{"text", "tool_calls"}`."""

    def __init__(
        self,
        turns: Sequence[Any],
        *,
        source: str = "script",
        by_history: bool = False,
        replies_before: int = 0,
    ) -> None:
        if isinstance(turns, str | bytes) or not isinstance(turns, Sequence):
            raise ConfigError("a script must be a list of turns", file=source)
        self._turns = [_parse_turn(raw, number, source) for number, raw in enumerate(turns, 1)]
        self._source = source
        self._next = 0
        self.by_history = by_history
        """Answer with turn k when the history holds k assistant replies, instead of in call
        order: a script then serves a whole session, across processes that resume it."""
        self.replies_before = replies_before
        """With `by_history`: replies of the history that are not this script's (a session's
        earlier runs, answered by another script); turn k answers `replies_before + k`."""
        self.calls: list[RecordedCall] = []

    @classmethod
    def from_file(
        cls, path: str | Path, *, by_history: bool = False, replies_before: int = 0
    ) -> ScriptedModel:
        file = Path(path)
        return cls(
            read_script(file),
            source=str(file),
            by_history=by_history,
            replies_before=replies_before,
        )

    @property
    def name(self) -> str:
        return f"scripted:{self._source}"

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        messages = request.messages
        last = messages[-1] if len(messages) else None
        self.calls.append(
            RecordedCall(
                step=request.step,
                messages=len(messages),
                tools=tuple(t.name for t in request.tools),
                last_message=getattr(last, "content", None),
            )
        )
        if self.by_history:
            replies = sum(1 for m in messages if isinstance(m, AssistantMessage))
            self._next = max(0, replies - self.replies_before)
        if self._next >= len(self._turns):
            raise ModelError(self._exhausted(), provider="scripted", model=self._source)
        response = self._turns[self._next]
        self._next += 1
        return response

    def _exhausted(self) -> str:
        have = _count_turns(len(self._turns))
        if not self.by_history:
            return f"the script has {have} and call {len(self.calls)} asked for one more"
        earlier = (
            f" after {self.replies_before} replies of the session's earlier runs, which "
            "another script answered"
            if self.replies_before
            else ""
        )
        return (
            f"the script has {have} and reply {self._next + 1} was asked for{earlier}: a "
            "script kept with a session answers by the replies in its history (turn k for "
            "the k-th reply of the runs it serves), so it needs a turn for every reply of "
            "this run"
        )

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        """The next turn, reported piece by piece as a provider would stream it."""
        response = await self.request(request)
        emit_pieces(response, request.step, on_delta)
        return response

    def assert_consumed(self) -> None:
        if self.remaining:
            raise AssertionError(
                f"{self.name}: {self.remaining} of {len(self._turns)} turns were never requested"
            )


ModelFn = Callable[[ModelRequest], "ModelResponse | AssistantMessage | str | Awaitable[Any]"]


@final
class FunctionModel:
    """A model whose every reply is computed by `fn(request)`."""

    def __init__(self, fn: ModelFn, *, name: str = "function") -> None:
        self._fn = fn
        self._name = name
        self.calls = 0

    @property
    def name(self) -> str:
        return f"function:{self._name}"

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        self.calls += 1
        value: Any = self._fn(request)
        if isinstance(value, Awaitable):
            value = await value
        return _parse_turn(value, self.calls, self.name)

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        response = await self.request(request)
        emit_pieces(response, request.step, on_delta)
        return response


def emit_pieces(response: ModelResponse, step: int, on_delta: OnDelta) -> None:
    """Report a whole reply as deltas: reasoning and text word by word, then each tool call
    (its id and name, then its arguments as JSON)."""
    message = response.message
    for text, kind in ((message.reasoning, ReasoningDelta), (message.content, TextDelta)):
        for piece in _WORDS.findall(text):
            on_delta(kind(step, piece))
    for index, call in enumerate(message.tool_calls):
        on_delta(ToolCallDelta(step, index, call.id, call.name, ""))
        if call.args:
            on_delta(ToolCallDelta(step, index, None, None, json.dumps(dict(call.args))))
