"""9. Bash sandbox: a `true` command through the Bash tool in bubblewrap vs unsandboxed."""

from __future__ import annotations

import tempfile
from typing import Final

from harness import SANDBOX_TARGET, Runner, Samples, Verdict, header, paired_ratio, timed
from hookagent.capabilities.bash import Bash
from hookagent.capabilities.bash.sandbox import probe_bwrap
from hookagent.kernel.state import RunState
from hookagent.kernel.view import RunView
from hookagent.messages import ToolCall
from hookagent.tools.base import ToolContext, ToolResult

CALLS: Final = 20
"""Calls per timing sample, on each side."""


async def bench_bash_sandbox(repeats: int) -> list[Verdict]:
    header("9. Bash: `true` sandboxed (bubblewrap) vs unsandboxed, per call")
    probe = probe_bwrap()
    if probe.path is None:
        print(f"skipped: {probe.reason}")
        return []
    with tempfile.TemporaryDirectory() as root:
        sides = {mode: _caller(Bash(root, sandbox=mode)) for mode in ("required", "off")}
        samples = {mode: Samples() for mode in sides}
        for runner in sides.values():
            await timed(runner, 3)  # warm up
        for _ in range(repeats):
            for mode, runner in sides.items():
                samples[mode].values.append(await timed(runner, CALLS) / CALLS)
    sandboxed, bare = samples["required"], samples["off"]
    ratio = paired_ratio(sandboxed, bare)
    print(f"unsandboxed  best {bare.best * 1e3:7.2f} ms  median {bare.median * 1e3:7.2f} ms")
    print(
        f"sandboxed    best {sandboxed.best * 1e3:7.2f} ms  median {sandboxed.median * 1e3:7.2f} ms"
    )
    print(f"ratio (median of paired ratios): {ratio:.2f}x")
    return [Verdict("Bash `true` sandboxed / unsandboxed", ratio, "x", SANDBOX_TARGET)]


def _caller(bash: Bash) -> Runner:
    (tool,) = bash.tools()
    args = {"command": "true"}
    view = RunView(RunState())
    ctx = ToolContext(run=view, call=ToolCall(id="bench", name="Bash", args=args))

    async def call() -> ToolResult:
        result = await tool(tool.prepare(args) if hasattr(tool, "prepare") else args, ctx)
        assert not result.is_error, result.content
        return result

    return call
