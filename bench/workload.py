"""The work every benchmark does: a precomputed model, an echo tool, agents, and a bare loop.

The model answers from a precomputed script indexed by the request's step number, so it costs
the same whatever loop drives it, holds no per-run state, and can serve concurrent runs. The
bare loop does the least a loop must do with the same objects: keep the message list, build
the model request, call the model, call the tool, append the results.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from hookagent import (
    AFTER_INFERENCE,
    AFTER_TOOL,
    BEFORE_INFERENCE,
    BEFORE_TOOL,
    Agent,
    AgentBuilder,
    AssistantMessage,
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolContext,
    ToolResult,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
    tool,
)

PROMPT: Final = "Echo the numbers."
ANSWER: Final = "done"
TOOL_NAME: Final = "echo"

Script = tuple[ModelResponse, ...]


def payload(i: int) -> int:
    """Characters of the realistic payloads of turn `i`: 1, 2, 3 or 4 KB."""
    return 1024 * (1 + i % 4)


def script(tool_steps: int, *, realistic: bool = False) -> Script:
    """`tool_steps` turns that each call the echo tool once, then a final answer;
    `realistic`: each turn also says 1-4 KB of text, as a model explaining its call does."""
    usage = Usage(input_tokens=10, output_tokens=5, requests=1)
    turns = [
        ModelResponse(
            message=AssistantMessage(
                content=f"step {i} " + "w" * payload(i) if realistic else "",
                tool_calls=(ToolCall(id=f"call_{i}", name=TOOL_NAME, args={"text": f"echo {i}"}),),
            ),
            usage=usage,
            model_name="bench",
        )
        for i in range(1, tool_steps + 1)
    ]
    turns.append(
        ModelResponse(message=AssistantMessage(content=ANSWER), usage=usage, model_name="bench")
    )
    return tuple(turns)


class InstantModel:
    """Returns turn `request.step` of its script at once (implements `hookagent.Model`)."""

    __slots__ = ("_turns",)

    name = "bench:instant"

    def __init__(self, turns: Script) -> None:
        self._turns = turns

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        return self._turns[request.step - 1]


class SleepyModel:
    """Like `InstantModel`, but every call takes `delay` seconds (an awaited sleep)."""

    __slots__ = ("_delay", "_turns")

    name = "bench:sleepy"

    def __init__(self, turns: Script, delay: float) -> None:
        self._turns = turns
        self._delay = delay

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        await asyncio.sleep(self._delay)
        return self._turns[request.step - 1]


class EchoTool:
    """An async tool that returns its `text` argument (implements `hookagent.Tool`)."""

    __slots__ = ()

    name = TOOL_NAME
    description = "Return the text unchanged."
    parameters: Mapping[str, Any] = {  # read-only schema, shared on purpose
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext | None, /) -> ToolResult:
        return ToolResult(content=args["text"])


ECHO: Final = EchoTool()


class BulkyEchoTool(EchoTool):
    """The echo tool whose result also carries 1-4 KB of fresh text, as a file read or a
    command's output does."""

    __slots__ = ()

    async def __call__(self, args: Mapping[str, Any], ctx: ToolContext | None, /) -> ToolResult:
        text = args["text"]
        return ToolResult(content=text + "\n" + "r" * payload(int(text.split()[-1])))


BULKY_ECHO: Final = BulkyEchoTool()


@tool(name=TOOL_NAME, description="Return the text unchanged.")
async def echo_function(text: str) -> str:
    """The echo tool as users write one: a typed function."""
    return text


TOOLS: Final[Mapping[str, EchoTool]] = {TOOL_NAME: ECHO}
SPECS: Final = (ToolSpec(name=ECHO.name, description=ECHO.description, parameters=ECHO.parameters),)


async def bare_run(model: Any, steps_cap: int, tools: Mapping[str, Any] = TOOLS) -> list[Any]:
    """The hand-written loop: the minimum any agent loop has to do per step."""
    messages: list[Any] = [UserMessage(content=PROMPT)]
    for step in range(1, steps_cap + 1):
        response = await model.request(ModelRequest(messages=messages, tools=SPECS, step=step))
        message = response.message
        messages.append(message)
        if not message.tool_calls:
            break
        for call in message.tool_calls:
            result = await tools[call.name](call.args, None)
            messages.append(
                ToolResultMessage(
                    call_id=call.id,
                    name=call.name,
                    content=result.content,
                    is_error=result.is_error,
                )
            )
    return messages


def noop_sync(event: object) -> None:
    return None


async def noop_async(event: object) -> None:
    return None


HOOKED_POINTS: Final = (BEFORE_INFERENCE, AFTER_INFERENCE, BEFORE_TOOL, AFTER_TOOL)


def build_agent(
    model: Any, tool_steps: int, hook: Callable[..., Any] | None = None, echo: Any = ECHO
) -> Agent:
    """An agent over the echo tool with the default limits and error policy.

    The run takes `tool_steps + 1` steps; the step limit stops a run once it has taken
    `max_steps`, so it is set one higher for the run to end by answering, not by the limit.
    `hook`, if given, is registered once at each point in `HOOKED_POINTS`; `echo` is the
    tool (the hand-written `ECHO`, or `echo_function`, the same as a `@tool` function).
    """
    builder = (
        AgentBuilder().model(model).tools(echo).limits(max_steps=tool_steps + 2, max_tokens=10**12)
    )
    if hook is not None:
        for point in HOOKED_POINTS:
            builder.on(point, hook, name=f"noop_{point.name}")
    return builder.build()


def check_same_work(messages: Sequence[Any], result: Any, tool_steps: int) -> str | None:
    """Why the bare loop and the agent did not do the same work, or None if they did."""
    expected = 1 + 2 * tool_steps + 1
    if len(messages) != expected:
        return f"bare loop kept {len(messages)} messages, expected {expected}"
    if result.status != "completed" or result.output != ANSWER:
        return f"agent run ended {result.status}/{result.stop_reason}: {result.stop_message}"
    if len(result.steps) != tool_steps + 1 or len(result.state.messages) != expected:
        return (
            f"agent took {len(result.steps)} steps and kept {len(result.state.messages)} "
            f"messages, expected {tool_steps + 1} and {expected}"
        )
    return None
