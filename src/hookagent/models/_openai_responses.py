"""OpenAI Responses API driver: `openai-responses:<model>` over `POST /v1/responses`.

The driver holds one `AsyncOpenAI` client with SDK retries off (retrying is the run's
`ErrorPolicy`'s decision) and runs statelessly (`store=False`): every request carries the
conversation as input items, converted incrementally (see `openai_responses_convert`).
Reasoning items of a reply are sent back verbatim while that reply stays in the history; with
a `reasoning` setting the driver also asks for `reasoning.encrypted_content`, which stateless
requests need to carry reasoning over.
"""

from __future__ import annotations

from typing import Any, Final, final

import openai
from openai.resources.responses import AsyncResponses
from openai.types.responses import Response, ResponseStreamEvent

from hookagent._errors import ConfigError
from hookagent.models._base import (
    ModelRequest,
    ModelResponse,
    OnDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from hookagent.models._openai_client import OpenAIClient, add_settings, keywords, openai_account
from hookagent.models._openai_errors import ProviderError
from hookagent.models._openai_responses_convert import (
    Converter,
    read_response,
    text_format,
    tool_param,
)
from hookagent.models._openai_wire import post

__all__ = ["OpenAIResponsesModel", "ProviderError", "create"]

PROVIDER: Final = "openai-responses"
ENCRYPTED_REASONING: Final = "reasoning.encrypted_content"
_RESERVED: Final = frozenset({"self", "model", "input", "tools", "stream", "instructions"})
"""Request fields the driver sets itself; a setting may not override them."""
_CREATE_PARAMS: Final = keywords(AsyncResponses.create, _RESERVED)
"""Settings the SDK takes as keywords; any other setting goes to the server in `extra_body`."""
_FINAL_EVENTS: Final = frozenset({"response.completed", "response.incomplete", "response.failed"})
_TRANSIENT_CODES: Final = frozenset({"server_error", "rate_limit_exceeded"})
"""Error codes of a failed response (no HTTP status to tell) that trying again may cure."""


def create(
    model: str, *, provider: str = PROVIDER, base_url: str | None = None, api_key: str | None = None
) -> OpenAIResponsesModel:
    """Build the driver, checking its key before any run starts."""
    api_key, base_url = openai_account(provider, model, api_key=api_key, base_url=base_url)
    return OpenAIResponsesModel(model, provider=provider, base_url=base_url, api_key=api_key)


@final
class OpenAIResponsesModel(OpenAIClient):
    """A `StreamingModel` over `responses.create`. One instance serves one run at a time (its
    conversion cache follows a single conversation)."""

    native_output = True
    """The Responses API takes a JSON schema in `text.format`."""
    accepts_images = True
    """Tool results' images go as `input_image` parts of the `function_call_output`."""

    def __init__(self, model: str, *, provider: str, base_url: str | None, api_key: str) -> None:
        super().__init__(model, provider=provider, base_url=base_url, api_key=api_key)
        self.converter = Converter()

    @property
    def conversions(self) -> int:
        """How many neutral messages were converted so far (incremental conversion shows here)."""
        return self.converter.converted

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        params = self._params(request)
        try:
            response = await post(self.client, "/responses", params, cast_to=Response)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return self._finish(response)

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        params = self._params(request)
        step = request.step
        calls: dict[int, int] = {}
        """output_index → the call's position among this reply's function calls."""
        final_response: Any = None
        try:
            events: Any = await post(
                self.client,
                "/responses",
                params,
                cast_to=Response,
                stream_cls=openai.AsyncStream[ResponseStreamEvent],
            )
            async with events:
                async for event in events:
                    kind = getattr(event, "type", None)
                    if kind == "response.output_text.delta":
                        on_delta(TextDelta(step, event.delta))
                    elif kind in (
                        "response.reasoning_summary_text.delta",
                        "response.reasoning_text.delta",
                    ):
                        on_delta(ReasoningDelta(step, event.delta))
                    elif kind == "response.output_item.added":
                        item = event.item
                        if getattr(item, "type", None) == "function_call":
                            index = calls.setdefault(event.output_index, len(calls))
                            on_delta(ToolCallDelta(step, index, item.call_id, item.name, ""))
                    elif kind == "response.function_call_arguments.delta":
                        index = calls.setdefault(event.output_index, len(calls))
                        on_delta(ToolCallDelta(step, index, None, None, event.delta))
                    elif kind == "error":
                        code = getattr(event, "code", None)
                        prefix = f"{code}: " if code else ""
                        raise self._fail(
                            f"stream error: {prefix}{event.message}",
                            transient=code in _TRANSIENT_CODES or None,
                        )
                    elif kind in _FINAL_EVENTS:
                        final_response = event.response
                        break
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        if final_response is None:
            raise self._fail("stream ended before response.completed", transient=True)
        return self._finish(final_response)

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self._model,
            "input": self.converter.convert(request.messages),
            "store": False,
        }
        if request.system_prompt:
            params["instructions"] = request.system_prompt
        if request.tools:
            params["tools"] = [tool_param(spec) for spec in request.tools]
        settings = dict(request.settings)
        if "max_tokens" in settings:
            if "max_output_tokens" in settings:
                raise ConfigError("set max_tokens or max_output_tokens, not both", key="settings")
            settings["max_output_tokens"] = settings.pop("max_tokens")
        add_settings(
            params, settings, driver=self.name, reserved=_RESERVED, accepted=_CREATE_PARAMS
        )
        if "reasoning" in settings:
            include = list(params.get("include") or ())
            if ENCRYPTED_REASONING not in include:
                params["include"] = [*include, ENCRYPTED_REASONING]
        if request.output is not None:
            text = dict(params.get("text") or {})
            text["format"] = text_format(request.output)
            params["text"] = text
        return params

    def _finish(self, response: Any) -> ModelResponse:
        error = getattr(response, "error", None)
        status = getattr(response, "status", None)
        if error is not None or status == "failed":
            code = getattr(error, "code", None)
            detail = getattr(error, "message", None) or "no error details"
            prefix = f"{code}: " if code else ""
            raise self._fail(
                f"the response failed: {prefix}{detail}",
                transient=code in _TRANSIENT_CODES or None,
            )
        reply, raw = read_response(response, self._model)
        if raw is not None:  # sent back verbatim while this exact message stays in the history
            self.converter.originals.remember(reply.message, raw)
        return reply
