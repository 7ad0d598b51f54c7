"""FileTools as a capability: its tools, read-only mode, absolute paths for hooks, a full run."""

from __future__ import annotations

from pathlib import Path

import hookagent as h
from hookagent.capabilities.files import FileTools
from hookagent.testing import ScriptedModel, reply, tool_call


def test_a_capability_with_claude_codes_tool_names(tmp_path: Path) -> None:
    files = FileTools(tmp_path)
    assert isinstance(files, h.Capability) and files.name == "files"
    assert [t.name for t in files.tools()] == ["Read", "Write", "Edit", "Glob", "Grep", "LS"]
    read_only = FileTools(tmp_path, read_only=True)
    assert [t.name for t in read_only.tools()] == ["Read", "Glob", "Grep", "LS"]
    assert list(files.hooks()) == []  # paths are made absolute by the tools' `prepare`


def test_schemas_use_claude_codes_argument_names(tmp_path: Path) -> None:
    schemas = {t.name: t.parameters for t in FileTools(tmp_path).tools()}
    assert schemas["Read"]["required"] == ["file_path"]
    assert set(schemas["Read"]["properties"]) == {"file_path", "offset", "limit"}
    assert set(schemas["Edit"]["properties"]) == {
        "file_path",
        "old_string",
        "new_string",
        "replace_all",
    }
    assert {"pattern", "path", "glob", "output_mode", "-i", "-n", "multiline"} <= set(
        schemas["Grep"]["properties"]
    )
    assert set(schemas["LS"]["properties"]) == {"path", "ignore"}


async def test_an_agent_writes_edits_and_reads_and_hooks_see_absolute_paths(
    tmp_path: Path,
) -> None:
    seen: list[tuple[str, str]] = []

    def record(event: h.ToolCallEvent) -> None:
        seen.append((event.tool_name, event.args.get("file_path") or event.args["path"]))

    model = ScriptedModel(
        [
            tool_call("Write", file_path="notes/todo.md", content="- buy milk\n"),
            tool_call("Edit", file_path="notes/todo.md", old_string="milk", new_string="tea"),
            tool_call("Read", file_path="notes/todo.md"),
            tool_call("Read", file_path="../" * 20 + "etc/passwd"),
            tool_call("LS", path="notes"),
            reply("done"),
        ]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(FileTools(tmp_path))
        .on(h.BEFORE_TOOL, record, kind="observer")
        .build()
    )
    result = await agent.run("keep my notes")
    model.assert_consumed()
    assert result.output == "done"
    todo = str(tmp_path / "notes" / "todo.md")
    assert seen[:3] == [("Write", todo), ("Edit", todo), ("Read", todo)]
    assert seen[3] == ("Read", "/etc/passwd") and seen[4] == ("LS", str(tmp_path / "notes"))
    calls = result.tool_calls
    assert [c.result.is_error for c in calls] == [False, False, False, True, False]
    assert calls[2].result.content == "     1\t- buy tea"
    assert calls[2].result.data["file"]["filePath"] == todo
    assert "outside the working directory" in calls[3].result.content
    assert calls[4].result.content == f"{tmp_path / 'notes'}:\n[file] todo.md"
    assert (tmp_path / "notes" / "todo.md").read_text() == "- buy tea\n"


async def test_a_read_only_agent_cannot_write(tmp_path: Path) -> None:
    model = ScriptedModel([tool_call("Write", file_path="x.txt", content="x"), reply("ok")])
    agent = h.AgentBuilder().model(model).with_(FileTools(tmp_path, read_only=True)).build()
    result = await agent.run("try")
    assert result.tool_calls[0].result.is_error
    assert "Unknown tool 'Write'" in result.tool_calls[0].result.content
    assert not (tmp_path / "x.txt").exists()
