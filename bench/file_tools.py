"""6. File tools: Read and Grep against the same work written by hand, in the same run."""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import re
import subprocess
import tempfile
import tracemalloc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from harness import (
    FILE_TOOL_TARGET,
    RIPGREP_TARGET,
    Runner,
    Samples,
    Verdict,
    header,
    paired_ratio,
    timed,
)
from hookagent._messages import ToolCall
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files._grep_ripgrep import _ALWAYS
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import Tool, ToolContext, ToolResult

# -- 6. file tools -------------------------------------------------------------------------

READ_LINES: Final = 200_000
READ_LINE: Final = "{:06d} quick brown fox jumps over the lazy dog {:02d}\n"
"""49 characters and a newline: 200,000 of them make a file of exactly 10,000,000 bytes."""
READ_OFFSET: Final = READ_LINES // 2 + 1
READ_LIMIT: Final = 2000
READ_CALLS: Final = 10
"""Read calls per timing sample (each of hookagent's and the hand-written one)."""

GREP_FOLDERS: Final = 50
GREP_FILES: Final = 100
"""Files per folder."""
GREP_PATTERN: Final = r"needle_\d+"
GREP_EVERY: Final = 100
"""One file in this many holds the pattern (on one of its lines)."""
GREP_CALLS: Final = 1
GREP_MODES: Final = ("files_with_matches", "content")


@dataclass(frozen=True, slots=True)
class Data:
    root: Path
    big: Path
    """The 10 MB file Read reads."""
    tree: Path
    """The folder of small files Grep searches."""
    size: int
    files: int
    needles: int
    """Files holding the pattern."""


def make_data(tmp: str) -> Data:
    root = Path(os.path.realpath(tmp))  # the paths the tools report
    big, tree = root / "big.txt", root / "tree"
    tree.mkdir()
    size = write_big_file(big)
    files, needles = write_tree(tree)
    return Data(root, big, tree, size, files, needles)


def write_big_file(path: Path) -> int:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for start in range(0, READ_LINES, 10_000):
            chunk = range(start, min(start + 10_000, READ_LINES))
            f.write("".join(READ_LINE.format(i + 1, i % 97) for i in chunk))
    return path.stat().st_size


def write_tree(top: Path) -> tuple[int, int]:
    """`GREP_FOLDERS` folders of `GREP_FILES` small Python-looking files; returns (files,
    files holding the pattern)."""
    files = needles = 0
    for d in range(GREP_FOLDERS):
        folder = top / f"pkg_{d:02d}"
        folder.mkdir()
        for i in range(GREP_FILES):
            n = d * GREP_FILES + i
            marker = f"needle_{n}" if n % GREP_EVERY == 42 else f"value_{n}"
            needles += marker.startswith("needle")
            (folder / f"mod_{i:03d}.py").write_text(
                f'"""Module {n} of the benchmark tree."""\n'
                f"def function_{n}(x):\n"
                f"    key = {marker!r}\n"
                f"    return x + {n}  # plain arithmetic\n"
                "# end of file\n",
                encoding="utf-8",
            )
            files += 1
    return files, needles


# -- the same work written by hand ---------------------------------------------------------


def read_by_hand(path: str, offset: int, limit: int) -> str:
    """What a hand-written Read does: skip to the offset, take the window, number it."""
    with open(path, encoding="utf-8", errors="replace") as f:
        window = itertools.islice(f, offset - 1, offset - 1 + limit)
        lines = (line.removesuffix("\n") for line in window)
        return "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(lines, offset))


def grep_by_hand(top: str, pattern: str, content: bool) -> list[str]:
    """What a hand-written Grep does: walk, open each file, `re.search` line by line."""
    regex = re.compile(pattern)
    found: list[str] = []
    for folder, _, names in os.walk(top):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if regex.search(line):
                        if not content:
                            found.append(path)
                            break
                        text = line.removesuffix("\n")
                        found.append(f"{path}:{n}:{text}")
    return found


# -- measuring -----------------------------------------------------------------------------


def tool_runner(
    tool: Tool, args: Mapping[str, Any], check: Callable[[ToolResult], None] | None = None
) -> Runner:
    """`await tool(args, ctx)` as the engine makes it, the result checked if `check` is given."""
    ctx = ToolContext(run=RunView(RunState()), call=ToolCall(id="bench", name=tool.name))

    async def go() -> ToolResult:
        result = await tool(args, ctx)
        if check is not None:
            check(result)
        return result

    return go


