"""Where warnings about an agent being built go: standard error, as the command line's own."""

from __future__ import annotations

import sys

__all__ = ["warn"]


def warn(line: str) -> None:
    print(f"warning: {line}", file=sys.stderr)
