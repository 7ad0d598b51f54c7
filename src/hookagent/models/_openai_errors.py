"""OpenAI SDK exceptions → `ProviderError`, for every driver that talks through that SDK.

The error names the provider, the model, the HTTP status and the provider's own message; it
carries the server's `Retry-After` for the error policy, says when the client timed out, and
counts a connection that never reached the server as transient.
"""

from __future__ import annotations

from collections.abc import Mapping

import openai

from hookagent._errors import ModelError
from hookagent.models._retry_after import retry_after as wait_for

__all__ = ["ProviderError", "from_sdk", "provider_message"]


class ProviderError(ModelError):
    """A failed call through the OpenAI SDK (Chat Completions or Responses)."""


def from_sdk(exc: openai.OpenAIError, *, provider: str, model: str, endpoint: str) -> ProviderError:
    status: int | None = None
    retry_after: float | None = None
    if isinstance(exc, openai.APIStatusError):
        message, status = provider_message(exc), exc.status_code
        retry_after = wait_for(exc.response.headers)
    elif isinstance(exc, openai.APITimeoutError):
        message = f"the request to {endpoint} timed out"
    elif isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        message = f"connection failed to {endpoint}" + (f": {cause}" if cause else "")
    else:
        message = f"{type(exc).__name__}: {exc}"
    return ProviderError(
        message,
        provider=provider,
        model=model,
        status=status,
        retry_after=retry_after,
        timed_out=isinstance(exc, openai.APITimeoutError),
        # a connection that never reached the server: trying again may reach it
        transient=True if isinstance(exc, openai.APIConnectionError) else None,
    )


def provider_message(exc: openai.APIStatusError) -> str:
    """The server's own words: `error.message` of the body, else the body, else the SDK's."""
    body = exc.body
    if isinstance(body, Mapping):
        message = body.get("message")
        if isinstance(message, str) and message:
            return message
    elif isinstance(body, str) and body.strip():
        return body.strip()
    return exc.message
