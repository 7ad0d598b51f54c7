"""The Anthropic Messages API driver, through the official `anthropic` SDK.

Messages are converted incrementally (see `hookagent.models.anthropic._convert`). The SDK
never retries (`max_retries=0`); retrying is the ErrorPolicy's job. A reply's thinking blocks
are sent back verbatim for as long as that exact reply object stays in the history.
"""

from __future__ import annotations

import json
from typing import Any, Final, final

import anthropic
from anthropic.types import Message as WireMessage
from anthropic.types import (
    RawMessageStreamEvent,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)

from hookagent._errors import ModelError
from hookagent._messages import AssistantMessage, ToolCall
from hookagent._usage import Usage
from hookagent.models._base import ModelRequest, ModelResponse, OnDelta
from hookagent.models._resolve import account
from hookagent.models._retry_after import retry_after
from hookagent.models._tool_args import MAX_DEPTH, MAX_DIGITS, check_call, cut_deep, parse_call
from hookagent.models.anthropic._convert import Block, Converter, tool_param
from hookagent.models.anthropic._stream import StreamAssembler

__all__ = ["AnthropicMessagesModel", "create"]

PROVIDER: Final = "anthropic"
DEFAULT_MAX_TOKENS: Final = 4096
_CUT: Final = MAX_DEPTH + 5
"""Where a reply too deep to read is cut: a tool input (level 4 of the reply) keeps
`MAX_DEPTH` + 1 levels, one more than a call may have."""


def create(
    model: str, *, provider: str = PROVIDER, base_url: str | None, api_key: str | None
) -> AnthropicMessagesModel:
    """Build the driver; a missing key is a ConfigError now, not at the first request."""
    key, url = account(
        provider,
        model,
        api_key=api_key,
        base_url=base_url,
        key_env="ANTHROPIC_API_KEY",
        url_env="ANTHROPIC_BASE_URL",
    )
    client = anthropic.AsyncAnthropic(api_key=key, base_url=url, max_retries=0)
    return AnthropicMessagesModel(model, client)


