"""`select_active_intent{intent_id}`: check the id against the intents file, return the intent.

The tool never touches the run: `IntentGate`'s after_tool transform stores the selection, so
it is a recorded decision. Its errors are JSON objects, like the guards' refusals.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from hookagent._errors import ConfigError
from hookagent._threads import in_thread
from hookagent.capabilities.intents._codes import INTENTS_UNAVAILABLE, UNKNOWN_INTENT, tool_error
from hookagent.capabilities.intents._spec import IntentFile, render_context
from hookagent.tools._base import ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

__all__ = ["SelectActiveIntent"]


class _SelectArgs(BaseModel):
    intent_id: str = Field(
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="The id of the intent to work on, as the intents file gives it.",
    )


class SelectActiveIntent(ModelTool[_SelectArgs]):
    """Checks the id against the intents file; the capability stores the selection."""

    name = "select_active_intent"
    description = (
        "Select the intent (a planned unit of work) you are working on. Call it first, "
        "before changing any file: changes are refused until an intent is selected, and then "
        "only files in the intent's owned_scope may be changed. The intent's scope, "
        "constraints and acceptance criteria are added to your instructions. Call it again "
        "to switch to another intent."
    )
    args_model = _SelectArgs

    def __init__(self, file: IntentFile) -> None:
        self.file = file

    def _unavailable(self, message: str) -> ToolResult:
        return ToolResult.error(tool_error(INTENTS_UNAVAILABLE, message, file=str(self.file.path)))

    async def run(self, args: _SelectArgs, ctx: ToolContext) -> ToolResult:
        try:
            intents = await in_thread(self.file.load)
        except ConfigError as exc:
            return self._unavailable(
                f"The intents file cannot be read ({exc}); ask the user to fix it."
            )
        if intents is None:
            return self._unavailable(
                f"There is no intents file at {self.file.path}; ask the user to create one."
            )
        intent = next((i for i in intents if i.id == args.intent_id), None)
        if intent is None:
            return ToolResult.error(
                tool_error(
                    UNKNOWN_INTENT,
                    f"There is no intent {args.intent_id!r}; select one of `intents` by its id.",
                    intent_id=args.intent_id,
                    intents=[i.summary() for i in intents],
                )
            )
        return ToolResult(
            content=(
                f"Intent {intent.id} selected. Work only within its owned_scope; its context "
                f"is now part of your instructions:\n{render_context(intent)}"
            ),
            data={"intent_id": intent.id, "intent": intent.as_dict()},
        )
