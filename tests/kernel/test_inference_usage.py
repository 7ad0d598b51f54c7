"""Every model call a run makes is counted, including replies an after_inference hook sent
back for another try (the provider billed them)."""

from __future__ import annotations

import hookagent as h
from hookagent.testing import ScriptedModel, reply


def usage(tokens: int) -> h.Usage:
    return h.Usage(input_tokens=tokens, output_tokens=1, requests=1)


async def test_a_retried_reply_counts_in_the_step_and_the_run() -> None:
    model = ScriptedModel([reply("draft", usage=usage(10)), reply("final", usage=usage(20))])

    def once(event: h.InferenceResultEvent) -> h.HookResult | None:
        return h.HookResult.retry("rough", feedback="again") if event.attempt == 1 else None

    result = await h.AgentBuilder().model(model).on(h.AFTER_INFERENCE, once).build().run("go")
    assert result.output == "final"
    assert result.usage == h.Usage(input_tokens=30, output_tokens=2, requests=2)
    assert result.steps[0].usage == result.usage


async def test_replies_before_a_stop_still_count() -> None:
    model = ScriptedModel([reply("a", usage=usage(5)), reply("b", usage=usage(7))])

    def judge(event: h.InferenceResultEvent) -> h.HookResult:
        if event.attempt == 1:
            return h.HookResult.retry("no")
        return h.HookResult.stop("enough")

    result = await h.AgentBuilder().model(model).on(h.AFTER_INFERENCE, judge).build().run("go")
    assert result.status == "stopped"
    assert result.usage == h.Usage(input_tokens=12, output_tokens=2, requests=2)
