"""`Metadata`: let the model keep notes in run metadata (`store_`, `read_`, `list_metadata`).

`store_metadata` only checks the write and describes it in its result; the capability's own
after_tool transform applies it with `HookResult.modify(metadata=...)`, so every write is a
recorded decision. Every limit declared is enforced (REFERENCE lesson §8.9): reserved keys,
the JSON-encoded size of a value, and the number of keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities._arg_types import NonBlank
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import ToolResultEvent
from hookagent.hooks._points import AFTER_TOOL
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool, ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool

__all__ = [
    "ListMetadata",
    "Metadata",
    "MetadataPolicy",
    "ReadMetadata",
    "StoreMetadata",
    "json_type",
]


@record
class MetadataPolicy:
    max_value_bytes: int = 65536
    """The largest value `store_metadata` accepts, as UTF-8 JSON."""
    max_keys: int = 50
    """How many keys run metadata may hold outside the reserved ones before a new key is
    refused (overwriting an existing key is always allowed)."""
    reserved: frozenset[str] = frozenset(
        {"tasks", "skills", "self_critic", "active_intent", "observed_files", "cost_usd"}
    )
    """Keys other capabilities own: readable, never written by the model."""

    def user_keys(self, metadata: Mapping[str, Any]) -> list[str]:
        return [key for key in metadata if key not in self.reserved]


class _StoreArgs(BaseModel):
    key: NonBlank = Field(description="The name to store the value under.")
    value: Any = Field(description="Any JSON value: string, number, boolean, null, array, object.")


class _ReadArgs(BaseModel):
    key: NonBlank = Field(description="The name the value was stored under.")


class _ListArgs(BaseModel):
    pass


class StoreMetadata(ModelTool[_StoreArgs]):
    name = "store_metadata"
    description = (
        "Store a value (any JSON) under a key in this run's metadata, to keep findings, "
        "intermediate results or notes for later steps. Storing under an existing key "
        "replaces its value."
    )
    args_model = _StoreArgs

    def __init__(self, policy: MetadataPolicy) -> None:
        self.policy = policy

    async def run(self, args: _StoreArgs, ctx: ToolContext) -> ToolResult:
        key, policy, metadata = args.key, self.policy, ctx.run.metadata
        if key in policy.reserved:
            reserved = ", ".join(sorted(policy.reserved))
            return ToolResult.error(f"The key {key!r} is reserved ({reserved}); choose another.")
        size = _json_size(args.value)
        if size is None:
            return ToolResult.error(f"The value for {key!r} is not a JSON value.")
        if size > policy.max_value_bytes:
            return ToolResult.error(
                f"The value for {key!r} is {size} bytes as JSON, more than the "
                f"{policy.max_value_bytes} allowed; store something smaller."
            )
        replaced = key in metadata
        if not replaced and len(policy.user_keys(metadata)) >= policy.max_keys:
            return ToolResult.error(
                f"Metadata already holds {policy.max_keys} keys, the most allowed; "
                f"overwrite one of them instead: {', '.join(policy.user_keys(metadata))}."
            )
        data = {
            "success": True,
            "key": key,
            "value": args.value,
            "bytes": size,
            "replaced": replaced,
        }
        verb = "Replaced" if replaced else "Stored"
        return ToolResult(content=f"{verb} {key!r} ({size} bytes).", data=data)


class ReadMetadata(ModelTool[_ReadArgs]):
    name = "read_metadata"
    description = "Read a value from this run's metadata: strings as they are, others as JSON."
    args_model = _ReadArgs

    async def run(self, args: _ReadArgs, ctx: ToolContext) -> ToolResult:
        metadata = ctx.run.metadata
        if args.key not in metadata:
            available = ", ".join(metadata) or "none"
            return ToolResult.error(f"No metadata under {args.key!r}. Available keys: {available}.")
        value = metadata[args.key]
        text = value if isinstance(value, str) else _dumps(value)
        return ToolResult(content=text, data={"key": args.key, "value": value})


class ListMetadata(ModelTool[_ListArgs]):
    name = "list_metadata"
    description = "List the keys in this run's metadata with the JSON type of each value."
    args_model = _ListArgs

    async def run(self, args: _ListArgs, ctx: ToolContext) -> ToolResult:
        keys = [{"key": key, "type": json_type(value)} for key, value in ctx.run.metadata.items()]
        return ToolResult.of({"count": len(keys), "keys": keys})


class Metadata(HookProvider):
    """The three metadata tools, and the hook that applies `store_metadata`'s writes.

    Args:
        max_value_bytes: the largest value accepted, as UTF-8 JSON.
        max_keys: how many keys outside `reserved` the run's metadata may hold before a
            new key is refused.
        reserved: keys the model may read but never write.
    """

    name = "metadata"

    def __init__(
        self,
        max_value_bytes: int = 65536,
        max_keys: int = 50,
        reserved: Iterable[str] = ("tasks", "skills", "self_critic"),
    ) -> None:
        for key, value in (("max_value_bytes", max_value_bytes), ("max_keys", max_keys)):
            if value < 1:
                raise ConfigError(f"must be at least 1, not {value!r}", key=key, value=value)
        if isinstance(reserved, str):  # one key, not its letters
            reserved = (reserved,)
        self.policy = MetadataPolicy(
            max_value_bytes=max_value_bytes, max_keys=max_keys, reserved=frozenset(reserved)
        )
        self._tools = (StoreMetadata(self.policy), ReadMetadata(), ListMetadata())

    def tools(self) -> tuple[Tool, ...]:
        return self._tools

    @hook(AFTER_TOOL, match="store_metadata", kind="transform")
    def record(self, event: ToolResultEvent) -> HookResult | None:
        """Apply a write `store_metadata` accepted."""
        result = event.result
        key = result.returned("key")
        if (
            not result.returned("success")
            or not isinstance(key, str)
            or key in self.policy.reserved
        ):
            return None
        return HookResult.modify(metadata={key: result.returned("value")})


def json_type(value: object) -> str:
    """The JSON type name of a value (`null`, `boolean`, `number`, `string`, `array`,
    `object`), or the Python type name for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _json_size(value: object) -> int | None:
    """UTF-8 bytes of the compact JSON encoding, or `None` if it has none (a hook may have
    rewritten the arguments into something JSON cannot hold)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None
    return len(text.encode())


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, default=str)
