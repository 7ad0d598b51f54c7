"""Summarization: requests kept within a token budget, the run's history kept whole."""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import pytest

import hookagent as h
from hookagent._messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from hookagent.capabilities.summarization import (
    BOUNDARY,
    COMPACTIONS,
    SUMMARIZER_USAGE,
    SUMMARY,
    CompactedMessages,
    EstimatedTokens,
    Ledger,
    Summarization,
)
from hookagent.capabilities.summarization._prompt import INSTRUCTION
from hookagent.durable._codec import dump_field, load_field
from hookagent.kernel._view import ListView
from hookagent.models._incremental import SeenPrefix
from hookagent.testing import FunctionModel

# -- helpers --------------------------------------------------------------------------


@h.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


class Fixed:
    """Every message costs `tokens`; remembers how many messages it was asked about."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.calls = 0

    def count(self, message: Message, /) -> int:
        self.calls += 1
        return self.tokens


@dataclass
class Agent:
    """A run that makes `steps` echo calls, then answers; keeps every request it sent."""

    steps: int
    calls_per_step: int = 1
    text: Callable[[int], str] = lambda step: f"note {step}"
    requests: list[list[Message]] = field(default_factory=list[list[Message]])
    settings: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    keep: bool = True

    def __call__(self, request: h.ModelRequest) -> Any:
        if self.keep:
            self.requests.append(list(request.messages))
        done = len(self.requests) if self.keep else request.step - 1
        if done > self.steps:
            return "done"
        calls = [
            {"name": "echo", "args": {"text": self.text(done)}, "id": f"c{done}_{i}"}
            for i in range(self.calls_per_step)
        ]
        return {"tool_calls": calls}


@dataclass
class Summarizer:
    """Answers `summary 1`, `summary 2`…; keeps the prompts and settings it got."""

    prompts: list[str] = field(default_factory=list[str])
    settings: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])

    def __call__(self, request: h.ModelRequest) -> str:
        [message] = request.messages
        self.prompts.append(message.content)
        self.settings.append(dict(request.settings))
        return f"summary {len(self.prompts)}"


def build(agent: Agent, capability: Summarization) -> h.AgentBuilder:
    return (
        h.AgentBuilder()
        .model(FunctionModel(agent))
        .tools(echo)
        .with_(capability)
        .limits(max_steps=None, max_seconds=None)
    )


def small(summarizer: Summarizer, **options: Any) -> Summarization:
    """100 tokens a message: the recent section holds 3, the buffer compacts past 5."""
    return Summarization(
        summarizer=FunctionModel(summarizer, name="summarizer"),
        max_message_tokens=300,
        max_buffer_tokens=500,
        counter=options.pop("counter", Fixed(100)),
        **options,
    )


def pairs_intact(request: Sequence[Message]) -> bool:
    """Every tool result in the request answers a call made earlier in the request."""
    called: set[str] = set()
    for message in request:
        if isinstance(message, AssistantMessage):
            called.update(call.id for call in message.tool_calls)
        elif isinstance(message, ToolResultMessage) and message.call_id not in called:
            return False
    return True


# -- arguments ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"max_message_tokens": 0}, "Summarization(max_message_tokens)"),
        ({"max_buffer_tokens": -5}, "Summarization(max_buffer_tokens)"),
        ({"max_summary_tokens": 1.5}, "Summarization(max_summary_tokens)"),
        ({"max_summary_tokens": True}, "Summarization(max_summary_tokens)"),
        ({"summarizer": "openai:gpt-4.1"}, "Summarization(summarizer)"),
        ({"counter": len}, "Summarization(counter)"),
    ],
)
def test_bad_arguments_are_refused_naming_the_key(options: dict[str, Any], key: str) -> None:
    with pytest.raises(h.ConfigError) as caught:
        Summarization(**options)
    assert caught.value.key == key


def test_defaults_follow_the_original() -> None:
    capability = Summarization()
    assert (
        capability.max_message_tokens,
        capability.max_buffer_tokens,
        capability.max_summary_tokens,
    ) == (4096, 8192, 512)
    assert isinstance(capability.counter, EstimatedTokens)
    assert capability.summarizer is None and list(capability.tools()) == []
    assert [hook.id for hook in capability.hooks()] == [
        "summarization:compact",
        "summarization:forget",
    ]


def test_the_default_counter_is_characters_over_four_plus_an_overhead() -> None:
    count = EstimatedTokens().count
    assert count(UserMessage(content="")) == 4
    assert count(UserMessage(content="abcd")) == 5
    assert count(UserMessage(content="abcde")) == 6  # rounded up
    call = AssistantMessage(tool_calls=(ToolCall(id="1", name="echo", args={"text": "hi"}),))
    assert count(call) == 4 + -(-(len("echo") + len('{"text": "hi"}')) // 4)
    result = ToolResultMessage(call_id="1", name="echo", content="x" * 40)
    assert count(result) == 4 + 11  # 44 characters with the tool's name


# -- below the thresholds -------------------------------------------------------------


async def test_below_the_thresholds_requests_carry_the_whole_history() -> None:
    agent, summarizer = Agent(steps=4), Summarizer()
    capability = Summarization(summarizer=FunctionModel(summarizer))
    result = await build(agent, capability).build().run("go")
    assert result.status == "completed"
    assert summarizer.prompts == []
    messages = list(result.state.messages)
    for request in agent.requests:
        assert request == messages[: len(request)]
    assert not [d for d in result.decisions if d.hook == "summarization:compact"]
    assert SUMMARY.name not in result.state.metadata


# -- compaction -----------------------------------------------------------------------


async def test_the_buffer_is_compacted_once_it_crosses_the_threshold() -> None:
    agent, summarizer = Agent(steps=9), Summarizer()
    seen: dict[str, list[h.CompactEvent]] = {"before": [], "after": []}
    capability = small(summarizer)
    builder = build(agent, capability)
    builder.on(h.BEFORE_COMPACT, seen["before"].append)
    builder.on(h.AFTER_COMPACT, seen["after"].append)
    result = await builder.build().run("the task: fix the parser")
    messages = list(result.state.messages)
    assert result.status == "completed" and len(messages) == 1 + 2 * 9 + 1

    # 100 tokens a message: after t tool steps the history holds 1 + 2t messages; the recent
    # section is the last 4 (moved back onto the call of its leading result), the rest of
    # the unsummarized history is the buffer, compacted when it exceeds 500 tokens: t=5, t=8
    assert len(summarizer.prompts) == 2
    first, second = summarizer.prompts
    assert first.startswith(INSTRUCTION) and "<previous_summary>" not in first
    assert "[user] the task: fix the parser" in first
    assert '[assistant calls echo] {"text": "note 3"}' in first and "note 4" not in first
    assert "<previous_summary>\nsummary 1\n</previous_summary>" in second
    assert "note 4" in second and "note 6" in second and "note 7" not in second
    assert summarizer.settings == [{"max_tokens": 512}] * 2

    for t, request in enumerate(agent.requests):
        if t < 5:
            assert request == messages[: 1 + 2 * t]
            continue
        boundary = 7 if t < 8 else 13
        head, rest = request[0], request[1:]
        assert isinstance(head, UserMessage) and head.synthetic
        assert head.content.endswith(f"<summary>\nsummary {1 if t < 8 else 2}\n</summary>")
        assert rest == messages[boundary : 1 + 2 * t]
        assert pairs_intact(request)
    # the same summary message object while the summary is unchanged
    heads = [request[0] for request in agent.requests[5:]]
    assert heads[0] is heads[1] is heads[2] and heads[3] is heads[4] and heads[2] is not heads[3]

    metadata = result.state.metadata
    assert metadata[SUMMARY.name] == "summary 2" and metadata[BOUNDARY.name] == 13
    assert metadata[COMPACTIONS.name] == 2 and metadata[SUMMARIZER_USAGE.name]["requests"] == 2

    assert [e.trigger for e in seen["before"]] == ["auto", "auto"]
    assert [e.summary for e in seen["after"]] == ["summary 1", "summary 2"]
    compact = [d for d in result.decisions if d.hook == "summarization:compact"]
    assert [d.point for d in compact] == ["before_inference"] * 5
    assert [d.outcome for d in compact] == ["modify"] * 5
    assert [bool(d.votes[0].changes.get("metadata")) for d in compact] == [
        True,
        False,
        False,
        True,
        False,
    ]
    assert capability.active_runs == 0  # dropped at execution_end


async def test_a_before_compact_block_skips_compaction_and_sends_the_buffer() -> None:
    agent, summarizer = Agent(steps=6), Summarizer()
    refusals: list[int] = []

    def refuse_once(event: h.CompactEvent) -> h.HookResult | None:
        refusals.append(len(event.run.messages))
        return h.HookResult.block("not during a review") if len(refusals) == 1 else None

    builder = build(agent, small(summarizer))
    builder.on(h.BEFORE_COMPACT, refuse_once)
    result = await builder.build().run("go")
    messages = list(result.state.messages)
    assert refusals == [11, 13]  # asked again at the next step
    assert agent.requests[5] == messages[:11]  # blocked: everything, no summary
    assert len(summarizer.prompts) == 1 and "note 4" in summarizer.prompts[0]
    assert agent.requests[6][1:] == messages[9:13]
    blocks = [d for d in result.decisions if d.point == "before_compact"]
    assert [(d.outcome, d.reason) for d in blocks] == [("block", "not during a review")]


async def test_a_before_compact_stop_ends_the_run() -> None:
    agent, summarizer = Agent(steps=9), Summarizer()
    builder = build(agent, small(summarizer))
    builder.on(h.BEFORE_COMPACT, lambda event: h.HookResult.stop("context too long"))
    result = await builder.build().run("go")
    assert (result.status, result.stop_reason) == ("stopped", "hook_stop")
    assert "context too long" in (result.stop_message or "")
    assert summarizer.prompts == [] and len(agent.requests) == 5


async def test_instructions_from_before_compact_are_appended_to_the_prompt() -> None:
    agent, summarizer = Agent(steps=6), Summarizer()
    builder = build(agent, small(summarizer))
    builder.on(
        h.BEFORE_COMPACT,
        lambda event: h.HookResult.modify(instructions="Keep every file name."),
    )
    await builder.build().run("go")
    [prompt] = summarizer.prompts
    assert prompt.endswith("</conversation>\n\nAdditional instructions:\nKeep every file name.")


async def test_an_after_compact_stop_ends_the_run_with_the_summary_kept() -> None:
    agent, summarizer = Agent(steps=9), Summarizer()
    builder = build(agent, small(summarizer))
    builder.on(h.AFTER_COMPACT, lambda event: h.HookResult.stop(f"saw {event.summary}"))
    result = await builder.build().run("go")
    assert result.status == "stopped" and "saw summary 1" in (result.stop_message or "")
    assert result.state.metadata[SUMMARY.name] == "summary 1"


async def test_the_agents_model_summarizes_when_no_summarizer_is_given() -> None:
    summarizer, agent = Summarizer(), Agent(steps=6)

    def both(request: h.ModelRequest) -> Any:
        return summarizer(request) if not request.tools else agent(request)

    capability = Summarization(
        max_message_tokens=300, max_buffer_tokens=500, max_summary_tokens=64, counter=Fixed(100)
    )
    builder = h.AgentBuilder().model(FunctionModel(both)).tools(echo).with_(capability)
    result = await builder.build().run("go")
    assert result.status == "completed" and len(summarizer.prompts) == 1
    assert summarizer.settings == [{"max_tokens": 64}]
    assert "under about 64 tokens" in summarizer.prompts[0]


async def test_an_empty_summary_stops_the_run_instead_of_losing_the_buffer() -> None:
    agent = Agent(steps=6)
    capability = Summarization(
        summarizer=FunctionModel(lambda request: "  "),
        max_message_tokens=300,
        max_buffer_tokens=500,
        counter=Fixed(100),
    )
    result = await build(agent, capability).build().run("go")
    assert (result.status, result.stop_reason) == ("stopped", "guard")
    assert "the summarizer returned no text" in (result.stop_message or "")
    assert SUMMARY.name not in result.state.metadata


# -- sections -------------------------------------------------------------------------


async def test_tool_calls_and_their_results_are_never_split() -> None:
    sizes = [5, 400, 40, 900, 120, 2000, 60, 300]
    agent = Agent(steps=40, calls_per_step=3, text=lambda step: "y" * sizes[step % len(sizes)])
    summarizer = Summarizer()
    capability = Summarization(
        summarizer=FunctionModel(summarizer), max_message_tokens=700, max_buffer_tokens=900
    )
    result = await build(agent, capability).build().run("go")
    assert result.status == "completed" and len(summarizer.prompts) >= 5
    compacted = [r for r in agent.requests if isinstance(r[0], UserMessage) and r[0].synthetic]
    assert len(compacted) > 20
    for request in compacted:
        assert not isinstance(request[1], ToolResultMessage)
        assert pairs_intact(request)


def test_the_recent_section_moves_back_onto_the_call_of_its_leading_results() -> None:
    call = AssistantMessage(
        tool_calls=(ToolCall(id="a", name="echo"), ToolCall(id="b", name="echo"))
    )
    history: list[Message] = [
        UserMessage(content="go"),
        call,
        ToolResultMessage(call_id="a", name="echo", content="1"),
        ToolResultMessage(call_id="b", name="echo", content="2"),
    ]
    ledger = Ledger()
    assert ledger.update(history, Fixed(10)) == 4
    assert ledger.recent_start(history, 0, 10) == 1  # not 3: the results' call is at 1
    assert ledger.recent_start(history, 0, 1000) == 0
    assert ledger.recent_start(history, 0, 0) == 1  # at least the last message, and its call
    assert ledger.recent_start(history, 2, 10) == 2  # never before the summary's boundary
    assert ledger.tokens(0, 4) == 40 and ledger.tokens(1, 3) == 20


def test_the_ledger_counts_each_message_once_and_starts_over_on_another_history() -> None:
    counter = Fixed(7)
    ledger = Ledger()
    history: list[Message] = [UserMessage(content=str(i)) for i in range(10)]
    ledger.update(history, counter)
    history.append(UserMessage(content="more"))
    ledger.update(history, counter)
    ledger.update(history, counter)
    assert counter.calls == 11 and ledger.tokens(0, 11) == 77
    other = [UserMessage(content=str(i)) for i in range(3)]
    ledger.update(other, counter)
    assert counter.calls == 14 and ledger.counted == 3


async def test_a_custom_counter_sets_what_fits() -> None:
    class Words:
        def count(self, message: Message, /) -> int:
            return len(message.content.split()) + (
                len(message.tool_calls) if isinstance(message, AssistantMessage) else 0
            )

    agent = Agent(steps=12, text=lambda step: "word " * 30)
    summarizer = Summarizer()
    capability = Summarization(
        summarizer=FunctionModel(summarizer),
        max_message_tokens=70,
        max_buffer_tokens=100,
        counter=Words(),
    )
    result = await build(agent, capability).build().run("go")
    # a call counts 1 word, its result 30: 62 words for two steps fit in the recent section
    assert len(summarizer.prompts) == 2
    final = agent.requests[-1]
    assert isinstance(final[0], UserMessage) and final[0].synthetic
    assert sum(Words().count(m) for m in final[1:]) <= 70 + 100 + 31
    assert result.state.metadata[COMPACTIONS.name] == 2


async def test_drivers_convert_only_new_messages_between_compactions() -> None:
    """A driver's `SeenPrefix` sees each request continue the previous one, except right
    after a compaction (a new summary starts the conversation)."""
    seen, agent, log = SeenPrefix(), Agent(steps=12, keep=False), []
    windows: list[Sequence[Message]] = []

    def driver(request: h.ModelRequest) -> Any:
        fresh, todo = seen.new(request.messages)
        log.append((fresh, len(todo)))
        windows.append(request.messages)
        return agent(request)

    summarizer = Summarizer()
    capability = small(summarizer)
    builder = h.AgentBuilder().model(FunctionModel(driver)).tools(echo).with_(capability)
    result = await builder.limits(max_steps=None).build().run("go")
    assert result.status == "completed" and len(summarizer.prompts) == 3
    # converted afresh only at the compactions (t=5, 8, 11): the summary and 4 messages;
    # every other request continues the previous one by the step's 2 new messages
    assert [step for step, (fresh, _) in enumerate(log) if fresh] == [5, 8, 11]
    assert log[0] == (False, 1) and log[5] == log[8] == log[11] == (True, 5)
    assert all(todo == 2 for step, (_, todo) in enumerate(log) if step not in (0, 5, 8, 11))
    # between compactions the request's conversation is the very same live window
    assert windows[5] is windows[6] is windows[7] and windows[7] is not windows[8]


def test_the_window_reads_like_the_list_it_stands_for_and_stays_live() -> None:
    summary = UserMessage(content="S", synthetic=True)
    history: list[Message] = [UserMessage(content=f"m{i}") for i in range(8)]
    window = CompactedMessages(summary, ListView(history), 5)
    expected = [summary, *history[5:]]
    assert list(window) == expected and len(window) == 4 and window[-1] is history[-1]
    for start in (None, 0, 1, 2, -2, 9):
        for stop in (None, 0, 1, 3, -1, 9):
            for step in (None, 1, 2, -1):
                assert window[start:stop:step] == expected[start:stop:step]
    with pytest.raises(IndexError):
        window[4]
    history.append(UserMessage(content="retry feedback"))
    assert len(window) == 5 and window[-1].content == "retry feedback"
    assert repr(window) == "CompactedMessages(start=5, len=5)"


def test_a_compacted_request_round_trips_through_the_durable_journal() -> None:
    summary = UserMessage(content="<summary>S</summary>", synthetic=True)
    history: list[Message] = [UserMessage(content=f"m{i}") for i in range(6)]
    request = h.ModelRequest(messages=CompactedMessages(summary, ListView(history), 4))
    loaded = load_field("request", dump_field("request", request))
    assert list(loaded.messages) == [summary, *history[4:]]


# -- cost per step --------------------------------------------------------------------


async def test_the_hooks_cost_per_step_stays_flat_over_a_5000_message_history() -> None:
    """2,500 tool steps (5,000+ messages) at the default budgets. Each step's hook call is
    timed; steps that called the summarizer are counted apart. The median cost around 5,000
    messages must stay within 3x of the median around 500 (no absolute times)."""
    agent = Agent(steps=2500, text=lambda step: f"line {step} " + "z" * 80, keep=False)
    summarizer = Summarizer()
    capability = Summarization(summarizer=FunctionModel(summarizer))
    timings: list[tuple[int, float]] = []
    summarizing: list[int] = []

    async def timed_compact(event: h.InferenceEvent) -> h.HookResult | None:
        before = len(summarizer.prompts)
        start = perf_counter()
        result = await capability.compact(event)
        seconds = perf_counter() - start
        size = len(event.run.messages)
        if len(summarizer.prompts) > before:
            summarizing.append(size)
        else:
            timings.append((size, seconds))
        return result

    builder = (
        h.AgentBuilder()
        .model(FunctionModel(agent))
        .tools(echo)
        .limits(max_steps=None, max_seconds=None)
        .on(
            h.BEFORE_INFERENCE,
            timed_compact,
            name="compact",
            source="summarization",
            timeout=None,
            quiet=True,
            priority=-100,
        )
        .on(
            h.EXECUTION_END,
            capability.forget,
            name="forget",
            source="summarization",
            kind="observer",
            quiet=True,
        )
    )
    gc.collect()
    result = await builder.build().run("go")
    assert result.status == "completed" and len(result.state.messages) >= 5000

    def median(lo: int, hi: int) -> float:
        return statistics.median(s for n, s in timings if lo <= n < hi)

    small_cost, large_cost = median(400, 600), median(4800, 5000)
    ratio = large_cost / small_cost
    metadata = result.state.metadata
    print(
        f"\nsummarization hook: {small_cost * 1e6:.1f} us/step at ~500 messages, "
        f"{large_cost * 1e6:.1f} us/step at ~5,000 ({ratio:.2f}x); "
        f"{len(summarizing)} summarizer calls, boundary {metadata[BOUNDARY.name]}"
    )
    assert ratio < 3.0
    assert len(summarizing) == len(summarizer.prompts) == metadata[COMPACTIONS.name] >= 10
    compact = [d for d in result.decisions if d.hook == "summarization:compact"]
    assert compact and {d.point for d in compact} == {"before_inference"}
    assert capability.active_runs == 0
