"""SelfCritique: a critic judges each final answer; a rejection requests another model turn
(REFERENCE lesson §8.6: the original only *allowed* one, and never revised)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import hookagent as h
from hookagent.capabilities.critique import SELF_CRITIC, SYSTEM_PROMPT, SelfCritique
from hookagent.capabilities.critique._critic import clip, parse_verdict
from hookagent.capabilities.planning import TASKS, TaskPlanning
from hookagent.testing import FunctionModel, ScriptedModel, reply, tool_call, turn

TASK = "How many lines does data.txt have?"


def verdict(approved: bool, summary: str = "", **lists: list[str]) -> str:
    return json.dumps({"approved": approved, "summary": summary or "ok", **lists})


APPROVE = verdict(True, "The count matches the evidence.")


def reject(summary: str = "The count is not supported.") -> str:
    return verdict(
        False,
        summary,
        weaknesses=["claims 3 lines without reading the file"],
        suggestions=["read data.txt and count"],
    )


@h.tool
def read(path: str) -> str:
    """Read a file."""
    return "one\ntwo\nthree"


@h.tool
def big() -> str:
    """Return a large text."""
    return "HEAD-" + "x" * 20_000 + "-TAIL"


def agent_of(model: h.Model, cap: SelfCritique, **limits: Any) -> h.Agent:
    builder = h.AgentBuilder().model(model).tools(read, big).with_(cap)
    if limits:
        builder.limits(**limits)
    return builder.build()


async def run(
    turns: list[Any], verdicts: list[Any], cap: SelfCritique | None = None, **limits: Any
) -> tuple[h.RunResult, ScriptedModel, ScriptedModel]:
    model, critic = ScriptedModel(turns), ScriptedModel(verdicts)
    result = await agent_of(model, cap or SelfCritique(critic=critic), **limits).run(TASK)
    model.assert_consumed()
    critic.assert_consumed()
    return result, model, critic


def outcomes(result: h.RunResult, hook: str) -> list[str]:
    return [d.outcome for d in result.decisions.by(hook)]


def votes(result: h.RunResult, hook: str) -> list[tuple[int, str]]:
    """Every vote `hook` cast, as (step, decision), whether or not it decided its fold."""
    return [(d.step, v.decision) for d in result.decisions for v in d.votes if v.hook == hook]


def critic_prompts(critic: ScriptedModel) -> list[str]:
    return [call.last_message or "" for call in critic.calls]


# -- the verdict's effect ------------------------------------------------------------------


async def test_an_approved_answer_ends_the_run_after_one_critic_call() -> None:
    result, model, critic = await run([reply("3 lines.")], [APPROVE])
    assert (result.status, result.output) == ("completed", "3 lines.")
    assert result.stop_reason == "completed"
    assert len(model.calls) == 1 and len(critic.calls) == 1
    record = result.state.metadata[SELF_CRITIC.name]
    assert record["approved"] is True and record["iteration"] == 1 and record["step"] == 1
    assert record["error"] is None and record["calls"] == 1
    assert outcomes(result, "selfcritique:critic") == ["modify"]
    assert votes(result, "selfcritique:revise") == []


async def test_a_rejected_answer_is_revised_and_the_revision_is_the_output() -> None:
    result, model, critic = await run(
        [reply("3 lines."), tool_call("read", path="data.txt"), reply("data.txt has 3 lines.")],
        [reject("The count is not supported."), APPROVE],
    )
    assert (result.status, result.stop_reason) == ("completed", "completed")
    assert result.output == "data.txt has 3 lines."
    correction = model.calls[1].last_message or ""
    assert correction == (
        "[CORRECTION REQUIRED - Iteration 1] Problem: The count is not supported.\n"
        "Issues:\n- claims 3 lines without reading the file\n"
        "Suggestions:\n- read data.txt and count\n"
        "Action: revise your answer. Address each issue, use your tools if you need more "
        "evidence, and reply with the complete corrected answer."
    )
    assert [m.role for m in result.state.messages[:3]] == ["user", "assistant", "user"]
    assert result.state.messages[2].synthetic  # type: ignore[union-attr]
    # one continue, on step 1; the tool step and the approved answer cast no vote
    assert votes(result, "selfcritique:revise") == [(1, "continue")]
    [revise] = result.decisions.by("selfcritique:revise")
    assert (revise.point, revise.step, revise.outcome) == ("should_continue", 1, "continue")
    assert revise.message == correction
    assert votes(result, "selfcritique:critic") == [(1, "modify"), (3, "modify")]
    # the second critique sees the revision and the evidence gathered for it
    second = critic_prompts(critic)[1]
    assert "### 1. read" in second and '"path": "data.txt"' in second
    assert "one\ntwo\nthree" in second and "data.txt has 3 lines." in second
    record = result.state.metadata[SELF_CRITIC.name]
    assert (record["iteration"], record["step"], record["approved"]) == (2, 3, True)


@pytest.mark.parametrize("max_iterations", [1, 2, 3])
async def test_rejecting_every_answer_stops_with_retry_limit(max_iterations: int) -> None:
    answers = [reply(f"answer {n}") for n in range(1, max_iterations + 1)]
    verdicts = [reject(f"wrong {n}") for n in range(1, max_iterations + 1)]
    cap = SelfCritique(max_iterations, critic=ScriptedModel(verdicts))
    model = ScriptedModel(answers)
    result = await agent_of(model, cap).run(TASK)
    model.assert_consumed()
    assert cap.critic is not None and isinstance(cap.critic, ScriptedModel)
    assert len(cap.critic.calls) == max_iterations
    assert (result.status, result.stop_reason) == ("stopped", "retry_limit")
    assert f"last verdict: wrong {max_iterations}" in (result.stop_message or "")
    assert "selfcritique:revise" in (result.stop_message or "")
    assert outcomes(result, "selfcritique:revise") == ["continue"] * (max_iterations - 1) + ["stop"]
    assert result.output == f"answer {max_iterations}"  # the last answer, not approved


async def test_a_revision_happens_without_the_stop_hooks_being_asked() -> None:
    stops: list[int] = []
    model, critic = ScriptedModel(["first", "second"]), ScriptedModel([reject(), APPROVE])
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(SelfCritique(critic=critic))
        .on(h.STOP, lambda e: stops.append(e.step))
        .build()
    )
    result = await agent.run(TASK)
    assert result.output == "second" and stops == [2]


async def test_limits_still_win_over_a_revision() -> None:
    result, _, _ = await run([reply("3 lines.")], [reject()], max_steps=1)
    assert (result.status, result.stop_reason) == ("stopped", "steps_limit")
    assert len(result.steps) == 1  # the revision asked for never runs


# -- critic failures -------------------------------------------------------------------------


def raising(request: h.ModelRequest) -> str:
    raise RuntimeError("critic is down")


async def test_a_critic_that_raises_approves_by_default() -> None:
    critic = FunctionModel(raising)
    result, _, _ = await run([reply("3 lines.")], [], SelfCritique(critic=critic))
    assert (result.status, result.output) == ("completed", "3 lines.")
    record = result.state.metadata[SELF_CRITIC.name]
    assert record["approved"] is True
    assert record["error"] == "RuntimeError: critic is down"
    assert critic.calls == 1  # an exception is not retried
    assert votes(result, "selfcritique:revise") == []


async def test_a_critic_that_raises_requests_a_revision_with_reject() -> None:
    critic = FunctionModel(raising)
    result, model, _ = await run(
        [reply("3 lines."), reply("3 lines, checked.")],
        [],
        SelfCritique(critic=critic, on_critic_failure="reject"),
    )
    assert (result.status, result.stop_reason) == ("stopped", "retry_limit")
    correction = model.calls[1].last_message or ""
    assert correction.startswith("[CORRECTION REQUIRED - Iteration 1] Problem: ")
    assert "critic is down" in correction
    assert outcomes(result, "selfcritique:revise") == ["continue", "stop"]
    assert result.state.metadata[SELF_CRITIC.name]["error"] == "RuntimeError: critic is down"


async def test_a_garbage_verdict_is_retried_once_then_approved() -> None:
    result, _, critic = await run([reply("3 lines.")], ["looks fine to me!", "{not json"])
    assert (result.status, result.output) == ("completed", "3 lines.")
    retry = critic_prompts(critic)[1]
    assert retry.startswith("Your reply could not be read as a verdict:")
    assert '"approved": bool' in retry
    record = result.state.metadata[SELF_CRITIC.name]
    assert record["approved"] is True and record["calls"] == 2
    assert "after 1 retry" in (record["error"] or "")


async def test_a_garbage_verdict_twice_requests_a_revision_with_reject() -> None:
    critic = ScriptedModel(["nope", '{"approved": "maybe"}', APPROVE])
    cap = SelfCritique(critic=critic, on_critic_failure="reject")
    model = ScriptedModel(["3 lines.", "3 lines (checked)."])
    result = await agent_of(model, cap).run(TASK)
    assert (result.status, result.output) == ("completed", "3 lines (checked).")
    assert outcomes(result, "selfcritique:revise") == ["continue"]


async def test_a_bad_verdict_then_a_good_one_is_accepted() -> None:
    bad = json.dumps({"approved": False})  # no summary
    result, _, critic = await run([reply("3"), reply("3 lines")], [bad, reject("vague"), APPROVE])
    assert "summary" in critic_prompts(critic)[1]
    assert result.output == "3 lines"
    record = result.state.metadata[SELF_CRITIC.name]
    assert record["iteration"] == 2 and record["error"] is None


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"approved": true, "summary": "fine"}\n```',
        '```\n{"approved": true, "summary": "fine", "strengths": ["clear"]}\n```',
        'Verdict: {"approved": true, "summary": "fine"}',
        '  {"approved": true, "summary": "fine", "weaknesses": [], "suggestions": []}  ',
    ],
)
def test_verdicts_in_a_fence_or_after_a_sentence_are_read(text: str) -> None:
    verdict = parse_verdict(text)
    assert verdict.approved is True and verdict.summary == "fine"


@pytest.mark.parametrize(
    "text", ["", "approved", '{"approved": true}', '{"summary": "x"}', "[1, 2]"]
)
def test_malformed_verdicts_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_verdict(text)


# -- what the critic is shown ------------------------------------------------------------


async def test_the_critic_gets_the_task_the_evidence_and_the_answer() -> None:
    seen: list[h.ModelRequest] = []

    def critic(request: h.ModelRequest) -> str:
        seen.append(request)
        return APPROVE

    turns = [turn("Let me look.", {"name": "read", "args": {"path": "data.txt"}}), reply("3.")]
    result, _, _ = await run(turns, [], SelfCritique(critic=FunctionModel(critic)))
    assert result.output == "3."
    [request] = seen  # the step with a tool call (and text) was not critiqued
    assert request.system_prompt == SYSTEM_PROMPT and request.tools == ()
    [message] = request.messages
    assert message.role == "user"
    prompt = message.content
    assert prompt.index("## Original task\n" + TASK) < prompt.index("## Evidence")
    assert '### 1. read\nArguments: {"path": "data.txt"}\nResult:\none\ntwo\nthree' in prompt
    assert prompt.index("## Evidence") < prompt.index("## Proposed response\n3.")
    assert "Let me look." not in prompt


async def test_a_run_without_tool_calls_says_so() -> None:
    _, _, critic = await run([reply("3")], [APPROVE])
    assert "## Evidence\n(no tool calls were made)" in critic_prompts(critic)[0]


async def test_long_evidence_is_cut_keeping_head_and_tail() -> None:
    cap = SelfCritique(critic=ScriptedModel([APPROVE]), evidence_chars=100)
    model = ScriptedModel([tool_call("big"), reply("It is big.")])
    result = await agent_of(model, cap).run(TASK)
    assert result.status == "completed"
    assert cap.critic is not None and isinstance(cap.critic, ScriptedModel)
    prompt = cap.critic.calls[0].last_message or ""
    evidence = prompt.split("Result:\n")[1].split("\n\n## Proposed")[0]
    head, marker, tail = evidence.split("\n")
    assert head == "HEAD-" + "x" * 45 and tail == "x" * 45 + "-TAIL"
    assert marker == "[... 19910 characters elided ...]"
    assert "x" * 200 not in prompt


def test_clip_keeps_short_text_and_splits_the_limit_between_head_and_tail() -> None:
    assert clip("short", 5) == "short"
    assert clip("abcdefghij", 5) == "abc\n[... 5 characters elided ...]\nij"
    assert clip("abcdefghij", 1) == "a\n[... 9 characters elided ...]\n"


async def test_tool_errors_and_blocked_calls_are_marked_in_the_evidence() -> None:
    model = ScriptedModel([tool_call("read"), tool_call("big"), reply("done")])
    critic = ScriptedModel([APPROVE])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(read, big)
        .with_(SelfCritique(critic=critic))
        .on(h.BEFORE_TOOL, lambda e: h.HookResult.block("no big"), match="big")
        .build()
    )
    await agent.run(TASK)
    prompt = critic.calls[0].last_message or ""
    assert "### 1. read\nArguments: {}\nResult (error):" in prompt
    assert "### 2. big\nArguments: {}\nResult (blocked):" in prompt


# -- scope ----------------------------------------------------------------------------------


async def test_answers_with_tool_calls_and_empty_answers_are_not_critiqued() -> None:
    critic = ScriptedModel([])
    result, _, _ = await run(
        [turn("I think 3, let me check.", {"name": "read", "args": {"path": "d"}}), reply("  ")],
        [],
        SelfCritique(critic=critic),
    )
    assert result.status == "completed" and critic.calls == []
    assert SELF_CRITIC.name not in result.state.metadata
    assert result.decisions.by("selfcritique:critic") == []


async def test_no_critique_is_left_after_the_last_iteration() -> None:
    stop_once = {"done": False}

    def refuse_once(event: h.StopEvent) -> h.HookResult | None:
        if stop_once["done"]:
            return None
        stop_once["done"] = True
        return h.HookResult.block("also mention the file name")

    model = ScriptedModel(["3 lines.", "data.txt: 3 lines."])
    critic = ScriptedModel([APPROVE])
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(SelfCritique(1, critic=critic))
        .on(h.STOP, refuse_once)
        .build()
    )
    result = await agent.run(TASK)
    assert (result.status, result.output) == ("completed", "data.txt: 3 lines.")
    assert len(critic.calls) == 1  # the answer after the stop hook's block is not judged


async def test_without_a_critic_the_agents_own_model_judges() -> None:
    model = ScriptedModel(["3 lines.", reject(), "data.txt has 3 lines.", APPROVE])
    cap = SelfCritique()
    result = await agent_of(model, cap).run(TASK)
    model.assert_consumed()
    assert cap.critic is model
    assert result.output == "data.txt has 3 lines."
    assert model.calls[1].last_message is not None
    assert model.calls[1].last_message.startswith("## Original task")
    assert result.state.metadata[SELF_CRITIC.name]["critic"] == model.name


async def test_an_explicit_critic_is_not_replaced_by_the_agents_model() -> None:
    critic = ScriptedModel([APPROVE])
    cap = SelfCritique(critic=critic)
    agent_of(ScriptedModel([]), cap)
    assert cap.critic is critic


async def test_composes_with_another_capability() -> None:
    todos = [{"content": "Count", "status": "in_progress", "activeForm": "Counting"}]
    model = ScriptedModel(
        [
            tool_call("TodoWrite", todos=todos),
            reply("3 lines."),
            tool_call("read", path="data.txt"),
            reply("data.txt has 3 lines."),
        ]
    )
    critic = ScriptedModel([reject(), APPROVE])
    agent = (
        h.AgentBuilder()
        .model(model)
        .tools(read)
        .with_(TaskPlanning(nudge=False))
        .with_(SelfCritique(critic=critic))
        .build()
    )
    result = await agent.run(TASK)
    model.assert_consumed()
    assert (result.status, result.output) == ("completed", "data.txt has 3 lines.")
    assert result.state.metadata[TASKS.name] == todos
    assert votes(result, "selfcritique:revise") == [(2, "continue")]
    assert [d.hook for d in result.decisions.at(h.AFTER_TOOL) if d.outcome == "modify"] == [
        "planning:record_tasks"
    ]
    assert "### 1. TodoWrite" in (critic.calls[0].last_message or "")
    assert "### 2. read" in (critic.calls[1].last_message or "")


async def test_composes_with_structured_output() -> None:
    model = ScriptedModel(['{"lines": 2}', '{"lines": 3}'])
    critic = ScriptedModel([reject("two is wrong"), APPROVE])
    agent = (
        h.AgentBuilder()
        .model(model)
        .with_(SelfCritique(critic=critic))
        .output_type(dict[str, int], mode="native")
        .build()
    )
    result = await agent.run(TASK)
    assert (result.status, result.parsed) == ("completed", {"lines": 3})


# -- records and settings ------------------------------------------------------------------


async def test_decisions_name_the_capability_and_its_hooks() -> None:
    result, _, _ = await run([reply("a"), reply("b")], [reject(), APPROVE])
    hooks = {d.hook for d in result.decisions if d.hook and d.hook.startswith("selfcritique")}
    assert hooks == {"selfcritique:critic", "selfcritique:revise"}
    first = result.decisions.by("selfcritique:critic")[0]
    assert first.point == "after_step"
    [vote] = first.votes
    after = vote.changes["metadata"][SELF_CRITIC.name]["after"]
    assert after["approved"] is False and after["summary"] == "The count is not supported."
    assert [hook.id for hook in SelfCritique().hooks()] == [
        "selfcritique:critic",
        "selfcritique:revise",
    ]
    assert list(SelfCritique().tools()) == []


async def test_a_critique_with_no_critic_and_no_builder_stops_the_run() -> None:
    model = ScriptedModel(["3"])
    builder = h.AgentBuilder().model(model)
    for hook in SelfCritique().hooks():  # hooks without with_: nothing binds the model
        builder.hook(hook)
    result = await builder.build().run(TASK)
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    assert "no critic model" in (result.stop_message or "")


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"max_iterations": 0}, "SelfCritique(max_iterations)"),
        ({"max_iterations": 1.5}, "SelfCritique(max_iterations)"),
        ({"max_iterations": True}, "SelfCritique(max_iterations)"),
        ({"evidence_chars": 0}, "SelfCritique(evidence_chars)"),
        ({"evidence_chars": "6000"}, "SelfCritique(evidence_chars)"),
        ({"on_critic_failure": "retry"}, "SelfCritique(on_critic_failure)"),
        ({"critic": "openai:gpt-4.1"}, "SelfCritique(critic)"),
    ],
)
def test_bad_settings_are_config_errors_naming_the_key(kwargs: dict[str, Any], key: str) -> None:
    with pytest.raises(h.ConfigError) as caught:
        SelfCritique(**kwargs)
    assert caught.value.key == key