def hand_runner(work: Callable[[], object]) -> Runner:
    """The hand-written work, off the loop on a worker thread as the file tools run."""

    async def go() -> object:
        return await asyncio.to_thread(work)

    return go


async def peak(runner: Runner) -> int:
    """tracemalloc's peak over one (warm) call, above what was traced before it."""
    await runner()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        await runner()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@dataclass(frozen=True, slots=True)
class Pair:
    """A hookagent call and the hand-written one, and how many of each a sample makes."""

    name: str
    tool: Runner
    hand: Runner
    calls: int
    unchecked: Runner
    """The hookagent call without the check of its result, for the memory peak."""


@dataclass(slots=True)
class Result:
    pair: Pair
    tool: Samples
    hand: Samples
    tool_peak: int
    hand_peak: int

    @property
    def ratio(self) -> float:
        return paired_ratio(self.tool, self.hand)


async def measure(pairs: list[Pair], repeats: int) -> list[Result]:
    samples = {p.name: (Samples(), Samples()) for p in pairs}
    for round_no in range(repeats + 1):  # the first round warms up and is dropped
        for p in pairs:
            tool, hand = samples[p.name]
            if round_no % 2:  # alternate which side goes first, so a drift hits both
                t, h = await timed(p.tool, p.calls), await timed(p.hand, p.calls)
            else:
                h, t = await timed(p.hand, p.calls), await timed(p.tool, p.calls)
            if round_no:
                tool.values.append(t / p.calls)
                hand.values.append(h / p.calls)
    return [Result(p, *samples[p.name], await peak(p.unchecked), await peak(p.hand)) for p in pairs]


def expect(what: str, ok: bool) -> None:
    if not ok:
        raise SystemExit(f"file-tools benchmark: {what}")


def read_pair(big: Path, tools: dict[str, Tool]) -> Pair:
    wanted = read_by_hand(str(big), READ_OFFSET, READ_LIMIT)

    def check(result: ToolResult) -> None:
        shown = result.content.partition("\n\n(Showing lines")[0]
        expect(f"Read gave {result.content[:200]!r}", not result.is_error and shown == wanted)
        expect("Read counted the lines", result.data["file"]["totalLines"] == READ_LINES)

    args = {"file_path": str(big), "offset": READ_OFFSET, "limit": READ_LIMIT}
    return Pair(
        "Read",
        tool_runner(tools["Read"], args, check),
        hand_runner(lambda: read_by_hand(str(big), READ_OFFSET, READ_LIMIT)),
        READ_CALLS,
        tool_runner(tools["Read"], args),
    )


def grep_pair(top: Path, tools: dict[str, Tool], mode: str, engine: str) -> Pair:
    content = mode == "content"
    wanted = sorted(grep_by_hand(str(top), GREP_PATTERN, content))

    def check(result: ToolResult) -> None:
        expect(f"Grep gave {result.content[:200]!r}", not result.is_error)
        got = result.data["content"].split("\n") if content else result.data["filenames"]
        expect(f"Grep {mode} found {len(got)}, by hand {len(wanted)}", sorted(got) == wanted)

    args = {"pattern": GREP_PATTERN, "path": str(top), "output_mode": mode}
    return Pair(
        f"Grep {mode} ({engine})",
        tool_runner(tools["Grep"], args, check),
        hand_runner(lambda: grep_by_hand(str(top), GREP_PATTERN, content)),
        GREP_CALLS,
        tool_runner(tools["Grep"], args),
    )


RG_ALONE: Final = "rg alone, files_with_matches"


def rg_alone_pair(top: Path, rg: str) -> Pair:
    """ripgrep as a whole process with the argv the tool gives it: the floor of the ripgrep
    rows (the tool adds its arguments, confinement, parsing and the result around it)."""
    wanted = sorted(grep_by_hand(str(top), GREP_PATTERN, False))
    argv = [rg, *_ALWAYS, "--files-with-matches", f"--regexp={GREP_PATTERN}", "--", "."]

    def search() -> list[str]:
        done = subprocess.run(argv, cwd=top, capture_output=True, check=False)
        return [
            os.path.join(top, p.removeprefix("./")) for p in done.stdout.decode().split("\0") if p
        ]

    async def checked() -> None:
        got = await asyncio.to_thread(search)
        expect(f"rg found {len(got)}, by hand {len(wanted)}", sorted(got) == wanted)

    return Pair(
        RG_ALONE,
        checked,
        hand_runner(lambda: grep_by_hand(str(top), GREP_PATTERN, False)),
        GREP_CALLS,
        hand_runner(search),
    )


