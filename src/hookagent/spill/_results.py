"""Tool results cut to a preview when too long for the model, and saved whole with the run.

As in Claude Code, a result longer than its tool's limit (50,000 characters unless the tool
or the agent says otherwise) is saved to a file and the model gets its first 2,000 characters
and the file's path. The cut result is what the run records (journal, store, hooks), so the
text is never kept twice: `data` that was the same text, or the value the text was made
from, becomes the preview as well; other `data` whose JSON is over the limit too is saved
beside it, and replaced by `{"file": path, "chars": n}`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, final

from hookagent._errors import ConfigError
from hookagent._messages import ToolCall
from hookagent.spill._files import run_folder, save_text
from hookagent.spill._preview import PREVIEW_CHARS, preview
from hookagent.tools._base import INHERIT, Tool, ToolResult

__all__ = [
    "DEFAULT_MAX_RESULT_CHARS",
    "INHERIT",
    "ToolOutputs",
    "bounded",
    "check_limit",
    "cut_result",
]

DEFAULT_MAX_RESULT_CHARS: Final = 50_000
"""Claude Code's `DEFAULT_MAX_RESULT_SIZE_CHARS`: longer results are saved to a file."""


def check_limit(value: object, key: str) -> int | None:
    """`value` as a limit: a whole number >= 1, or None for none; else a `ConfigError`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"must be a whole number >= 1, or None for no limit, not {value!r}",
            key=key,
            value=value,
        )
    return value


@final
class ToolOutputs:
    """Per tool, the most characters of a result the model reads (None: no limit)."""

    __slots__ = ("_default", "limits", "root")

    def __init__(self, root: Path, tools: Mapping[str, Tool], default: int | None) -> None:
        self.root = root
        """Run folders are made under `<root>/runs/`."""
        self._default = check_limit(default, "max_result_chars")
        self.limits = {name: self._limit_of(tool) for name, tool in tools.items()}

    def _limit_of(self, tool: Tool) -> int | None:
        value = getattr(tool, "max_result_chars", INHERIT)
        if value is INHERIT:
            return self._default
        return check_limit(value, f"tool {tool.name!r}: max_result_chars")

    def limit(self, name: str) -> int | None:
        """The most characters of tool `name`'s result the model reads (None: no limit)."""
        return self.limits.get(name, self._default)

    async def bound(self, run_id: str, call: ToolCall, result: ToolResult) -> ToolResult:
        """`result`, or when its text is over the tool's limit, the cut result."""
        limit = self.limit(call.name)
        return await bounded(result, limit, run_folder(self.root, run_id), f"{call.name}-{call.id}")


async def bounded(result: ToolResult, limit: int | None, folder: Path, stem: str) -> ToolResult:
    """`result`, or when its text is over `limit`, the cut result (saved as `stem-…`)."""
    if limit is None or len(result.content) <= limit:
        return result
    return await asyncio.to_thread(cut_result, result, limit, folder, stem)


def cut_result(result: ToolResult, limit: int, folder: Path, stem: str) -> ToolResult:
    """`result` with its text saved whole in `folder` and shown as a preview. A failure to
    save costs the file, never the result: the preview says why there is none."""
    text = result.content
    path: str | None = None
    error: str | None = None
    try:
        path = save_text(folder, stem, text)
    except OSError as exc:
        error = f"{exc.strerror or exc}: {exc.filename or folder}"
    shown = preview(
        text,
        what="Output",
        size=f"{len(text):,} characters",
        path=path,
        error=error,
        chars=min(limit, PREVIEW_CHARS),
    )
    data = _bounded_data(result.data, text, shown, limit, folder, stem)
    return replace(result, content=shown, data=data)


def _bounded_data(data: Any, text: str, shown: str, limit: int, folder: Path, stem: str) -> Any:
    """`data` as the cut result keeps it: the preview when it held nothing `text` does not
    (the text itself, or the value `ToolResult.of` made it from); a reference to a file
    holding its JSON when that is over `limit` too; else itself."""
    if data is None:
        return None
    if isinstance(data, str):
        serial = data
    else:
        try:
            serial = json.dumps(data, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            return data
    if serial == text:
        return shown
    if len(serial) <= limit:
        return data
    try:
        return {"file": save_text(folder, f"{stem}-data", serial), "chars": len(serial)}
    except OSError as exc:
        return {"file": None, "chars": len(serial), "error": exc.strerror or str(exc)}
