"""IntentGate: the select_active_intent handshake, the intent in the system prompt, and the
four error codes of intent gating (NO_ACTIVE_INTENT, SCOPE_VIOLATION, STALE_FILE,
HOOK_INTERNAL_ERROR), each driven through a real run with the real file tools."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.intents import (
    ACTIVE_INTENT,
    OBSERVED_FILES,
    Intent,
    IntentGate,
    parse_intents,
    render_context,
)
from hookagent.capabilities.intents import _checks as intent_checks
from hookagent.capabilities.intents._checks import ToolSet
from hookagent.models._base import ModelRequest, ModelResponse
from hookagent.testing import FunctionModel, reply, tool_call

INTENTS = """\
---
# what the agent may work on
active_intents:
  - id: "INT-001"
    name: JWT authentication migration
    status: IN_PROGRESS
    owned_scope:
      - "src/auth/**"
      - src/middleware/jwt.ts
    constraints: ["Must not use external auth providers", 'Keep the public API']
    acceptance_criteria:
    - Unit tests in tests/auth/ pass
  - id: INT-002
    name: Docs
    status: PENDING
    owned_scope: ["docs/"]
"""
LISTED = [
    {"id": "INT-001", "name": "JWT authentication migration", "status": "IN_PROGRESS"},
    {"id": "INT-002", "name": "Docs", "status": "PENDING"},
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".orchestration").mkdir()
    (tmp_path / ".orchestration" / "active_intents.yaml").write_text(INTENTS)
    (tmp_path / "src" / "auth").mkdir(parents=True)
    return tmp_path


Step = ModelResponse | Any  # a turn, or a function of the request that gives one


async def run(
    project: Path, *turns: Step, gate: IntentGate | None = None, tools: tuple[Any, ...] = ()
) -> tuple[h.RunResult, list[str | None]]:
    """Run the turns in order (a callable turn is called first, so it can act between
    steps); returns the result and the system prompt of every model request."""
    script, prompts = list(turns), []

    def answer(request: ModelRequest) -> ModelResponse:
        prompts.append(request.system_prompt)
        step = script.pop(0)
        return step if isinstance(step, ModelResponse) else step(request)

    agent = (
        h.AgentBuilder()
        .model(FunctionModel(answer))
        .system_prompt("You write code.")
        .tools(*tools)
        .with_(FileTools(project))
        .with_(gate or IntentGate(root=project))
        .build()
    )
    result = await agent.run("work")
    assert not script, "turns left over"
    assert result.status == "completed", result.error
    return result, prompts


def select(intent_id: str) -> ModelResponse:
    return tool_call("select_active_intent", intent_id=intent_id)


def before_tool(result: h.RunResult, index: int) -> h.Decision:
    call_id = result.tool_calls[index].call_id
    (decision,) = [d for d in result.decisions.at(h.BEFORE_TOOL) if d.call_id == call_id]
    return decision


def hook_of(result: h.RunResult, index: int) -> str | None:
    return before_tool(result, index).hook


def refusal(result: h.RunResult, index: int) -> dict[str, Any]:
    """The JSON error of the index-th tool call: the whole reason of the block, which the
    model reads as the call's error result."""
    execution, decision = result.tool_calls[index], before_tool(result, index)
    assert execution.blocked and execution.result.is_error
    assert decision.outcome == "block" and decision.reason is not None
    assert execution.result.content == (
        f"Tool call {execution.name!r} was blocked by {decision.hook}: {decision.reason}"
    )
    parsed: dict[str, Any] = json.loads(decision.reason)
    assert parsed["tool"] == execution.name and parsed["call_id"] == execution.call_id
    return parsed


# -- NO_ACTIVE_INTENT -------------------------------------------------------------------


async def test_a_write_before_any_intent_is_refused_with_the_intents_to_choose_from(
    project: Path,
) -> None:
    result, prompts = await run(
        project, tool_call("Write", file_path="src/auth/a.py", content="x"), reply("ok")
    )
    error = refusal(result, 0)
    assert error["error"] == "NO_ACTIVE_INTENT"
    assert error["message"].startswith("Handshake required: call select_active_intent")
    assert error["tool"] == "Write" and error["intents"] == LISTED
    assert hook_of(result, 0) == "intents:require_intent"
    assert not (project / "src" / "auth" / "a.py").exists()
    assert all("ACTIVE INTENT CONTEXT" not in (p or "") for p in prompts)


