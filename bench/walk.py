"""The walk of one tool call: which hookagent functions and modules run from the model's
reply to the next request, with a no-op hook at every point of the step.

    .venv/bin/python bench/walk.py [--list]

Counted with `sys.setprofile` between after_inference of step 1 and before_inference of
step 2: every distinct function (and its module) under `src/hookagent` that was called,
the hooks' own bodies excluded (yours, and the default limits'). A count, not a time: the
same on any machine.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import hookagent as h
from hookagent.testing import ScriptedModel, reply, tool_call

SRC = str(Path(h.__file__).parent)
HOOK_PROVIDERS = ("policies/", "capabilities/")
"""Where hooks installed by default (the limits) live: hook bodies, not the loop's walk."""
POINTS = (
    h.BEFORE_STEP,
    h.BEFORE_INFERENCE,
    h.AFTER_INFERENCE,
    h.BEFORE_TOOL,
    h.AFTER_TOOL,
    h.AFTER_STEP,
    h.SHOULD_CONTINUE,
)


class Echo:
    name = "echo"
    description = "Echo the text."
    parameters: Mapping[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def __call__(self, args: Mapping[str, Any], ctx: h.ToolContext, /) -> h.ToolResult:
        return h.ToolResult.of(args["text"])


def walk() -> tuple[list[str], list[str]]:
    seen: dict[str, None] = {}
    active = False

    def profile(frame: FrameType, event: str, arg: object) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename.startswith(SRC):
            where = code.co_filename[len(SRC) + 1 :]
            if not where.startswith(HOOK_PROVIDERS):
                seen.setdefault(f"{where}:{code.co_qualname}")

    h.ToolResult.of("")  # the lazy export, loaded before the walk

    def on(event: Any) -> None:
        nonlocal active
        if isinstance(event, h.InferenceResultEvent) and event.step == 1:
            active = True
            sys.setprofile(profile)
        elif isinstance(event, h.InferenceEvent) and event.step == 2 and active:
            sys.setprofile(None)
            active = False

    builder = h.AgentBuilder().model(ScriptedModel([tool_call("echo", text="hi"), reply("ok")]))
    builder.tools(Echo())
    for point in POINTS:
        builder.on(point, lambda event: None, name=f"noop_{point.name}")
    builder.on(h.AFTER_INFERENCE, on, name="walk_on", tier="audit", always=True)
    builder.on(h.BEFORE_INFERENCE, on, name="walk_off", priority=-1000)
    asyncio.run(builder.build().run("go"))
    functions = list(seen)
    modules = list(dict.fromkeys(name.split(":")[0] for name in functions))
    return functions, modules


if __name__ == "__main__":
    functions, modules = walk()
    if "--list" in sys.argv:
        print("\n".join(functions))
    print(
        f"one tool call, reply to next request: {len(functions)} functions, {len(modules)} modules"
    )
