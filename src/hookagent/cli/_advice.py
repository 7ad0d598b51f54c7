"""The command line's advice for situations the library words for Python (see
`hookagent._remedies`): its options and commands instead of `approver=` or `CostLimit(...)`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from hookagent._remedies import NO_APPROVER, UNPRICED_MODEL
from hookagent.sessions._prices import PRICE_REMEDY

__all__ = ["ANSWER_LATER", "CLI_ADVICE"]

ANSWER_LATER: Final = (
    "keep the run in a store with `--session NAME` so the question pauses it, then "
    "`hookagent approve RUN` (or `deny RUN --reason ...`) and `hookagent resume RUN`"
)

CLI_ADVICE: Final[Mapping[str, str]] = MappingProxyType(
    {NO_APPROVER: ANSWER_LATER, UNPRICED_MODEL: PRICE_REMEDY}
)
