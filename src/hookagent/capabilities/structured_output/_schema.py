"""The shape a structured answer must have: any type pydantic can validate.

A pydantic model, a dataclass, a TypedDict or `list[int]` all work. Providers and tool calls
want a JSON *object* at the top, so a schema that is not an object is wrapped as
`{"response": <schema>}` on the wire and unwrapped on the way back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final, Generic, TypeVar, final

from pydantic import TypeAdapter, ValidationError

from hookagent.models._base import OutputSpec

__all__ = ["OutputSchema", "describe_errors"]

T = TypeVar("T")

WRAPPER: Final = "response"
_FENCE: Final = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


@final
class OutputSchema(Generic[T]):
    """Validation, JSON schema and wire name of one output type."""

    def __init__(self, output_type: type[T], *, name: str | None = None) -> None:
        self.output_type = output_type
        self.adapter: TypeAdapter[T] = TypeAdapter(output_type)
        schema = self.adapter.json_schema()
        self.wrapped = schema.get("type") != "object"
        if self.wrapped:
            defs = schema.pop("$defs", None)
            schema = {"type": "object", "properties": {WRAPPER: schema}, "required": [WRAPPER]}
            schema["additionalProperties"] = False
            if defs:
                schema["$defs"] = defs
        self.schema: Mapping[str, Any] = schema
        title = schema.get("title") if not self.wrapped else None
        self.name = name or _wire_name(str(title or getattr(output_type, "__name__", "output")))
        self.description = (getattr(output_type, "__doc__", None) or "").strip()
        if self.description.startswith(("Usage docs", "A base class")):
            self.description = ""  # pydantic's own docstrings, not the user's
        self.strict = is_strict(schema)

    def spec(self) -> OutputSpec:
        return OutputSpec(
            name=self.name, schema=self.schema, strict=self.strict, description=self.description
        )

    def validate_text(self, text: str) -> T:
        """The final answer's text as JSON (a ```json fence around it is tolerated)."""
        fenced = _FENCE.match(text)
        raw = json.loads(fenced.group(1) if fenced else text)
        return self.validate_args(raw)

    def validate_args(self, raw: Any) -> T:
        if self.wrapped:
            if not isinstance(raw, dict) or WRAPPER not in raw:
                raise ValueError(f'the answer must be an object with a "{WRAPPER}" field')
            raw = raw[WRAPPER]
        return self.adapter.validate_python(raw)

    def dump(self, value: T) -> Any:
        """The value as JSON data, as it is kept in the run's metadata."""
        return self.adapter.dump_python(value, mode="json")

    def load(self, data: Any) -> T:
        return self.adapter.validate_python(data)


def describe_errors(error: Exception, *, root: str = "(root)", most: int = 20) -> str:
    """A validation failure as short lines the model can act on: at most `most` of them, an
    error at the top of the value named `root`."""
    if isinstance(error, ValidationError):
        lines = [
            f"- {'.'.join(str(p) for p in e['loc']) or root}: {e['msg']}"
            for e in error.errors(include_url=False)
        ]
        return "\n".join(lines[:most])
    if isinstance(error, json.JSONDecodeError):
        return f"- not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
    return f"- {error}"


def is_strict(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts the schema: every object closed
    (`additionalProperties: false`) with every property required."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            properties = schema.get("properties", {})
            if schema.get("additionalProperties") is not False:
                return False
            if set(schema.get("required", ())) != set(properties):
                return False
        return all(is_strict(value) for value in schema.values())
    if isinstance(schema, list):
        return all(is_strict(item) for item in schema)
    return True


def _wire_name(text: str) -> str:
    """Providers allow letters, digits, `_` and `-` in a schema name, up to 64 characters."""
    return (re.sub(r"[^A-Za-z0-9_-]", "_", text) or "output")[:64]
