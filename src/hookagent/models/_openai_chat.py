"""OpenAI Chat Completions driver, also for OpenAI-compatible servers.

`openai:gpt-4.1` talks to OpenAI; `openai-compatible:<model>` talks to any server with the same
wire format (vLLM, Ollama, llama.cpp, OpenRouter, LM Studio) at a `base_url`. The driver holds
one `AsyncOpenAI` client with SDK retries off: retrying is the run's `ErrorPolicy`'s decision.

Messages are converted incrementally: the driver remembers the converted prefix of the
conversation and converts only what was appended since its previous request.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final, final

import openai
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from hookagent._errors import ConfigError
from hookagent._messages import (
    AssistantMessage,
    ImagePart,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from hookagent.models._base import ModelRequest, ModelResponse, OnDelta, OutputSpec, ToolSpec
from hookagent.models._incremental import SeenPrefix
from hookagent.models._openai_client import OpenAIClient, add_settings, keywords, openai_account
from hookagent.models._openai_errors import ProviderError
from hookagent.models._openai_stream import ChunkAssembler, reasoning_of, usage_of
from hookagent.models._openai_wire import post
from hookagent.models._tool_args import parse_call

__all__ = ["OpenAIChatModel", "ProviderError", "create"]

_NO_KEY: Final = "not-needed"
_RESERVED: Final = frozenset({"self", "messages", "model", "tools", "stream"})
"""Request fields the driver sets itself; a setting may not override them."""
_CREATE_PARAMS: Final = keywords(openai.resources.chat.AsyncCompletions.create, _RESERVED)
"""Settings the SDK takes as keywords; any other setting goes to the server in `extra_body`."""


def create(
    model: str, *, provider: str, base_url: str | None = None, api_key: str | None = None
) -> OpenAIChatModel:
    """Build the driver, checking its key and endpoint before any run starts."""
    if provider == "openai":
        api_key, base_url = openai_account(provider, model, api_key=api_key, base_url=base_url)
    elif provider == "openai-compatible":
        base_url = (
            base_url or os.environ.get("HOOKAGENT_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
        )
        if not base_url:
            raise ConfigError(
                "the openai-compatible provider needs the server's URL: pass base_url or set "
                "HOOKAGENT_BASE_URL or OPENAI_BASE_URL",
                key="model",
                value=f"{provider}:{model}",
            )
        # Never forward OPENAI_API_KEY to a third-party server by accident.
        api_key = api_key or os.environ.get("HOOKAGENT_API_KEY") or _NO_KEY
    else:
        raise ConfigError(
            f"the Chat Completions driver serves openai and openai-compatible, not {provider!r}",
            key="model",
            value=f"{provider}:{model}",
        )
    return OpenAIChatModel(model, provider=provider, base_url=base_url, api_key=api_key)


@final
class OpenAIChatModel(OpenAIClient):
    """A `Model` over `chat.completions.create`, streaming when someone watches."""

    native_output = True
    """OpenAI and the common compatible servers take a JSON schema in `response_format`."""
    accepts_images = True
    """Tool messages carry text only: the images of a batch of tool results follow it in one
    user message of `image_url` parts."""

    def __init__(self, model: str, *, provider: str, base_url: str | None, api_key: str) -> None:
        super().__init__(model, provider=provider, base_url=base_url, api_key=api_key)
        self._seen = SeenPrefix()
        self._converted: list[dict[str, Any]] = []
        self._images: dict[int, tuple[ImagePart, ...]] = {}
        """Images of the tool message at each index of `_converted`."""
        self.conversions = 0
        """How many neutral messages were converted so far (incremental conversion shows here)."""

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        try:
            completion = await post(
                self.client, "/chat/completions", self._params(request), cast_to=ChatCompletion
            )
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        return self._response(completion, request.step)

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        params = self._params(request)
        params.setdefault("stream_options", {"include_usage": True})
        reply = ChunkAssembler(request.step, on_delta)
        try:
            chunks = await post(
                self.client,
                "/chat/completions",
                params,
                cast_to=ChatCompletion,
                stream_cls=openai.AsyncStream[ChatCompletionChunk],
            )
            async for chunk in chunks:
                reply.add(chunk)
        except openai.OpenAIError as exc:
            raise self._error(exc) from exc
        if reply.finish_reason is None:
            raise self._fail("the stream ended before the reply was finished")
        return reply.response(self._model, self._call_fallbacks)

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        messages = self._convert(request.messages)
        if request.system_prompt:
            messages = [{"role": "system", "content": request.system_prompt}, *messages]
        params: dict[str, Any] = {"model": self._model, "messages": messages}
        if request.tools:
            params["tools"] = [_tool(spec) for spec in request.tools]
        if request.output is not None:
            params["response_format"] = _response_format(request.output)
        add_settings(
            params,
            request.settings,
            driver=self.name,
            reserved=_RESERVED,
            accepted=_CREATE_PARAMS,
        )
        return params

    # -- conversion ---------------------------------------------------------------------
    def _convert(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """Convert only the messages appended since the last call; rebuild on a new history."""
        fresh, todo = self._seen.new(messages)
        if fresh:
            self._converted.clear()
            self._images.clear()
        for message in todo:
            if isinstance(message, ToolResultMessage) and message.images:
                self._images[len(self._converted)] = message.images
            self._converted.append(_message(message))
            self.conversions += 1
        return _with_images(self._converted, self._images)

    # -- response -----------------------------------------------------------------------
    def _response(self, completion: Any, step: int) -> ModelResponse:
        if not completion.choices:
            raise self._fail("the response had no choices")
        choice = completion.choices[0]
        message = choice.message
        calls = tuple(
            _call(raw, f"call_{step}_{index}") for index, raw in enumerate(message.tool_calls or ())
        )
        return ModelResponse(
            message=AssistantMessage(
                content=message.content or "", tool_calls=calls, reasoning=reasoning_of(message)
            ),
            usage=usage_of(completion.usage),
            finish_reason=choice.finish_reason,
            model_name=completion.model or self._model,
        )

    @staticmethod
    def _call_fallbacks(step: int, index: int) -> str:
        return f"call_{step}_{index}"


def _message(message: Message) -> dict[str, Any]:
    if isinstance(message, UserMessage | SystemMessage):
        return {"role": message.role, "content": message.content}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "tool_call_id": message.call_id, "content": message.content}
    out: dict[str, Any] = {
        "role": "assistant",
        "content": message.content or (None if message.tool_calls else ""),
    }
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(dict(call.args))},
            }
            for call in message.tool_calls
        ]
    return out


def _with_images(
    converted: list[dict[str, Any]], images: Mapping[int, tuple[ImagePart, ...]]
) -> list[dict[str, Any]]:
    """`converted` with, after each run of tool messages that had images, a user message
    showing them (a user message between tool messages would break the call/result pairs)."""
    out: list[dict[str, Any]] = []
    pending: list[ImagePart] = []
    for index, item in enumerate(converted):
        if pending and item["role"] != "tool":
            out.append(_image_message(pending))
            pending = []
        out.append(item)
        pending.extend(images.get(index, ()))
    if pending:
        out.append(_image_message(pending))
    return out


def _image_message(images: list[ImagePart]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": "The images returned by the tool calls above:"}
    ]
    parts.extend({"type": "image_url", "image_url": {"url": i.data_url()}} for i in images)
    return {"role": "user", "content": parts}


def _response_format(output: OutputSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "name": output.name,
        "schema": dict(output.schema),
        "strict": output.strict,
    }
    if output.description:
        schema["description"] = output.description
    return {"type": "json_schema", "json_schema": schema}


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": dict(spec.parameters),
        },
    }


def _call(raw: Any, fallback_id: str) -> ToolCall:
    call_id = getattr(raw, "id", None) or fallback_id
    function = getattr(raw, "function", None)
    if function is None:
        name = getattr(getattr(raw, "custom", None), "name", None) or "unknown"
        kind = getattr(raw, "type", None)
        return ToolCall(id=call_id, name=name, parse_error=f"unsupported tool call type {kind!r}")
    return parse_call(call_id, function.name or "", function.arguments)
