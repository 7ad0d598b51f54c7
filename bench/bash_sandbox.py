"""9. Bash sandbox: a `true` command through the Bash tool in the long-lived sandbox, in a
one-shot sandbox (a profile a hook tightened) and unsandboxed, per call."""

from __future__ import annotations

import tempfile
from typing import Any, Final

from harness import SANDBOX_TARGET, Runner, Samples, Verdict, header, paired_ratio, timed
from hookagent._messages import ToolCall
from hookagent.capabilities.bash import Bash
from hookagent.capabilities.bash._sandbox import probe_bwrap
from hookagent.capabilities.bash._tool import BashTool
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult

CALLS: Final = 20
"""Calls per timing sample, on each side."""
SIDES: Final = ("persistent", "one-shot", "unsandboxed")


async def bench_bash_sandbox(repeats: int) -> list[Verdict]:
    header("9. Bash: `true` sandboxed (bubblewrap) vs unsandboxed, per call")
    probe = probe_bwrap()
    if probe.path is None:
        print(f"skipped: {probe.reason}")
        return []
    with tempfile.TemporaryDirectory() as root:
        (sandboxed,) = Bash(root, sandbox="required").tools()
        (bare,) = Bash(root, sandbox="off").tools()
        assert isinstance(sandboxed, BashTool) and isinstance(bare, BashTool)
        sides = {
            "persistent": _caller(sandboxed),
            "one-shot": _caller(sandboxed, tightened=True),
            "unsandboxed": _caller(bare),
        }
        samples = {side: Samples() for side in SIDES}
        try:
            for runner in sides.values():
                await timed(runner, 3)  # warm up, and start the long-lived sandbox
            for _ in range(repeats):
                for side, runner in sides.items():
                    samples[side].values.append(await timed(runner, CALLS) / CALLS)
        finally:
            sandboxed.close()
    for side in SIDES:
        got = samples[side]
        print(f"{side:<12} best {got.best * 1e3:7.2f} ms  median {got.median * 1e3:7.2f} ms")
    ratio = paired_ratio(samples["persistent"], samples["unsandboxed"])
    one_shot = paired_ratio(samples["one-shot"], samples["unsandboxed"])
    gain = paired_ratio(samples["persistent"], samples["one-shot"])
    print(
        f"ratios (median of paired ratios): persistent / unsandboxed {ratio:.2f}x, "
        f"one-shot / unsandboxed {one_shot:.2f}x, persistent / one-shot {gain:.2f}x"
    )
    return [
        Verdict("Bash `true` sandboxed / unsandboxed", ratio, "x", SANDBOX_TARGET),
        Verdict("Bash `true` one-shot sandbox / unsandboxed", one_shot, "x", None),
        Verdict("Bash `true` long-lived / one-shot sandbox", gain, "x", None),
    ]


def _caller(tool: BashTool, *, tightened: bool = False) -> Runner:
    """Calls of `true`; `tightened`: with one more deny path, as a hook may ask, which runs
    each call in a sandbox of its own."""
    args: dict[str, Any] = dict(tool.prepare({"command": "true"}))
    if tightened:
        profile = dict(args["sandbox"])
        profile["deny"] = [*profile["deny"], "/nonexistent/hookagent-bench"]
        args["sandbox"] = profile
    view = RunView(RunState())
    ctx = ToolContext(run=view, call=ToolCall(id="bench", name="Bash", args=args))

    async def call() -> ToolResult:
        result = await tool(args, ctx)
        assert not result.is_error, result.content
        return result

    return call
