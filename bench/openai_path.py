"""7. The OpenAI path: a run through hookagent's Chat Completions driver against a local
server, vs the same HTTP calls made with the bare `openai` SDK in a hand-written loop.

Every loop uses one `AsyncOpenAI` client, sends the same conversation (the bare loops keep
their own list of wire dicts) and runs the echo tool once per step. The server is a separate
process that answers at once, so what differs is the work each loop does around the HTTP call.

Two bare loops: `create` calls `chat.completions.create`, which walks every message in Python
before sending (its cost per step grows with the history: about 140 ms per call at 1,000
messages here, so it is timed at 100 steps only); `post` sends the same dicts with the
client's low-level `post`, as hookagent's driver does, and is the baseline at 1,000 steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Final

from harness import FLAT_TARGET, Samples, Verdict, header, paired_ratio, timed
from workload import ECHO, PROMPT

OPENAI_PATH_TARGET: Final = 1.5
CASES: Final = ((100, "create"), (100, "post"), (1000, "post"))
"""(steps, bare loop's way of calling the SDK)."""
TOOL_PARAM: Final = {
    "type": "function",
    "function": {
        "name": ECHO.name,
        "description": ECHO.description,
        "parameters": dict(ECHO.parameters),
    },
}


@contextlib.asynccontextmanager
async def server(steps: int) -> AsyncIterator[str]:
    script = Path(__file__).with_name("openai_server.py")
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(script), "--steps", str(steps), stdout=asyncio.subprocess.PIPE
    )
    try:
        assert process.stdout is not None
        port = int(await process.stdout.readline())
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        await process.wait()


async def bare_sdk_run(client: Any, steps: int, way: str) -> int:
    """The least a loop on the SDK must do: keep the wire messages, call, run the tool."""
    from openai.types.chat import ChatCompletion

    messages: list[dict[str, Any]] = [{"role": "user", "content": PROMPT}]
    auth = {"headers": {"Authorization": f"Bearer {client.api_key}"}}
    for _ in range(steps + 1):
        if way == "create":
            completion = await client.chat.completions.create(
                model="bench", messages=messages, tools=[TOOL_PARAM]
            )
        else:
            completion = await client.post(
                "/chat/completions",
                cast_to=ChatCompletion,
                body={"model": "bench", "messages": messages, "tools": [TOOL_PARAM]},
                options=auth,
            )
        message = completion.choices[0].message
        calls = message.tool_calls or []
        messages.append(
            {
                "role": "assistant",
                "content": message.content,
                **(
                    {
                        "tool_calls": [
                            {
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": c.function.name,
                                    "arguments": c.function.arguments,
                                },
                            }
                            for c in calls
                        ]
                    }
                    if calls
                    else {}
                ),
            }
        )
        if not calls:
            return len(messages)
        for call in calls:
            args = json.loads(call.function.arguments)
            result = await ECHO(args, None)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
    raise RuntimeError("the bare loop did not finish")


async def measure(steps: int, way: str, repeats: int) -> tuple[Samples, Samples]:
    """Seconds per run of the bare loop and of hookagent, paired within each repeat."""
    import openai

    from hookagent import AgentBuilder
    from hookagent.models._openai_chat import create

    async with server(steps) as url:
        client = openai.AsyncOpenAI(base_url=url, api_key="bench", max_retries=0)
        driver = create("bench", provider="openai-compatible", base_url=url, api_key="bench")
        agent = AgentBuilder().model(driver).tools(ECHO).limits(max_steps=steps + 5).build()

        async def bare() -> None:
            assert await bare_sdk_run(client, steps, way) == 2 * steps + 2

        async def ours() -> None:
            result = await agent.run(PROMPT)
            assert result.output == "done" and len(result.steps) == steps + 1, result

        runners: list[Callable[[], Awaitable[None]]] = [bare, ours]
        for runner in runners:
            await runner()  # warm up connections and caches
        samples = (Samples(), Samples())
        for _ in range(repeats):
            for runner, sample in zip(runners, samples, strict=True):
                sample.values.append(await timed(runner, 1))
        await client.close()
        await driver.aclose()
    return samples


async def bench_openai_path(repeats: int) -> list[Verdict]:
    try:
        import openai  # noqa: F401
    except ImportError:  # the extra is not installed
        header("7. OpenAI path: skipped (pip install 'hookagent[openai]')")
        return []
    header("7. OpenAI path: hookagent's driver vs the bare SDK loop, local server")
    print(
        f"{'steps':>6}  {'bare loop':<10}{'bare s/run':>11}{'hookagent s/run':>17}"
        f"{'ratio':>8}{'extra us/step':>15}"
    )
    verdicts: list[Verdict] = []
    ratios: dict[tuple[int, str], float] = {}
    for steps, way in CASES:
        bare, ours = await measure(steps, way, repeats)
        ratio = ratios[steps, way] = paired_ratio(ours, bare)
        extra = (ours.median - bare.median) / (steps + 1) * 1e6
        print(
            f"{steps:>6}  {way:<10}{bare.median:>11.3f}{ours.median:>17.3f}"
            f"{ratio:>7.2f}x{extra:>15.0f}"
        )
        verdicts.append(
            Verdict(f"openai path N={steps} vs SDK {way}", ratio, "x", OPENAI_PATH_TARGET)
        )
    flat = ratios[1000, "post"] / ratios[100, "post"]
    verdicts.append(Verdict("openai path flatness (1000/100)", flat, "ratio", FLAT_TARGET))
    return verdicts