async def test_tools_named_write_or_delete_need_an_intent_too(project: Path) -> None:
    @h.tool(name="delete_branch")
    def delete_branch(branch: str) -> str:
        """Delete a branch."""
        return "deleted"

    @h.tool(name="mcp__fs__write_file")
    def write_file(path: str) -> str:
        """Write a file."""
        return "written"

    @h.tool(name="TodoWrite")
    def todo_write(todos: str) -> str:
        """Not a file change."""
        return "ok"

    result, _ = await run(
        project,
        tool_call("delete_branch", branch="main"),
        tool_call("mcp__fs__write_file", path="x"),
        tool_call("TodoWrite", todos="a"),
        reply("ok"),
        tools=(delete_branch, write_file, todo_write),
    )
    assert [refusal(result, i)["error"] for i in (0, 1)] == ["NO_ACTIVE_INTENT"] * 2
    assert not result.tool_calls[2].blocked


def test_the_mutating_set_is_configurable_and_matches_case_insensitively() -> None:
    tools = ToolSet({"Write", "Bash"}, ("write*", "delete*"))
    names = ["Write", "Bash", "WriteFile", "mcp__x__delete_row"]
    assert [name for name in names if tools.accepts(name, None)] == names
    assert not any(tools.accepts(n, None) for n in ("Read", "TodoWrite", "Glob", None))
    assert not ToolSet({"Write"}).accepts("Bash", None)


# -- the handshake and the system prompt ------------------------------------------------


async def test_select_then_write_in_scope_is_allowed_and_the_prompt_carries_the_intent(
    project: Path,
) -> None:
    result, prompts = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/auth/token.py", content="TOKEN = 1\n"),
        reply("done"),
    )
    chosen = result.tool_calls[0].result
    assert not chosen.is_error and chosen.data["intent_id"] == "INT-001"
    assert result.state.metadata[ACTIVE_INTENT.name] == "INT-001"
    (stored,) = result.decisions.by("remember_intent")
    assert stored.outcome == "modify"
    assert not result.tool_calls[1].result.is_error
    assert (project / "src" / "auth" / "token.py").read_text() == "TOKEN = 1\n"

    assert prompts[0] == "You write code."
    for prompt in prompts[1:]:
        assert prompt is not None and prompt.startswith("You write code.\n\nACTIVE INTENT CONTEXT")
        assert '<intent_context id="INT-001" name="JWT authentication migration"' in prompt
        assert "- src/auth/**" in prompt and "- Must not use external auth providers" in prompt
        assert prompt.count("<intent_context") == 1


async def test_an_unknown_intent_is_an_error_listing_the_intents(project: Path) -> None:
    result, prompts = await run(
        project,
        select("INT-999"),
        tool_call("Edit", file_path="src/auth/a.py", old_string="a", new_string="b"),
        reply("ok"),
    )
    out = result.tool_calls[0].result
    assert out.is_error
    error = json.loads(out.content)
    assert error["error"] == "UNKNOWN_INTENT" and error["intent_id"] == "INT-999"
    assert error["intents"] == LISTED
    assert ACTIVE_INTENT.name not in result.state.metadata
    assert refusal(result, 1)["error"] == "NO_ACTIVE_INTENT"
    assert all("<intent_context" not in (p or "") for p in prompts)


async def test_a_missing_intents_file_is_an_error_result(tmp_path: Path) -> None:
    result, _ = await run(tmp_path, select("INT-001"), reply("ok"))
    error = json.loads(result.tool_calls[0].result.content)
    assert error["error"] == "INTENTS_UNAVAILABLE"
    assert error["file"] == str(tmp_path / ".orchestration" / "active_intents.yaml")


async def test_switching_intents_switches_the_scope(project: Path) -> None:
    result, prompts = await run(
        project,
        select("INT-001"),
        select("INT-002"),
        tool_call("Write", file_path="docs/guide.md", content="# Guide\n"),
        tool_call("Write", file_path="src/auth/a.py", content="x"),
        reply("ok"),
    )
    assert not result.tool_calls[2].result.is_error
    assert refusal(result, 3)["intent_id"] == "INT-002"
    assert '<intent_context id="INT-002"' in (prompts[-1] or "")
    assert "INT-001" not in (prompts[-1] or "")


# -- SCOPE_VIOLATION --------------------------------------------------------------------


async def test_a_write_outside_the_owned_scope_is_refused_with_the_globs_allowed(
    project: Path,
) -> None:
    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/app.py", content="x"),
        reply("ok"),
    )
    error = refusal(result, 1)
    assert error["error"] == "SCOPE_VIOLATION"
    assert error["intent_id"] == "INT-001" and error["path"] == "src/app.py"
    assert error["allowed"] == ["src/auth/**", "src/middleware/jwt.ts"]
    assert "matches none of the intent's owned_scope globs" in error["message"]
    assert hook_of(result, 1) == "intents:check_scope"
    assert not (project / "src" / "app.py").exists()


