"""Token usage, added up per step and per run."""

from __future__ import annotations

from typing import Final

from hookagent._record import record

__all__ = ["Usage"]


@record
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        # Filled through the slots, past the frozen `__init__` (a keyword call and an
        # `object.__setattr__` per field, twice the cost): a run adds one per step.
        total: Usage = _new(Usage)
        _INPUT(total, self.input_tokens + other.input_tokens)
        _OUTPUT(total, self.output_tokens + other.output_tokens)
        _CACHED(total, self.cached_tokens + other.cached_tokens)
        _REQUESTS(total, self.requests + other.requests)
        return total


_new: Final = object.__new__
_INPUT, _OUTPUT, _CACHED, _REQUESTS = (
    getattr(Usage, name).__set__
    for name in ("input_tokens", "output_tokens", "cached_tokens", "requests")
)
