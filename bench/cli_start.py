"""11. CLI start: `hookagent --help`, `hookagent hooks test --help` and `hookagent hooks test`
running one command hook (`true`) on a payload, as whole processes, against
`python -c "import typer"` started the same way (the floor any typer command pays)."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from harness import CLI_START_TARGET, Verdict, header

BARE_APP: Final = """
import typer
app, hooks = typer.Typer(add_completion=False), typer.Typer()
app.add_typer(hooks, name="hooks")
@hooks.command()
def test(event: str, cwd: str | None = None) -> None: ...
@hooks.command()
def check() -> None: ...
app()
"""
"""A bare typer app of one group of two commands: what typer alone spends on a subcommand's
help (it loads pydantic to coerce the parameters, and rich to print)."""
COMMANDS: Final = {
    "import typer": ["-c", "import typer"],
    "bare typer app: hooks test --help": ["-c", BARE_APP, "hooks", "test", "--help"],
    "hookagent --help": ["-m", "hookagent", "--help"],
    "hookagent hooks test --help": ["-m", "hookagent", "hooks", "test", "--help"],
    "hookagent hooks test (a `true` hook)": [
        *("-m", "hookagent", "hooks", "test", "PreToolUse"),
        *("--input", "{payload}", "--command", "true"),
    ],
}


async def bench_cli_start(runs: int) -> list[Verdict]:
    header(f"11. CLI start: whole process, median of {runs} runs")
    script = Path(sys.executable).with_name("hookagent")
    samples: dict[str, list[float]] = {name: [] for name in COMMANDS}
    payload = Path(tempfile.mkdtemp()) / "payload.json"
    payload.write_text('{"tool_name": "Bash", "tool_input": {"command": "ls"}}')
    for _ in range(runs + 1):  # the first round warms the file cache and is dropped
        for name, template in COMMANDS.items():
            args = [arg.replace("{payload}", str(payload)) for arg in template]
            command = [sys.executable, *args]
            if args[:2] == ["-m", "hookagent"] and script.is_file():
                command = [str(script), *args[2:]]  # the console script users run
            samples[name].append(_seconds(command))
    medians = {name: statistics.median(values[1:]) for name, values in samples.items()}
    floor = medians["import typer"]
    verdicts: list[Verdict] = []
    for name, median in medians.items():
        ratio = f"  ({median / floor:.1f}x import typer)" if name != "import typer" else ""
        print(f"{name:<38} median {median * 1e3:7.1f} ms{ratio}")
        if name.startswith("hookagent"):
            verdicts.append(Verdict(f"`{name}`, whole process", median, "s", CLI_START_TARGET))
            verdicts.append(Verdict(f"`{name}` / `import typer`", median / floor, "x", None))
    bare = medians["bare typer app: hooks test --help"]
    verdicts.append(Verdict("bare typer app: `hooks test --help`", bare, "s", None))
    ours = medians["hookagent hooks test --help"]
    verdicts.append(
        Verdict("`hookagent hooks test --help` / bare typer app", ours / bare, "x", None)
    )
    return verdicts


def _seconds(command: list[str]) -> float:
    """Wall-clock seconds of one run of `command`, its output discarded; it must succeed."""
    env = {**os.environ, "NO_COLOR": "1"}
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, env=env, check=True)
    return time.perf_counter() - start