async def test_paths_outside_the_root_or_through_a_symlink_are_out_of_scope(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (project / "secrets").mkdir()
    (project / "src" / "auth" / "keys").symlink_to(project / "secrets")
    outside = tmp_path_factory.mktemp("elsewhere") / "x.py"
    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/auth/keys/k.pem", content="x"),
        tool_call("Write", file_path=str(outside), content="x"),
        reply("ok"),
    )
    linked, escaped = refusal(result, 1), refusal(result, 2)
    assert linked["error"] == escaped["error"] == "SCOPE_VIOLATION"
    assert "symbolic link" in linked["message"] and linked["path"] == "src/auth/keys/k.pem"
    assert "outside the project root" in escaped["message"] and escaped["path"] == str(outside)
    assert not (project / "secrets" / "k.pem").exists() and not outside.exists()


# -- STALE_FILE -------------------------------------------------------------------------


async def test_a_file_changed_since_it_was_read_is_stale_until_read_again(
    project: Path,
) -> None:
    target = project / "src" / "auth" / "a.py"
    target.write_text("x = 1\n")
    edit = tool_call("Edit", file_path="src/auth/a.py", old_string="x = 1", new_string="x = 2")

    def someone_else_edits(request: ModelRequest) -> ModelResponse:
        target.write_text("x = 1\ny = 0\n")
        return edit

    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Read", file_path="src/auth/a.py"),
        someone_else_edits,
        tool_call("Read", file_path="src/auth/a.py"),
        tool_call("Edit", file_path="src/auth/a.py", old_string="x = 1", new_string="x = 2"),
        reply("ok"),
    )
    error = refusal(result, 2)
    assert error["error"] == "STALE_FILE" and error["reason"] == "changed"
    assert error["path"] == "src/auth/a.py" and "Read it again" in error["message"]
    assert error["observed_sha256"] != error["current_sha256"]
    assert hook_of(result, 2) == "intents:check_lock"
    assert not result.tool_calls[4].result.is_error
    assert target.read_text() == "x = 2\ny = 0\n"
    assert list(result.state.metadata[OBSERVED_FILES.name]) == [str(target)]


async def test_an_existing_file_must_be_read_first_but_new_files_and_own_writes_need_not(
    project: Path,
) -> None:
    (project / "src" / "auth" / "old.py").write_text("old\n")
    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/auth/old.py", content="new\n"),
        tool_call("Write", file_path="src/auth/new.py", content="a = 1\n"),
        tool_call("Edit", file_path="src/auth/new.py", old_string="a = 1", new_string="a = 2"),
        reply("ok"),
    )
    error = refusal(result, 1)
    assert error["error"] == "STALE_FILE" and error["reason"] == "unread"
    assert error["observed_sha256"] is None
    assert (project / "src" / "auth" / "old.py").read_text() == "old\n"
    assert not result.tool_calls[2].result.is_error and not result.tool_calls[3].result.is_error
    assert (project / "src" / "auth" / "new.py").read_text() == "a = 2\n"


async def test_require_read_false_lets_an_unread_file_be_written(project: Path) -> None:
    (project / "src" / "auth" / "old.py").write_text("old\n")
    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/auth/old.py", content="new\n"),
        reply("ok"),
        gate=IntentGate(root=project, require_read=False),
    )
    assert not result.tool_calls[1].result.is_error


# -- HOOK_INTERNAL_ERROR ----------------------------------------------------------------


async def test_a_crashing_scope_check_fails_closed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(intent: Intent, target: intent_checks.Target) -> bool:
        raise RuntimeError("glob engine exploded")

    monkeypatch.setattr(intent_checks, "in_scope", broken)
    result, _ = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/auth/a.py", content="x"),
        reply("ok"),
    )
    error = refusal(result, 1)
    assert error["error"] == "HOOK_INTERNAL_ERROR"
    assert error["hook"] == "intents:check_scope"
    assert error["detail"] == "RuntimeError: glob engine exploded"
    assert not (project / "src" / "auth" / "a.py").exists()


async def test_an_intents_file_broken_mid_run_fails_closed(project: Path) -> None:
    intents = project / ".orchestration" / "active_intents.yaml"

    def break_the_file(request: ModelRequest) -> ModelResponse:
        intents.write_text("active_intents:\n  - id: INT-001\n    name: a: b\n")
        return tool_call("Write", file_path="src/auth/a.py", content="x")

    result, prompts = await run(project, select("INT-001"), break_the_file, reply("ok"))
    error = refusal(result, 1)
    assert error["error"] == "HOOK_INTERNAL_ERROR" and error["hook"] == "intents:require_intent"
    assert "ConfigError" in error["detail"] and "line 3" in error["detail"]
    assert not (project / "src" / "auth" / "a.py").exists()
    assert prompts[-1] == "You write code."  # the prompt's transform fails open; guards do not


