"""A gated call's result is bounded as an agent's tool result is: over the limit (50,000
characters unless the gate, the call or the wrapper says otherwise), the caller and after_tool
hooks get a preview and the path of a file in the session's run folder holding it whole; a
result an after_tool hook put in place is bounded too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.gate import ToolGate
from hookagent.spill import DEFAULT_MAX_RESULT_CHARS

HUGE = "".join(f"row {n:07d}\n" for n in range(500_000))  # 6 MB, every line distinct


def huge() -> str:
    return HUGE


def saved_path(text: str) -> Path:
    match = re.search(r"Full output saved to: (\S+)", text)
    assert match is not None, text[:300]
    return Path(match.group(1))


async def test_a_huge_result_is_a_preview_and_the_whole_text_is_saved(tmp_path: Path) -> None:
    seen: list[h.ToolResult] = []

    def after(event: h.ToolResultEvent) -> None:
        seen.append(event.result)

    gate = ToolGate(folder=tmp_path, run_id="r1").on(h.AFTER_TOOL, after)
    result = await gate.call("huge", {}, execute=huge)
    text = result.result.content
    assert text.startswith(f"<persisted-output>\nOutput too large ({len(HUGE):,} characters).")
    assert len(text) <= 2_000 + 400 and HUGE[:2_000] in text
    assert result.value == text, "the caller's model reads the preview, not the blob"
    assert seen == [result.result]
    saved = saved_path(text)
    assert saved.parent == tmp_path / "runs" / "r1"
    assert saved.name.startswith("huge-") and saved.read_text() == HUGE
    assert not result.result.is_error and result.ok


async def test_a_result_an_after_tool_hook_puts_in_place_is_bounded(tmp_path: Path) -> None:
    def replace(event: h.ToolResultEvent) -> h.HookResult:
        return h.HookResult.modify(result=h.ToolResult(content=HUGE))

    gate = ToolGate(folder=tmp_path, run_id="r2").on(h.AFTER_TOOL, replace)
    result = await gate.call("small", {}, execute=lambda: "short", session="s")
    assert len(result.result.content) <= 2_000 + 400
    assert result.value == result.result.content
    assert saved_path(result.value).parent == tmp_path / "runs" / "r2:s".replace(":", "_")
    assert saved_path(result.value).read_text() == HUGE


async def test_the_gate_the_call_and_the_wrapper_set_the_limit(tmp_path: Path) -> None:
    text = "z" * 1_001
    gate = ToolGate(folder=tmp_path, max_result_chars=1_000)
    assert (
        "Output too large (1,001 characters)"
        in (await gate.call("a", {}, execute=lambda: text)).value
    )
    assert (await gate.call("a", {}, execute=lambda: text[:1_000])).value == text[:1_000]
    whole = await gate.call("a", {}, execute=lambda: text, max_result_chars=None)
    assert whole.value == text
    tight = await gate.call("a", {}, execute=lambda: "y" * 101, max_result_chars=100)
    assert "(first 100 characters):\n" + "y" * 100 + "\n</persisted-output>" in tight.value

    @gate.wrap(max_result_chars=None)
    async def open_ended() -> str:
        return text

    assert await open_ended() == text
    unlimited = ToolGate(folder=tmp_path, max_result_chars=None)
    assert (await unlimited.call("a", {}, execute=huge)).value == HUGE
    assert ToolGate().max_result_chars == DEFAULT_MAX_RESULT_CHARS


def test_a_sync_wrapper_returns_the_preview(tmp_path: Path) -> None:
    gate = ToolGate(folder=tmp_path)
    text = gate.wrap(huge)()
    assert isinstance(text, str) and saved_path(text).read_text() == HUGE


@pytest.mark.parametrize("limit", [0, -5, 2.5, "big", True])
async def test_a_bad_limit_is_a_config_error_naming_where(limit: Any) -> None:
    with pytest.raises(h.ConfigError, match=r"ToolGate\(max_result_chars\): must be a whole"):
        ToolGate(max_result_chars=limit)
    gate = ToolGate()
    with pytest.raises(h.ConfigError, match="call 'a': max_result_chars: must be a whole"):
        await gate.call("a", {}, execute=lambda: "x", max_result_chars=limit)