def ms(s: Samples) -> str:
    return f"{s.best * 1e3:>8.2f}{s.median * 1e3:>8.2f}"


def mb(n: int) -> str:
    return f"{n / 1e6:>8.2f}"


async def bench_file_tools(repeats: int) -> list[Verdict]:
    header("6. file tools (Read and Grep vs the same work written by hand)")
    with tempfile.TemporaryDirectory(prefix="hookagent-bench-") as tmp:
        data = make_data(tmp)
        files = data.files
        tools = {t.name: t for t in FileTools(data.root, read_only=True).tools()}
        python = {t.name: t for t in FileTools(data.root, read_only=True, search="python").tools()}
        engine = FileTools(data.root).grep.engine
        pairs = [
            read_pair(data.big, tools),
            *(grep_pair(data.tree, tools, mode, engine) for mode in GREP_MODES),
        ]
        if engine != "python":  # the fallback, for machines without ripgrep
            pairs += [grep_pair(data.tree, python, mode, "python") for mode in GREP_MODES]
            rg = FileTools(data.root).grep.rg
            assert rg is not None
            pairs.append(rg_alone_pair(data.tree, rg))
        print(
            f"Read: lines {READ_OFFSET:,}-{READ_OFFSET + READ_LIMIT - 1:,} of a "
            f"{data.size / 1e6:g} MB file of {READ_LINES:,} lines of 49\n"
            f"characters, {READ_CALLS} calls per sample.\n"
            "  by hand: open() in text mode, itertools.islice to the window, '%6d\\t%s' per "
            "line;\n  hookagent's Read also counts the lines after the window (totalLines).\n"
            f"Grep: {GREP_PATTERN} over {files:,} files in {GREP_FOLDERS} folders, 5 lines "
            f"each, {data.needles} holding it.\n"
            "  by hand: os.walk, open() in text mode, re.search per line (files_with_matches:\n"
            "  up to the first hit).\n"
            "Both sides run on a worker thread (asyncio.to_thread), as the file tools do; "
            "hookagent's\nside is `await tool(args, ctx)`: argument validation, confinement "
            "to the root, the work.\n"
            "Files are in the page cache (a warm-up round is dropped); the order of the two "
            "sides\nalternates by round. Peak: tracemalloc's peak over one call, above what "
            "was traced\nbefore it."
        )
        results = await measure(pairs, repeats)
    print(
        f"\n{'call':<34}{'by hand ms':>16}{'hookagent ms':>16}{'x hand':>8}{'(min)':>7}"
        f"{'peak MB':>16}"
    )
    print(
        f"{'':<34}{'min':>8}{'med':>8}{'min':>8}{'med':>8}{'paired':>8}{'':>7}"
        f"{'hand':>8}{'tool':>8}"
    )
    verdicts: list[Verdict] = []
    for r in results:
        print(
            f"{r.pair.name:<34}{ms(r.hand)}{ms(r.tool)}{r.ratio:>8.2f}"
            f"{r.tool.best / r.hand.best:>7.2f}{mb(r.hand_peak)}{mb(r.tool_peak)}"
        )
    read, *greps = results
    window = f"Read {READ_LIMIT:,} lines"
    verdicts.append(
        Verdict(f"{window} mid {data.size / 1e6:g} MB file", read.ratio, "x hand", FILE_TOOL_TARGET)
    )
    verdicts.append(Verdict(f"{window}, peak memory", read.tool_peak / 1e6, "MB", None))
    for r in greps:
        target = RIPGREP_TARGET if "(ripgrep)" in r.pair.name else FILE_TOOL_TARGET
        if r.pair.name == RG_ALONE:
            target = None
        verdicts.append(Verdict(f"{r.pair.name}, {files:,} files", r.ratio, "x hand", target))
    verdicts.append(
        Verdict(
            f"Grep {files:,} files, peak memory",
            max(r.tool_peak for r in greps if r.pair.name != RG_ALONE) / 1e6,
            "MB",
            None,
        )
    )
    return verdicts
