"""Token usage, added up per step and per run."""

from __future__ import annotations

from dataclasses import dataclass
from typing import final

__all__ = ["Usage"]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            requests=self.requests + other.requests,
        )
