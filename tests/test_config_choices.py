"""A setting that takes one of a few values refuses any other with one message: the key, every
value it takes, and the value given."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import check_choice
from hookagent.capabilities.approvals import Approvals, Rule
from hookagent.capabilities.audit import AuditTrail
from hookagent.capabilities.files import FileTools
from hookagent.capabilities.structured_output import StructuredOutput
from hookagent.hooks._hook import make_hook


def _noop(event: Any) -> None:
    return None


CASES: list[tuple[str, Callable[[Path], object], str]] = [
    (
        "audit",
        lambda tmp: AuditTrail(tmp / "audit.jsonl", on_failure="ignore"),  # type: ignore[arg-type]
        "AuditTrail(on_failure): must be 'raise', 'block' or 'proceed', not 'ignore'",
    ),
    (
        "structured output",
        lambda tmp: StructuredOutput(dict, mode="json"),  # type: ignore[arg-type]
        "StructuredOutput(mode): must be 'auto', 'native' or 'tool', not 'json'",
    ),
    (
        "grep engine",
        lambda tmp: FileTools(tmp, search="rg"),  # type: ignore[arg-type]
        "search: must be 'auto', 'ripgrep' or 'python', not 'rg'",
    ),
    (
        "error policy",
        lambda tmp: h.ErrorPolicy({"tool": "explode"}),  # type: ignore[dict-item]
        "ErrorPolicy: action for 'tool' must be 'stop', 'retry' or 'ignore', not 'explode'",
    ),
    (
        "approval rule",
        lambda tmp: Approvals([Rule("Bash", "maybe")], project_dir=tmp),  # type: ignore[arg-type]
        "rules[0]: decision must be 'allow', 'deny' or 'ask', not 'maybe'",
    ),
    (
        "approval class",
        lambda tmp: Approvals(project_dir=tmp, classify={"Bash": "risky"}),  # type: ignore[dict-item]
        "classify['Bash']: must be 'safe' or 'destructive', not 'risky'",
    ),
    (
        "hook on_failure",
        lambda tmp: make_hook(h.BEFORE_TOOL, _noop, name="g", on_failure="ignore"),  # type: ignore[arg-type]
        "on_failure must be 'block', 'proceed' or 'raise', not 'ignore'",
    ),
]


@pytest.mark.parametrize(("setting", "build", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_value_outside_the_choices_is_refused_by_name(
    tmp_path: Path, setting: str, build: Callable[[Path], object], message: str
) -> None:
    with pytest.raises(h.ConfigError, match=re.escape(message)):
        build(tmp_path)


def test_check_choice_keeps_the_value_and_passes_a_listed_one() -> None:
    check_choice("b", ("a", "b"), key="k")
    with pytest.raises(h.ConfigError) as caught:
        check_choice(3, ("a",), key="k", what="size")
    assert str(caught.value) == "k: size must be 'a', not 3"
    assert (caught.value.key, caught.value.value) == ("k", 3)
