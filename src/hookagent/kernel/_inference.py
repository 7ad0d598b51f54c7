"""Inference: before_inference → model → after_inference, with retries hooks ask for."""

from __future__ import annotations

from dataclasses import replace
from typing import final

from hookagent._messages import UserMessage
from hookagent._usage import Usage
from hookagent.hooks._events import InferenceEvent, InferenceResultEvent
from hookagent.hooks._points import AFTER_INFERENCE, BEFORE_INFERENCE
from hookagent.kernel._context import RunContext
from hookagent.kernel._failures import HandlesErrors
from hookagent.models._base import ModelResponse, StreamingModel, model_request
from hookagent.models._received import received, safe_deltas

__all__ = ["Inference"]


@final
class Inference(HandlesErrors):
    __slots__ = ()

    async def infer(  # noqa: C901, PLR0912  # one frame: the model is called every step
        self, ctx: RunContext
    ) -> tuple[ModelResponse | None, tuple[str, ...]]:
        """The step's response (None if the run ended or the error was ignored), and the
        context texts after_inference hooks attached to it."""
        state = ctx.state
        state.position.phase = "inference"
        request = model_request(
            ctx.view.messages, ctx.tool_specs, ctx.system_prompt, ctx.settings, state.position.step
        )
        cached: ModelResponse | None = None
        if ctx.hooks.wants(BEFORE_INFERENCE):
            _, event = await ctx.consult(
                BEFORE_INFERENCE,
                InferenceEvent(run=ctx.view, step=state.position.step, request=request),
            )
            if ctx.ended:
                return None, ()
            request, cached = event.request, event.response
        attempt = 1
        spent: Usage | None = None
        """Usage of replies after_inference hooks sent back: billed, so counted."""
        while True:
            response, cached = cached, None  # a response from a hook answers the first attempt
            failures = 0
            while response is None:  # the model call, made in this frame: it runs every step
                try:
                    model, on_delta = ctx.model, ctx.on_delta
                    if on_delta is not None and isinstance(model, StreamingModel):
                        response = received(await model.stream(request, safe_deltas(on_delta)))
                    else:
                        response = received(await model.request(request))
                except Exception as exc:  # the error policy may retry
                    failures += 1
                    action = await self._errors.handle(ctx, exc, where="model", attempt=failures)
                    if action != "retry":
                        break
            if response is None:
                if spent is not None:
                    state.usage = state.usage + spent
                return None, ()
            if not ctx.hooks.wants(AFTER_INFERENCE):
                return response if spent is None else _with_spent(response, spent), ()
            after, checked = await ctx.hooks.fire(
                AFTER_INFERENCE,
                InferenceResultEvent(
                    run=ctx.view,
                    step=state.position.step,
                    request=request,
                    response=response,
                    attempt=attempt,
                ),
            )
            if after.outcome == "stop":
                state.usage = state.usage + response.usage + (spent or Usage())
                state.stop_by(after)
                return None, ()
            if after.outcome != "retry":
                reply = checked.response
                return reply if spent is None else _with_spent(reply, spent), after.contexts
            spent = response.usage if spent is None else spent + response.usage
            if attempt > ctx.budgets.retries:
                state.finish(
                    "stopped",
                    "retry_limit",
                    f"after_inference hooks asked to retry the model call more than "
                    f"{ctx.budgets.retries} times (retry budget); last reason: "
                    f"{after.reason}",
                )
                state.usage = state.usage + spent
                return None, ()
            state.messages.append(checked.response.message)
            feedback = after.message or after.reason or "Please try again."
            state.messages.append(UserMessage(content=feedback, synthetic=True))
            attempt += 1


def _with_spent(response: ModelResponse, spent: Usage) -> ModelResponse:
    return replace(response, usage=spent + response.usage)
