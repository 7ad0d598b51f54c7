"""5. Command hooks: a settings-file hook on a tool call against a bare spawn of its script."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from harness import (
    COMMAND_HANDLERS,
    COMMAND_HOOK_TARGET,
    Runner,
    Samples,
    Verdict,
    header,
    paired_ratio,
    timed,
)
from hookagent import Agent, AgentBuilder
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._runner import default_timeout, run_handler
from hookagent.claude._sources import discover
from workload import ECHO, PROMPT, InstantModel, build_agent, script

# -- 5. command hooks ----------------------------------------------------------------------

SH_HOOK: Final = "read -r payload || true"
"""Reads the one-line payload with a shell builtin and exits 0: one process, `/bin/sh`."""
PY_HOOK: Final = "import sys\nsys.stdin.read()\n"


@dataclass(frozen=True, slots=True)
class Variant:
    """One kind of hook script, and how many tool calls a timed run makes with it."""

    name: str
    command: Callable[[int], str]
    """The command line of handler `i` (distinct per handler: identical ones run once)."""
    calls: int
    """Tool calls per run with one handler; also the bare spawns per sample."""
    fanout_calls: int
    """Tool calls per run with `COMMAND_HANDLERS` handlers."""


def variants(folder: Path) -> list[Variant]:
    noop = folder / "noop.py"
    noop.write_text(PY_HOOK, encoding="utf-8")
    python = f"{shlex.quote(sys.executable)} {shlex.quote(str(noop))}"
    return [
        Variant("sh", lambda i: f"{SH_HOOK} # {i}" if i else SH_HOOK, calls=20, fanout_calls=5),
        Variant("python", lambda i: f"{python} {i}" if i else python, calls=6, fanout_calls=2),
    ]


def settings_file(folder: Path, name: str, commands: list[str]) -> Path:
    """A settings file whose PreToolUse handlers (matcher: the echo tool) run `commands`."""
    hooks = [{"type": "command", "command": command} for command in commands]
    path = folder / f"{name}.json"
    group = {"matcher": ECHO.name, "hooks": hooks}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [group]}}), encoding="utf-8")
    return path


def hooked_agent(folder: Path, tool_calls: int, settings: Path) -> Agent:
    """`build_agent`'s agent over the echo tool, plus the command hooks of `settings`."""
    return (
        AgentBuilder()
        .model(InstantModel(script(tool_calls)))
        .tools(ECHO)
        .limits(max_steps=tool_calls + 2, max_tokens=10**12)
        .with_settings(
            settings, project_dir=folder, options=ClaudeHookOptions(project_dir=str(folder))
        )
        .build()
    )


def run_of(agent: Agent, tool_calls: int) -> Runner:
    async def go() -> None:
        result = await agent.run(PROMPT)
        if result.status != "completed" or len(result.tool_calls) != tool_calls:
            raise SystemExit(
                f"command-hook benchmark run ended {result.status}/{result.stop_reason} "
                f"after {len(result.tool_calls)} tool calls, expected {tool_calls}"
            )

    return go


async def bare_spawn(argv: list[str], payload: bytes) -> None:
    """The least a caller can do: spawn, write the payload, close stdin, read both streams,
    wait."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    async def feed() -> None:
        try:
            stdin.write(payload)
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            stdin.close()

    await asyncio.gather(feed(), proc.stdout.read(), proc.stderr.read())
    if await proc.wait() != 0:
        raise SystemExit(f"command-hook benchmark: {argv} exited {proc.returncode}")


async def captured_payloads(folder: Path) -> bytes:
    """Run `COMMAND_HANDLERS` recording handlers on one tool call: each must see the same
    payload (all ran, none merged away); that payload is what the bare spawns are fed."""
    records = [folder / f"payload_{i}.json" for i in range(COMMAND_HANDLERS)]
    commands = [f"cat > {shlex.quote(str(path))}" for path in records]
    agent = hooked_agent(folder, 1, settings_file(folder, "record", commands))
    await run_of(agent, 1)()
    seen = {path.read_bytes() if path.exists() else b"" for path in records}
    payload = seen.pop()
    if seen or b'"hook_event_name":"PreToolUse"' not in payload:
        raise SystemExit(f"command-hook benchmark: {COMMAND_HANDLERS} handlers did not all run")
    return payload


def runner_alone(folder: Path, settings: Path, payload: bytes) -> Runner:
    """`run_handler` called directly with what the bridge passes it for this handler."""
    [spec] = discover(folder, explicit=[settings], include_standard=False).handlers
    sent: dict[str, Any] = json.loads(payload)

    async def go() -> None:
        outcome = await run_handler(
            spec,
            sent,
            cwd=sent["cwd"],
            project_dir=str(folder),
            session_id=sent["session_id"],
            timeout=default_timeout(spec.event),
        )
        if outcome.exit_code != 0:
            raise SystemExit(f"command-hook benchmark: run_handler gave {outcome}")

    return go


@dataclass(slots=True)
class Measured:
    """Seconds per tool call (runs) or per spawn (bare, runner), one value per round."""

    plain: Samples
    one: Samples
    spawn: Samples
    runner: Samples
    ten: Samples
    gathered: Samples

    def hook(self, with_hooks: Samples) -> Samples:
        """Per-call time with hooks minus the same round's per-call time without."""
        return Samples([h - p for h, p in zip(with_hooks.values, self.plain.values, strict=True)])


