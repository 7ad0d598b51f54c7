"""Structured output: runs that end in a validated object (see `capability`)."""

from hookagent.capabilities.structured_output._capability import (
    STRUCTURED_OUTPUT,
    OutputMode,
    StructuredOutput,
)
from hookagent.capabilities.structured_output._schema import OutputSchema

__all__ = ["STRUCTURED_OUTPUT", "OutputMode", "OutputSchema", "StructuredOutput"]
