"""`SelfCritique`: a second opinion on every final answer before the run may end.

Two hooks:

- **`selfcritique:critic`** (after_step) acts on final answers only (a step with no tool
  calls and some text) while fewer than `max_iterations` critiques have run. It asks the
  critic model for a verdict on the answer, given the task and the evidence (every tool call
  and its result), and stores the verdict, with the step it judged and the iteration count,
  in run metadata under `self_critic` (a reserved key of the `Metadata` capability, so the
  model cannot overwrite it). A critic that fails (raises, or twice answers something that
  is not a verdict) counts as approving, or as rejecting with `on_critic_failure="reject"`;
  the verdict then carries the error.
- **`selfcritique:revise`** (should_continue) reads the verdict of the step just taken, and
  only that one. Rejected with iterations left: `continue` with a correction message as the
  model's next user message, so another model turn is *requested* (the original's
  continuation check only *allowed* one, which the tool-call criterion then overruled:
  REFERENCE lesson §8.6). Rejected at the limit: `stop` with `retry_limit`. Approved: no
  vote, so the run ends as it would have (stop hooks, then `completed` with this answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Literal, TypedDict, final

from hookagent._errors import ConfigError
from hookagent.capabilities.critique._critic import (
    Critic,
    Verdict,
    build_prompt,
    collect_evidence,
    task_of,
)
from hookagent.hooks._events import ContinueEvent, StepEndEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_STEP, SHOULD_CONTINUE
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.models._base import Model
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = ["SELF_CRITIC", "CritiqueRecord", "OnCriticFailure", "SelfCritique", "correction"]

OnCriticFailure = Literal["approve", "reject"]


class CritiqueRecord(TypedDict):
    """The latest critique of a run, as kept in its metadata (JSON data)."""

    iteration: int
    """How many critiques this run has had, this one included."""
    step: int
    """The step whose answer was judged."""
    approved: bool
    summary: str
    weaknesses: list[str]
    suggestions: list[str]
    error: str | None
    """Why the critic failed, when it did (the verdict is then `on_critic_failure`'s)."""
    critic: str
    calls: int
    """Requests made to the critic for this verdict (2 when its first reply was unusable)."""
    input_tokens: int
    output_tokens: int
    """The critic's tokens (not counted in the run's usage or its token limit)."""


SELF_CRITIC: Final = MetadataKey[CritiqueRecord]("self_critic")
"""The latest critique of the run (`CritiqueRecord`); every earlier one is in the decision
records of `selfcritique:critic`."""


@final
class SelfCritique:
    """A critic model judges each final answer; a rejected answer goes back for revision.

    Args:
        max_iterations: critiques per run. A rejection with critiques left asks the model
            to revise; a rejection by the last one stops the run with `retry_limit`.
        critic: the model that judges; by default the agent's own model.
        on_critic_failure: what a failed critique counts as, `approve` (as the original)
            or `reject`.
        evidence_chars: each tool call's arguments and result are cut to this many
            characters for the critic, keeping head and tail.
    """

    name = "selfcritique"

    def __init__(
        self,
        max_iterations: int = 2,
        *,
        critic: Model | None = None,
        on_critic_failure: OnCriticFailure = "approve",
        evidence_chars: int = 6000,
    ) -> None:
        _whole("max_iterations", max_iterations)
        _whole("evidence_chars", evidence_chars)
        if critic is not None and not isinstance(critic, Model):
            raise ConfigError(
                f"must be a model driver (with name and an async request()), not {critic!r}",
                key="SelfCritique(critic)",
                value=critic,
            )
        if on_critic_failure not in ("approve", "reject"):
            raise ConfigError(
                f"must be 'approve' or 'reject', not {on_critic_failure!r}",
                key="SelfCritique(on_critic_failure)",
                value=on_critic_failure,
            )
        self.max_iterations = max_iterations
        self.on_critic_failure: OnCriticFailure = on_critic_failure
        self.evidence_chars = evidence_chars
        self._critic = critic
        self._agent_model: Model | None = None

    @property
    def critic(self) -> Model | None:
        """The model that judges: the one given, else the agent's (once bound)."""
        return self._critic if self._critic is not None else self._agent_model

    def bind(self, agent: Agent, /) -> None:
        """Called by the builder: with no `critic` given, the agent's model judges."""
        self._agent_model = agent.model

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        # no timeout: the critic is a model call, bounded by its driver's own timeouts
        # Subagents do not inherit it: the parent's critic judges the parent's answer.
        common: dict[str, Any] = {"source": self.name, "timeout": None, "inherit": "none"}
        yield make_hook(AFTER_STEP, self.critique, name="critic", **common)
        yield make_hook(SHOULD_CONTINUE, self.revise, name="revise", **common)

    # -- hooks ------------------------------------------------------------------------
    async def critique(self, event: StepEndEvent) -> HookResult | None:
        """Judge the step's answer, if it is a final answer and critiques are left."""
        run = event.run
        response = event.record.response
        if response is None or response.tool_calls or not response.content.strip():
            return None
        if run.stop_reason is not None:  # the run ends anyway: nothing to revise
            return None
        previous = SELF_CRITIC.get(run)
        iteration = (previous["iteration"] if previous else 0) + 1
        if iteration > self.max_iterations:
            return None
        critic = self.critic
        if critic is None:
            raise ConfigError(
                "no critic model: pass critic=..., or install the capability with "
                "AgentBuilder.with_ so it can use the agent's model",
                key="SelfCritique(critic)",
            )
        prompt = build_prompt(
            task_of(run.messages),
            collect_evidence(run.steps, self.evidence_chars),
            response.content,
        )
        consultation = Critic(critic)
        error: str | None = None
        try:
            verdict = await consultation.judge(prompt, step=event.step)
        except Exception as exc:  # any failure of the critic falls to on_critic_failure
            error = f"{type(exc).__name__}: {exc}"
            verdict = self._failed(error)
        record: CritiqueRecord = {
            "iteration": iteration,
            "step": event.step,
            "approved": verdict.approved,
            "summary": verdict.summary,
            "weaknesses": list(verdict.weaknesses),
            "suggestions": list(verdict.suggestions),
            "error": error,
            "critic": critic.name,
            "calls": consultation.calls,
            "input_tokens": consultation.usage.input_tokens,
            "output_tokens": consultation.usage.output_tokens,
        }
        return SELF_CRITIC.set(record)

    def revise(self, event: ContinueEvent) -> HookResult | None:
        """Ask for a revision of the answer just rejected, or stop at the limit."""
        record = SELF_CRITIC.get(event.run)
        if record is None or record["step"] != event.step or record["approved"]:
            return None  # no verdict on this step's answer, or an approval
        iteration = record["iteration"]
        if iteration < self.max_iterations:
            return HookResult.continue_(
                f"the critic rejected the answer (critique {iteration} of "
                f"{self.max_iterations}): {record['summary']}",
                message=correction(record),
            )
        return HookResult.stop(
            f"the critic rejected the answer {iteration} times "
            f"(max_iterations={self.max_iterations}); last verdict: {record['summary']}",
            stop_reason="retry_limit",
        )

    # -- helpers ----------------------------------------------------------------------
    def _failed(self, error: str) -> Verdict:
        if self.on_critic_failure == "approve":
            return Verdict(approved=True, summary=f"The critic failed ({error}); approved.")
        return Verdict(
            approved=False,
            summary="The answer could not be checked: the critic failed.",
            weaknesses=[f"the critic failed: {error}"],
            suggestions=["Re-check your answer against the evidence before giving it again."],
        )


def correction(record: CritiqueRecord) -> str:
    """The message that sends a rejected answer back to the model."""
    lines = [
        f"[CORRECTION REQUIRED - Iteration {record['iteration']}] "
        f"Problem: {record['summary'] or '(no summary given)'}"
    ]
    if record["weaknesses"]:
        lines += ["Issues:", *(f"- {item}" for item in record["weaknesses"])]
    if record["suggestions"]:
        lines += ["Suggestions:", *(f"- {item}" for item in record["suggestions"])]
    lines.append(
        "Action: revise your answer. Address each issue, use your tools if you need more "
        "evidence, and reply with the complete corrected answer."
    )
    return "\n".join(lines)


def _whole(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"must be a whole number >= 1, not {value!r}",
            key=f"SelfCritique({name})",
            value=value,
        )