async def measure(folder: Path, variant: Variant, payload: bytes, repeats: int) -> Measured:
    argv = ["/bin/sh", "-c", variant.command(0)]  # what run_handler spawns for one handler
    n, m = variant.calls, variant.fanout_calls
    one = settings_file(folder, f"{variant.name}_1", [variant.command(0)])
    ten = settings_file(
        folder,
        f"{variant.name}_{COMMAND_HANDLERS}",
        [variant.command(i) for i in range(COMMAND_HANDLERS)],
    )

    async def spawn_together() -> None:
        await asyncio.gather(*(bare_spawn(argv, payload) for _ in range(COMMAND_HANDLERS)))

    # name: (what one await does, awaits per sample, tool calls or spawns per sample)
    work: dict[str, tuple[Runner, int, int]] = {
        "plain": (run_of(build_agent(InstantModel(script(n)), n), n), 1, n),
        "one": (run_of(hooked_agent(folder, n, one), n), 1, n),
        "spawn": (lambda: bare_spawn(argv, payload), n, n),
        "runner": (runner_alone(folder, one, payload), n, n),
        "ten": (run_of(hooked_agent(folder, m, ten), m), 1, m),
        "gathered": (spawn_together, m, m),
    }
    samples = {name: Samples() for name in work}
    for round_no in range(repeats + 1):  # the first round warms up and is dropped
        for name, (runner, awaits, per_sample) in work.items():
            seconds = await timed(runner, awaits)
            if round_no:
                samples[name].values.append(seconds / per_sample)
    return Measured(**samples)


MIN_MED: Final = f"{'min':>9}{'med':>9}"


def ms(s: Samples) -> str:
    return f"{s.best * 1e3:>9.2f}{s.median * 1e3:>9.2f}"


async def bench_command_hooks(repeats: int) -> list[Verdict]:
    k = COMMAND_HANDLERS
    header("5. command hooks (PreToolUse handlers from a settings file, /bin/sh -c <command>)")
    print(
        "hook: per tool call, a run of N calls of a no-op async tool with a settings file whose\n"
        "PreToolUse handler runs the script, minus the same run without settings ('no hook').\n"
        "spawn: a bare asyncio.create_subprocess_exec of the same argv fed the hook's own stdin\n"
        "payload (write it, close stdin, read stdout and stderr, wait), N times in a row.\n"
        "run_handler: hookagent.claude._runner.run_handler called directly, as the hook calls it\n"
        "(adds the hook environment, a new session and the cwd to the bare spawn).\n"
        f"  sh:     {SH_HOOK}\n"
        "  python: <this python> noop.py, doing sys.stdin.read(); interpreter start dominates"
    )
    verdicts: list[Verdict] = []
    results: dict[str, tuple[Variant, Measured]] = {}
    with tempfile.TemporaryDirectory(prefix="hookagent-bench-") as tmp:
        folder = Path(tmp)
        payload = await captured_payloads(folder)
        for variant in variants(folder):
            results[variant.name] = variant, await measure(folder, variant, payload, repeats)
    print(f"Payload {len(payload)} bytes; {os.cpu_count()} cores; ms per call (min, median).")

    print(
        f"\n{'script':<8}{'N':>4}{'spawn ms':>18}{'hook ms':>18}{'x spawn':>9}{'(min)':>7}"
        f"{'run_handler':>13}{'no hook':>9}"
    )
    print(f"{'':<12}{MIN_MED}{MIN_MED}{'paired':>9}{'':>7}{'x spawn':>13}{'us':>9}")
    for name, (variant, m) in results.items():
        hook = m.hook(m.one)
        ratio = paired_ratio(hook, m.spawn)
        print(
            f"{name:<8}{variant.calls:>4}{ms(m.spawn)}{ms(hook)}{ratio:>9.2f}"
            f"{hook.best / m.spawn.best:>7.2f}{paired_ratio(m.runner, m.spawn):>13.2f}"
            f"{m.plain.median * 1e6:>9.1f}"
        )
        verdicts.append(
            Verdict(f"command hook, {name}, per call", ratio, "x spawn", COMMAND_HOOK_TARGET)
        )

    print(
        f"\n{k} matched handlers on one call, run in parallel; per tool call, M calls per run.\n"
        f"x 1 handler: ideal 1 with {k} free cores. x {k} seq: against {k} bare spawns in a row\n"
        f"(below 1 is parallelism). x {k} gathered: against {k} bare spawns started together\n"
        f"with asyncio.gather, what the machine allows; 'bare x 1' is their own x 1 spawn."
    )
    print(
        f"\n{'script':<8}{'M':>4}{f'{k} gathered ms':>18}{f'{k} handlers ms':>18}"
        f"{'x 1 handler':>13}{f'x {k} seq':>10}{f'x {k} gathered':>15}{'bare x 1':>10}"
    )
    print(f"{'':<12}{MIN_MED}{MIN_MED}")
    for name, (variant, m) in results.items():
        one, ten = m.hook(m.one), m.hook(m.ten)
        sequential = Samples([k * s for s in m.spawn.values])
        versus_gathered = paired_ratio(ten, m.gathered)
        print(
            f"{name:<8}{variant.fanout_calls:>4}{ms(m.gathered)}{ms(ten)}"
            f"{paired_ratio(ten, one):>13.2f}{paired_ratio(ten, sequential):>10.2f}"
            f"{versus_gathered:>15.2f}{paired_ratio(m.gathered, m.spawn):>10.2f}"
        )
        verdicts.append(
            Verdict(
                f"{k} command hooks, {name}, vs {k} gathered spawns",
                versus_gathered,
                "x gathered",
                COMMAND_HOOK_TARGET,
            )
        )
    return verdicts
