"""Write and Edit settle a call a crash left in doubt by what the file holds: never done
when the edit may not have happened, never not done when it may have."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import hookagent as h
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.files._edits import EditArgs, apply_edit
from hookagent.capabilities.files._paths import PathError
from hookagent.capabilities.files._reconcile import edit_state
from hookagent.store import MemoryStore
from hookagent.store._records import Flush
from hookagent.testing import ScriptedModel, reply, turn
from hookagent.tools._base import Reconciled, Reconciles


def reconcile(root: Path, name: str, **args: Any) -> Reconciled:
    tool = next(t for t in FileTools(root).tools() if t.name == name)
    assert isinstance(tool, Reconciles)
    answer = tool.reconcile(args, "key")
    assert isinstance(answer, Reconciled)
    return answer


def test_write_is_done_only_when_the_file_holds_the_content(tmp_path: Path) -> None:
    target = tmp_path / "a" / "notes.txt"
    args = {"file_path": str(target), "content": "héllo\n"}
    assert reconcile(tmp_path, "Write", **args).outcome == "not_done"  # not even its folder
    target.parent.mkdir()
    assert reconcile(tmp_path, "Write", **args).outcome == "not_done"  # absent
    target.write_text("héllo")
    assert reconcile(tmp_path, "Write", **args).outcome == "not_done"  # differs by a byte
    target.write_text("héllo\n")
    done = reconcile(tmp_path, "Write", **args)
    assert done.outcome == "done" and done.result is not None
    assert done.result.content.startswith(f"Successfully wrote 7 bytes (1 lines) to {target}")
    assert done.result.data == {"filePath": str(target), "content": "héllo\n", "success": True}
    assert "sha256" in done.reason


def test_write_to_what_it_would_refuse_is_not_done(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    for path in ("../outside.txt", "dir", "dir/\x00"):
        assert reconcile(tmp_path, "Write", file_path=path, content="x").outcome == "not_done"
    assert reconcile(tmp_path, "Write", file_path="x.txt").outcome == "not_done"  # invalid


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads anything")
def test_a_file_that_cannot_be_read_is_unknown(tmp_path: Path) -> None:
    target = tmp_path / "secret.txt"
    target.write_text("x")
    target.chmod(0o200)
    assert reconcile(tmp_path, "Write", file_path=str(target), content="x").outcome == "unknown"


@pytest.mark.parametrize(
    ("text", "old", "new", "replace_all", "outcome"),
    [
        ("x = 1\n", "x = 1", "x = 2", False, "not_done"),
        ("x = 2\n", "x = 1", "x = 2", False, "done"),
        ("a a a", "a", "b", True, "not_done"),
        ("b b b", "a", "b", True, "done"),
        ("x = 1\ny = 2\n", "x = 1", "y = 2", False, "not_done"),  # new elsewhere, not made
        ("count: 1 1", "count: 1", "count: 1 1", False, "unknown"),  # before or after
        ("x = 1\nx = 1\n", "x = 1", "x = 2", False, "unknown"),  # neither
        ("nothing here", "x = 1", "x = 2", False, "unknown"),
        ("keep\r\nold\r\nline\r\n", "old\nline", "new\nline", False, "not_done"),
        ("keep\r\nnew\r\nline\r\n", "old\nline", "new\nline", False, "done"),
        ("drop yes", "this: ", "", False, "done"),
        ("f(())", "()", "", False, "unknown"),  # "f((()))" would also have become this
        ("drop this: yes", "this: ", "", False, "unknown"),  # so would "drop tthis: his: yes"
    ],
)
def test_edit_outcomes(text: str, old: str, new: str, replace_all: bool, outcome: str) -> None:
    args = EditArgs(file_path="f", old_string=old, new_string=new, replace_all=replace_all)
    assert edit_state(text, args)[0] == outcome


def test_edit_of_a_missing_file_or_a_refused_edit_is_not_done(tmp_path: Path) -> None:
    missing = reconcile(tmp_path, "Edit", file_path="gone.txt", old_string="a", new_string="b")
    assert missing.outcome == "not_done" and "does not exist" in missing.reason
    (tmp_path / "f.txt").write_text("a")
    same = reconcile(tmp_path, "Edit", file_path="f.txt", old_string="a", new_string="a")
    assert same.outcome == "not_done"


def test_edit_done_gives_a_result_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x = 2\n")
    done = reconcile(tmp_path, "Edit", file_path="f.txt", old_string="x = 1", new_string="x = 2")
    assert done.result is not None and not done.result.is_error
    assert done.result.content.startswith(f"Successfully edited {tmp_path / 'f.txt'}")
    assert done.result.data["newString"] == "x = 2"


TEXT = st.text(alphabet="ab\r\n", max_size=12)


@given(before=TEXT, old=TEXT.filter(bool), new=TEXT, replace_all=st.booleans())
@example(before="aab", old="ab", new="", replace_all=False)
@example(before="ab", old="a", new="aa", replace_all=False)
@example(before="a\r\nb", old="a\nb", new="b\na", replace_all=False)
def test_edit_is_never_done_before_it_nor_not_done_after_it(
    before: str, old: str, new: str, replace_all: bool
) -> None:
    if old == new:
        return
    args = EditArgs(file_path="f", old_string=old, new_string=new, replace_all=replace_all)
    try:
        after, _ = apply_edit(before, args, "f")
    except PathError:
        return  # the edit would refuse this file: nothing to settle
    assert edit_state(before, args)[0] != "done", (before, after)
    assert edit_state(after, args)[0] != "not_done", (before, after)


class CrashingStore(MemoryStore):
    """Dies (a BaseException nothing catches) just before the call's end is written, or
    just after its start is, as a killed process would."""

    def __init__(self, when: str) -> None:
        super().__init__()
        self.when: str | None = when

    async def flush(self, flush: Flush) -> None:
        states = {c.state for c in flush.calls if c.call_id == "c0"}
        if self.when == "after the effect" and states & {"done", "failed"}:
            self.when = None
            raise Crash
        await super().flush(flush)
        if self.when == "before the effect" and "started" in states:
            self.when = None
            raise Crash


class Crash(BaseException):
    pass


async def crash_and_resume(
    root: Path, store: CrashingStore, name: str, **args: Any
) -> h.RunResult[Any]:
    def agent() -> h.Agent:
        model = ScriptedModel(
            [turn("", {"name": name, "args": args, "id": "c0"}), reply("done")], by_history=True
        )
        return h.AgentBuilder().model(model).with_(FileTools(root)).store(store).build()

    with pytest.raises(Crash):
        await agent().run("go", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    return await agent().resume(run.id)


async def settlement(store: MemoryStore, result: h.RunResult[Any]) -> tuple[str, str, str]:
    loaded = await store.load(result.run_id)
    assert loaded is not None
    [decision] = result.decisions.at("reconcile")
    record = next(c for c in loaded.calls if c.call_id == "c0")
    return decision.outcome, record.state, result.tool_calls[0].result.content


@pytest.mark.parametrize("when", ["after the effect", "before the effect"])
async def test_write_in_doubt_is_settled_by_its_content(tmp_path: Path, when: str) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("old")
    store = CrashingStore(when)
    result = await crash_and_resume(tmp_path, store, "Write", file_path="notes.txt", content="new")
    outcome, state, content = await settlement(store, result)
    assert target.read_text() == "new" and state == "done"
    assert outcome == ("done" if when == "after the effect" else "not_done")
    assert ("found on resume" in content) == (when == "after the effect")


@pytest.mark.parametrize("when", ["after the effect", "before the effect"])
async def test_edit_in_doubt_is_settled_by_its_text(tmp_path: Path, when: str) -> None:
    target = tmp_path / "count.txt"
    target.write_text("total = 1\n")
    store = CrashingStore(when)
    edit = {"file_path": "count.txt", "old_string": "total = 1", "new_string": "total = 2"}
    result = await crash_and_resume(tmp_path, store, "Edit", **edit)
    outcome, state, content = await settlement(store, result)
    assert target.read_text() == "total = 2\n" and state == "done"
    assert content.startswith("Successfully")  # not "old_string was not found"
    assert outcome == ("done" if when == "after the effect" else "not_done")


async def test_an_edit_that_could_be_either_stays_in_doubt(tmp_path: Path) -> None:
    target = tmp_path / "count.txt"
    target.write_text("count: 1\n")
    store = CrashingStore("after the effect")
    edit = {"file_path": "count.txt", "old_string": "count: 1", "new_string": "count: 1 1"}
    result = await crash_and_resume(tmp_path, store, "Edit", **edit)
    outcome, state, content = await settlement(store, result)
    assert (outcome, state) == ("unknown", "in_doubt") and content.startswith("In doubt")
    assert target.read_text() == "count: 1 1\n"  # not run again


def test_settling_a_write_removes_what_a_killed_attempt_left(tmp_path: Path) -> None:
    """A process killed between writing its temporary file and the rename leaves the file
    named after the call's key; settling the call (done or not done) removes it."""
    from hookagent.capabilities.files._write import temp_name

    target = tmp_path / "notes.txt"
    left = tmp_path / temp_name("key")
    for content, outcome in (("new", "not_done"), ("old", "done")):
        target.write_text("old")
        left.write_text("half of it")
        args = {"file_path": str(target), "content": content}
        assert reconcile(tmp_path, "Write", **args).outcome == outcome
        assert not left.exists()


async def test_a_write_run_again_after_a_kill_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("old")
    store = CrashingStore("before the effect")

    def agent() -> h.Agent:
        call = {"name": "Write", "args": {"file_path": "notes.txt", "content": "new"}, "id": "c0"}
        model = ScriptedModel([turn("", call), reply("done")], by_history=True)
        return h.AgentBuilder().model(model).with_(FileTools(root=tmp_path)).store(store).build()

    with pytest.raises(Crash):
        await agent().run("go", session="s")
    [run] = await store.runs((await store.session("s")).id)  # type: ignore[union-attr]
    loaded = await store.load(run.id)
    assert loaded is not None
    [call] = [c for c in loaded.calls if c.call_id == "c0"]
    from hookagent.capabilities.files._write import temp_name

    (tmp_path / temp_name(call.idempotency_key)).write_text("ne")  # killed mid-write
    result = await agent().resume(run.id)
    assert result.status == "completed" and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
