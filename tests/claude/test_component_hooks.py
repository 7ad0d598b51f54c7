"""Hooks in skill and subagent front matter, live only while their component is.

fixtures/agent-brainswarm/agents/brainswarm-clusterer.md is
kyleyhw/agent-brainswarm@631d05ca9af9412d8f991a099847ec4c7cb436c7:agents/brainswarm-clusterer.md,
unchanged: a subagent whose PreToolUse guard blocks Write unless the `brainswarm` CLI is on
PATH (it is not here).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.skills import Skills
from hookagent.capabilities.subagents import AgentRegistry, Subagents
from hookagent.claude._component_hooks import LOADED_SKILLS_KEY
from hookagent.claude._options import ClaudeHookOptions
from hookagent.testing import ScriptedModel, reply, tool_call

from .hookscripts import script

AGENTS = Path(__file__).parent / "fixtures" / "agent-brainswarm" / "agents"


@h.tool
def Bash(command: str) -> str:
    """Pretend to run a shell command."""
    return f"ran: {command}"


@h.tool
def Read(file_path: str) -> str:
    """Pretend to read a file."""
    return f"read {file_path}"


@h.tool
def Write(file_path: str, content: str) -> str:
    """Pretend to write a file."""
    return f"wrote {file_path}"


def skill(root: Path, name: str, hooks: str, *, description: str = "A test skill.") -> Path:
    folder = root / "skills" / name
    folder.mkdir(parents=True)
    text = f"---\nname: {name}\ndescription: {description}\nhooks:\n{hooks}---\nDo the thing.\n"
    (folder / "SKILL.md").write_text(text)
    return root / "skills"


def guard_hooks(command: str, *, once: bool = False, event: str = "PreToolUse") -> str:
    extra = "          once: true\n" if once else ""
    return (
        f"  {event}:\n    - matcher: Bash\n      hooks:\n        - type: command\n"
        f"          command: {json.dumps(command)}\n{extra}"
    )


def build(tmp_path: Path, model: Any, *capabilities: Any) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(Bash, Read, Write)
    for capability in capabilities:
        builder.with_(capability)
    return builder.build()


def options(tmp_path: Path) -> ClaudeHookOptions:
    return ClaudeHookOptions(project_dir=str(tmp_path))


BLOCK = "import sys; sys.stdin.read(); print('not while this skill is loaded', file=sys.stderr); sys.exit(2)"  # noqa: E501


# -- skills -------------------------------------------------------------------------------
async def test_a_skills_hooks_are_live_only_once_the_skill_is_loaded(tmp_path: Path) -> None:
    blocker = script(tmp_path, "block", BLOCK.replace("; ", "\n"))
    dirs = skill(tmp_path, "careful", guard_hooks(blocker))
    model = ScriptedModel(
        [
            tool_call("Bash", command="ls"),
            tool_call("Skill", name="careful"),
            tool_call("Bash", command="ls"),
            reply("done"),
        ]
    )
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    result = await agent.run("work")
    model.assert_consumed()
    before, loaded, after = result.tool_calls
    assert before.result.content == "ran: ls"
    assert not loaded.result.is_error
    assert after.blocked and "not while this skill is loaded" in after.result.content
    assert result.state.metadata[LOADED_SKILLS_KEY] == ["careful"]


async def test_a_run_that_never_loaded_the_skill_does_not_run_its_hooks(tmp_path: Path) -> None:
    blocker = script(tmp_path, "block", BLOCK.replace("; ", "\n"))
    dirs = skill(tmp_path, "careful", guard_hooks(blocker))
    model = ScriptedModel(
        [
            tool_call("Skill", name="careful"),
            reply("loaded"),
            tool_call("Bash", command="ls"),
            reply("done"),
        ]
    )
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    await agent.run("load it")
    second = await agent.run("now run ls")  # no store: a run is a session of its own
    assert second.tool_calls[0].result.content == "ran: ls"
    model.assert_consumed()


async def test_a_once_hook_runs_once_per_session_after_a_success(tmp_path: Path) -> None:
    log = tmp_path / "ran.log"
    counter = script(tmp_path, "count", f"sys.stdin.read()\nopen({str(log)!r}, 'a').write('x')")
    dirs = skill(tmp_path, "hello", guard_hooks(counter, once=True))
    model = ScriptedModel(
        [
            tool_call("Skill", name="hello"),
            tool_call("Bash", command="echo 1"),
            tool_call("Bash", command="echo 2"),
            reply("done"),
        ]
    )
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    await agent.run("greet")
    model.assert_consumed()
    assert log.read_text() == "x"


async def test_a_once_hook_that_blocks_stays_until_it_succeeds(tmp_path: Path) -> None:
    marker = tmp_path / "blocked-once"
    body = f"""
    sys.stdin.read()
    if not os.path.exists({str(marker)!r}):
        open({str(marker)!r}, "w").close()
        print("first call refused", file=sys.stderr)
        sys.exit(2)
    with open({str(marker)!r}, "a") as out:
        out.write("ok")
    """
    dirs = skill(tmp_path, "gate", guard_hooks(script(tmp_path, "gate", body), once=True))
    model = ScriptedModel(
        [
            tool_call("Skill", name="gate"),
            tool_call("Bash", command="a"),
            tool_call("Bash", command="b"),
            tool_call("Bash", command="c"),
            reply("done"),
        ]
    )
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    result = await agent.run("go")
    _, refused, passed, free = result.tool_calls
    assert refused.blocked and not passed.blocked and not free.blocked
    assert marker.read_text() == "ok"  # ran for a and b, not for c


def test_a_bad_handler_in_front_matter_names_file_key_and_line(tmp_path: Path) -> None:
    bad = "  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n"
    dirs = skill(tmp_path, "broken", bad)
    with pytest.raises(h.ConfigError) as caught:
        Skills(dirs)
    error = caught.value
    assert error.file == str(dirs / "broken" / "SKILL.md")
    assert error.key == "hooks.PreToolUse[0].hooks[0].command"
    assert "front matter line 8" in str(error) and '"command"' in str(error)


def test_a_front_matter_hook_on_an_unknown_event_is_refused(tmp_path: Path) -> None:
    dirs = skill(tmp_path, "typo", guard_hooks("true", event="PreToolUSE"))
    with pytest.raises(h.ConfigError) as caught:
        Skills(dirs)
    assert caught.value.key == "hooks.PreToolUSE"
    assert 'did you mean "PreToolUse"' in str(caught.value)
    assert "front matter line 6" in str(caught.value)  # its first entry


def test_skills_without_hooks_do_not_load_the_claude_layer(tmp_path: Path) -> None:
    (tmp_path / "skills" / "plain").mkdir(parents=True)
    (tmp_path / "skills" / "plain" / "SKILL.md").write_text(
        "---\nname: plain\ndescription: Nothing to hook.\n---\nBody.\n"
    )
    skills = Skills(tmp_path / "skills")
    assert [hook.name for hook in skills.hooks()] == ["list_in_prompt"]


# -- subagents ----------------------------------------------------------------------------
def clusterer(tmp_path: Path) -> Subagents:
    return Subagents(AgentRegistry.from_dirs(AGENTS), hook_options=options(tmp_path))


async def test_a_subagents_guard_runs_while_it_runs_and_not_in_its_parent(
    tmp_path: Path,
) -> None:
    model = ScriptedModel(
        [
            tool_call(
                "Agent",
                description="cluster",
                prompt="cluster the ideas",
                subagent_type="brainswarm-clusterer",
            ),
            tool_call("Write", file_path="out.json", content="{}"),  # in the subagent
            reply("done d1"),  # the subagent's answer
            tool_call("Write", file_path="report.md", content="# ok"),  # in the parent
            reply("finished"),
        ]
    )
    subagents = clusterer(tmp_path)
    agent = build(tmp_path, model, subagents)
    result = await agent.run("run brainswarm")
    model.assert_consumed()
    assert [c.name for c in result.tool_calls] == ["Agent", "Write"]
    assert result.tool_calls[1].result.content == "wrote report.md"
    [child] = subagents.states
    [write] = [c for s in child.steps for c in s.executions if c.name == "Write"]
    assert write.blocked and "brainswarm CLI not on PATH" in write.result.content


def stop_agent(folder: Path, command: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = f"""\
    ---
    name: checker
    description: Checks things.
    hooks:
      Stop:
        - hooks:
            - type: command
              command: {json.dumps(command)}
    ---
    You check things.
    """
    (folder / "checker.md").write_text(textwrap.dedent(text))
    return folder


async def test_a_subagents_stop_hook_is_subagent_stop_and_keeps_it_going(tmp_path: Path) -> None:
    log = tmp_path / "events.log"
    body = f"""
    payload = json.loads(sys.stdin.read())
    with open({str(log)!r}, "a") as out:
        out.write(payload["hook_event_name"] + " " + str(payload.get("agent_type")) + "\\n")
    if not payload["stop_hook_active"]:
        print("check the edge cases too", file=sys.stderr)
        sys.exit(2)
    """
    folder = stop_agent(tmp_path / "agents", script(tmp_path, "stop", body))
    model = ScriptedModel(
        [
            tool_call("Agent", description="c", prompt="check", subagent_type="checker"),
            reply("checked"),  # the subagent would stop: its Stop hook keeps it going
            reply("checked the edge cases too"),
            reply("all good"),  # the parent stops: the subagent's hook is not live
        ]
    )
    agent = build(
        tmp_path, model, Subagents(AgentRegistry.from_dirs(folder), hook_options=options(tmp_path))
    )
    result = await agent.run("check")
    model.assert_consumed()
    assert result.output == "all good"
    assert "edge cases too" in result.tool_calls[0].result.content
    assert log.read_text().splitlines() == ["SubagentStop checker", "SubagentStop checker"]


def test_once_in_agent_front_matter_is_ignored_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "a.md").write_text(
        "---\nname: a\ndescription: An agent.\nhooks:\n"
        + guard_hooks("true", once=True)
        + "---\nBody.\n"
    )
    subagents = Subagents(AgentRegistry.from_dirs(folder))
    assert any("hooks.PreToolUse[0].hooks[0].once" in w for w in subagents.warnings)


async def test_settings_and_skill_hooks_of_one_run_share_its_transcript(tmp_path: Path) -> None:
    record = script(tmp_path, "record", "sys.stdin.read()")
    dirs = skill(tmp_path, "careful", guard_hooks(record))
    settings = tmp_path / "settings.json"
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": record}]}]}})
    )
    model = ScriptedModel(
        [tool_call("Skill", name="careful"), tool_call("Bash", command="ls"), reply("done")]
    )
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(Bash)
        .with_settings(settings, project_dir=tmp_path, options=options(tmp_path))
        .with_(Skills(dirs, hook_options=options(tmp_path)))
        .build()
    )
    result = await agent.run("work")
    model.assert_consumed()
    [transcript] = (tmp_path / ".hookagent" / "transcripts").glob("*.jsonl")
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert len({line["uuid"] for line in lines}) == len(lines)  # no message written twice
    assert [line["type"] for line in lines].count("assistant") == 3
    assert result.status == "completed"


async def test_a_skills_async_rewake_stop_hook_wakes_the_model(tmp_path: Path) -> None:
    body = """
    if not json.loads(sys.stdin.read())["stop_hook_active"]:
        print("the skill's checklist is not done", file=sys.stderr)
        sys.exit(2)
    """
    hooks = (
        "  Stop:\n    - hooks:\n        - type: command\n"
        f"          command: {json.dumps(script(tmp_path, 'check', body))}\n"
        "          asyncRewake: true\n"
    )
    dirs = skill(tmp_path, "checklist", hooks)
    model = ScriptedModel(
        [tool_call("Skill", name="checklist"), reply("done"), reply("checklist done")]
    )
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    result = await agent.run("work")
    model.assert_consumed()
    assert result.output == "checklist done"
    assert "the skill's checklist is not done" in (model.calls[2].last_message or "")


async def test_a_resumed_run_keeps_the_skills_it_had_loaded(tmp_path: Path) -> None:
    from hookagent.durable._answers import answer_json
    from hookagent.store import MemoryStore

    blocker = script(tmp_path, "block", BLOCK.replace("; ", "\n"))
    dirs = skill(tmp_path, "careful", guard_hooks(blocker))
    store = MemoryStore()
    model = ScriptedModel(
        [
            tool_call("Skill", name="careful"),
            tool_call("Read", file_path="secrets.txt"),  # asks: the run pauses here
            tool_call("Bash", command="ls"),
            reply("done"),
        ]
    )

    def ask_first(event: h.ToolCallEvent) -> h.HookResult | None:
        return h.HookResult.ask("Read it?") if event.tool_name == "Read" else None

    def build_agent() -> h.Agent:  # a new agent, as another process would build it
        return (
            h.AgentBuilder()
            .model(model)
            .tools(Bash, Read)
            .store(store)
            .on(h.BEFORE_TOOL, ask_first, name="ask_first")
            .with_(Skills(dirs, hook_options=options(tmp_path)))
            .build()
        )

    first = await build_agent().run("work")
    assert first.status == "waiting"
    [question] = await store.questions(first.run_id)
    await store.answer(question.id, answer_json(True), 0.0)
    second = await build_agent().resume(first.run_id)
    model.assert_consumed()
    bash = second.tool_calls[-1]
    assert bash.blocked and "not while this skill is loaded" in bash.result.content


async def test_a_subagents_prompt_hook_is_judged_by_the_agents_own_model(tmp_path: Path) -> None:
    from hookagent.models._base import ModelRequest
    from hookagent.testing import FunctionModel

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes.\nhooks:\n  PreToolUse:\n    - matcher: Write\n"
        "      hooks:\n        - type: prompt\n          prompt: Refuse writes. $ARGUMENTS\n"
        "          continueOnBlock: true\n---\nYou write files.\n"
    )

    def answer(request: ModelRequest) -> Any:
        texts = " ".join(str(m.content) for m in request.messages)
        if request.output is not None and request.output.name == "hook_verdict":
            return json.dumps({"ok": False, "reason": "writes are off"})
        if request.system_prompt and "You write files" in request.system_prompt:
            done = "writes are off" in texts
            return reply("gave up") if done else tool_call("Write", file_path="a", content="b")
        if "[Subagent: writer]" in texts:
            return reply("finished")
        return tool_call("Agent", description="w", prompt="write a", subagent_type="writer")

    subagents = Subagents(AgentRegistry.from_dirs(folder), hook_options=options(tmp_path))
    agent = build(tmp_path, FunctionModel(answer), subagents)
    result = await agent.run("write")
    assert result.output == "finished"
    [child] = subagents.states
    [write] = [c for s in child.steps for c in s.executions]
    assert write.blocked and "writes are off" in write.result.content


async def test_a_skill_the_user_invoked_is_live_from_the_runs_start(tmp_path: Path) -> None:
    blocker = script(tmp_path, "block", BLOCK.replace("; ", "\n"))
    dirs = skill(tmp_path, "careful", guard_hooks(blocker))
    model = ScriptedModel([tool_call("Bash", command="ls"), reply("done")])
    agent = build(tmp_path, model, Skills(dirs, hook_options=options(tmp_path)))
    result = await agent.run("/careful ls", metadata={LOADED_SKILLS_KEY: ["careful"]})
    model.assert_consumed()
    assert result.tool_calls[0].blocked