def test_the_guards_are_policy_tier_guards_that_block_on_failure(project: Path) -> None:
    hooks = {hook.name: hook for hook in IntentGate(root=project).hooks()}
    for name in ("require_intent", "check_scope", "check_lock"):
        guard = hooks[name]
        assert (guard.tier, guard.kind, guard.on_failure) == ("policy", "guard", "block")
    order = sorted(hooks.values(), key=lambda hook: hook.sort_key)
    assert [hook.name for hook in order][:3] == ["require_intent", "check_scope", "check_lock"]


# -- the intents file -------------------------------------------------------------------


def test_the_yaml_subset_reads_the_seed_format() -> None:
    first, second = parse_intents(INTENTS, "intents.yaml")
    assert first.id == "INT-001" and first.status == "IN_PROGRESS"
    assert first.owned_scope == ("src/auth/**", "src/middleware/jwt.ts")
    assert first.constraints == ("Must not use external auth providers", "Keep the public API")
    assert first.acceptance_criteria == ("Unit tests in tests/auth/ pass",)
    assert second.owned_scope == ("docs/",)
    assert second.patterns[0].match("docs/a/b.md") and not second.patterns[0].match("doc.md")


def test_a_json_intents_file_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "intents.json"
    path.write_text(json.dumps({"active_intents": [{"id": "A", "owned_scope": ["x/*"]}]}))
    gate = IntentGate(path, root=tmp_path)
    (intent,) = gate.file.load() or ()
    assert intent.id == "A" and intent.owned_scope == ("x/*",)
    with pytest.raises(ConfigError, match=r"intents\.json: active_intents\[0\]\.id: `id` must"):
        parse_intents('{"active_intents": [{"id": 3}]}', str(path))


def test_yaml_text_over_several_lines_is_read() -> None:
    text = "active_intents:\n  - id: A\n    name: two\n      lines\n    constraints:\n"
    (intent,) = parse_intents(text + "      - |\n        kept\n        as is\n", "a.yaml")
    assert (intent.name, intent.constraints) == ("two lines", ("kept\nas is",))  # stripped


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("active_intents:\n  - id: A\n    name: a: b\n", "line 3: mapping values are not"),
        ("active_intents:\n  - id: A\n    id: B\n", "line 3: `id` is given twice"),
        ("active_intents:\n\t- id: A\n", "line 2: found character that cannot start"),
        ("active_intents:\n  - id: A\n  - id: [B\n", "line 4: did not find expected"),
        ("active_intents:\n  - {id: A, id: B}\n", "line 2: `id` is given twice"),
        ("active_intents:\n  - id: A\n    owned_scope: src\n", "line 3: `owned_scope` must"),
        ("active_intents:\n  - id: A\n  - id: A\n", "line 3: the id 'A' is given twice"),
        ("active_intents:\n  - name: x\n", "line 2: the intent has no `id`"),
        ("active_intents:\n  - id: a b\n", "line 2: id 'a b' must be"),
        ("active_intents:\n  - id: A\n    owned_scope: ['/etc/*']\n", "line 3: the glob"),
        ("intents:\n  - id: A\n", "expected a map with an `active_intents:` list"),
    ],
)
def test_a_malformed_file_is_a_config_error_naming_the_file_and_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / ".orchestration" / "active_intents.yaml"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        IntentGate(root=tmp_path)
    assert str(caught.value).startswith(f"{path}: ")
    assert problem in str(caught.value)


def test_the_rendered_context_is_capped_and_escaped() -> None:
    intent = Intent(
        id="I",
        name="a <b> & c",
        owned_scope=tuple(f"dir{i}/**" for i in range(20)),
        constraints=tuple(f"rule {i}" for i in range(7)),
        acceptance_criteria=("x" * 500,),
    )
    text = render_context(intent)
    assert text.startswith('<intent_context id="I" name="a &lt;b&gt; &amp; c">')
    assert "- dir14/**" in text and "- dir15/**" not in text and "(and 5 more)" in text
    assert "- rule 4" in text and "- rule 5" not in text and "(and 2 more)" in text
    assert "x" * 199 + "…" in text and "x" * 200 not in text


async def test_edits_to_the_intents_file_take_effect_without_a_restart(project: Path) -> None:
    intents = project / ".orchestration" / "active_intents.yaml"

    def widen_the_scope(request: ModelRequest) -> ModelResponse:
        intents.write_text(INTENTS.replace('"src/auth/**"', '"src/**"'))
        os.utime(intents, ns=(1, 1))  # a different mtime even on a coarse clock
        return tool_call("Write", file_path="src/app.py", content="x")

    result, prompts = await run(
        project,
        select("INT-001"),
        tool_call("Write", file_path="src/app.py", content="x"),
        widen_the_scope,
        reply("ok"),
    )
    assert refusal(result, 1)["error"] == "SCOPE_VIOLATION"
    assert not result.tool_calls[2].result.is_error
    assert "- src/**" in (prompts[-1] or "")