@final
class AnthropicMessagesModel:
    """A `Model` over `POST /v1/messages`. One instance serves one run at a time (its
    conversion cache follows a single conversation)."""

    accepts_images = True
    """Tool results' images go as image blocks in the `tool_result`."""

    def __init__(self, model: str, client: anthropic.AsyncAnthropic) -> None:
        self.model = model
        self.client = client
        self.converter = Converter()

    @property
    def name(self) -> str:
        return f"{PROVIDER}:{self.model}"

    async def aclose(self) -> None:
        await self.client.close()

    async def request(self, request: ModelRequest, /) -> ModelResponse:
        try:
            body = await self._post(request, stream=False)
        except anthropic.AnthropicError as exc:
            raise self._error(exc) from exc
        return self._response(self._read(body))

    def _read(self, body: str) -> WireMessage:
        """The reply from its JSON body, read here rather than by the SDK so that a tool
        input nested past Python's JSON reader refuses that call (too deep), not the reply."""
        try:
            try:
                data = json.loads(body, parse_int=_integer)
            except RecursionError:  # arguments cut past MAX_DEPTH are refused as too deep
                data = json.loads(cut_deep(body, _CUT), parse_int=_integer)
        except ValueError as exc:
            data = exc
        if not isinstance(data, dict):
            raise ModelError(
                f"the reply is not a JSON object: {str(data)[:200]}",
                provider=PROVIDER,
                model=self.model,
                transient=True,
            )
        return WireMessage.construct(**data)

    async def stream(self, request: ModelRequest, on_delta: OnDelta, /) -> ModelResponse:
        reply = StreamAssembler(request.step, on_delta)
        try:
            events = await self._post(request, stream=True)
            async for event in events:
                reply.add(event)
        except anthropic.AnthropicError as exc:
            raise self._error(exc) from exc
        if reply.stop_reason is None:
            raise ModelError(
                "the stream ended before the reply was finished",
                provider=PROVIDER,
                model=self.model,
            )
        return self._response(reply.message())

    async def _post(self, request: ModelRequest, *, stream: bool) -> Any:
        """POST the body as built: `messages.create` would first walk every message in Python
        to coerce typed dicts, a cost that grows with the history on every step."""
        body = self._params(request)
        body.update(body.pop("extra_body", None) or {})
        sdk: Any = self.client
        if not stream:  # the body as text: `_read` reads it
            return await sdk.post("/v1/messages", cast_to=str, body=body)
        body["stream"] = True
        return await sdk.post(
            "/v1/messages",
            cast_to=WireMessage,
            body=body,
            stream=True,
            stream_cls=anthropic.AsyncStream[RawMessageStreamEvent],
        )

    def _params(self, request: ModelRequest) -> dict[str, Any]:
        system, messages = self.converter.convert(request.messages)
        parts = [request.system_prompt] if request.system_prompt else []
        parts.extend(system)
        settings = dict(request.settings)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": int(settings.pop("max_tokens", DEFAULT_MAX_TOKENS)),
            "messages": messages,
        }
        if parts:
            kwargs["system"] = "\n\n".join(parts)
        if request.tools:
            kwargs["tools"] = [tool_param(spec) for spec in request.tools]
        if settings:
            kwargs["extra_body"] = settings
        return kwargs

    def _response(self, reply: WireMessage) -> ModelResponse:
        texts: list[str] = []
        calls: list[ToolCall] = []
        blocks: list[Block] = []
        thoughts: list[str] = []
        thinking = False
        for block in reply.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
                blocks.append({"type": "text", "text": block.text})
            elif isinstance(block, ToolUseBlock):
                calls.append(_call(block))
                args = block.input if isinstance(block.input, dict) else {}
                blocks.append({"type": "tool_use", "id": block.id, "name": block.name})
                blocks[-1]["input"] = args
            elif isinstance(block, ThinkingBlock):
                thinking = True
                thoughts.append(block.thinking)
                blocks.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                )
            elif isinstance(block, RedactedThinkingBlock):
                thinking = True
                blocks.append({"type": "redacted_thinking", "data": block.data})
        message = AssistantMessage(
            content="".join(texts), tool_calls=tuple(calls), reasoning="\n\n".join(thoughts)
        )
        if thinking:  # sent back verbatim while this exact message stays in the history
            self.converter.originals.remember(message, blocks)
        return ModelResponse(
            message=message,
            usage=_usage(reply),
            finish_reason=reply.stop_reason,
            model_name=reply.model,
        )

    def _error(self, exc: anthropic.AnthropicError) -> ModelError:
        if isinstance(exc, anthropic.APIStatusError):
            text = getattr(exc, "api_message", None) or exc.message
            status = exc.status_code
            if status == 200:  # an `error` event in the middle of a stream
                status, text = _stream_error(exc.body, text)
            return ModelError(
                text,
                provider=PROVIDER,
                model=self.model,
                status=status,
                retry_after=retry_after(exc.response.headers),
            )
        text = exc.message if isinstance(exc, anthropic.APIError) else str(exc)
        return ModelError(
            text or type(exc).__name__,
            provider=PROVIDER,
            model=self.model,
            timed_out=isinstance(exc, anthropic.APITimeoutError),
            transient=isinstance(exc, anthropic.APIConnectionError) or None,
        )


_ERROR_STATUS: Final = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
"""Anthropic's error types and the HTTP status each stands for."""


def _stream_error(body: object, fallback: str) -> tuple[int, str]:
    """The status and message of an error the server sent inside a stream."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return 500, fallback
    kind, message = error.get("type"), error.get("message")
    status = _ERROR_STATUS.get(kind, 500) if isinstance(kind, str) else 500
    text = f"{kind}: {message}" if isinstance(message, str) and message else fallback
    return status, text


def _call(block: ToolUseBlock) -> ToolCall:
    raw: object = block.input
    if isinstance(raw, dict):
        return check_call(ToolCall(id=block.id, name=block.name, args=raw))
    if isinstance(raw, str):  # streamed input JSON that did not parse
        return parse_call(block.id, block.name, raw)
    return check_call(
        ToolCall(
            id=block.id,
            name=block.name,
            parse_error=f"tool input must be a JSON object, got {type(raw).__name__}",
        )
    )


def _integer(text: str) -> int | float:
    """An integer too long for Python to read is out of range (inf): its call is refused."""
    return int(text) if len(text) <= MAX_DIGITS else float(text)


def _usage(reply: WireMessage) -> Usage:
    """`input_tokens` counts every prompt token, cached or not (Anthropic reports cache reads
    and writes apart); `cached_tokens` is the part read from the cache."""
    u = reply.usage
    read = u.cache_read_input_tokens or 0
    written = u.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=u.input_tokens + read + written,
        output_tokens=u.output_tokens,
        cached_tokens=read,
        requests=1,
    )
