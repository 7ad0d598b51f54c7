"""`Approvals`' arguments, checked once on entry: a bad rule, class or decision is a
`ConfigError` naming its key (``rules[2]``, ``classify['Bash']``) before any call is judged."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from hookagent._errors import ConfigError, check_choice
from hookagent.capabilities.approvals._rules import (
    CLASSES,
    DECISIONS,
    Class,
    CompiledRule,
    Decision,
    Rule,
)
from hookagent.claude._rules import compile_rule

__all__ = ["DEFAULT_UNMATCHED", "checked_classes", "checked_unmatched", "compiled_rules"]

DEFAULT_UNMATCHED: Final[Mapping[Class, Decision]] = {"safe": "allow", "destructive": "ask"}


def compiled_rules(rules: Iterable[Rule]) -> tuple[CompiledRule, ...]:
    """The rules given in code, compiled, each keyed ``rules[i]`` for errors and records."""
    return tuple(_compile(rule, index) for index, rule in enumerate(rules))


def _compile(rule: Rule, index: int) -> CompiledRule:
    key = f"rules[{index}]"
    if not isinstance(rule, Rule):
        raise ConfigError(
            f"expected a Rule(match, decision), got {rule!r:.60}", key=key, value=rule
        )
    check_choice(rule.decision, DECISIONS, key=key, what="decision")
    if rule.when is not None and not callable(rule.when):
        raise ConfigError("when must be a function of the call's arguments", key=key)
    try:
        compiled = compile_rule(rule.match)
    except ValueError as exc:
        raise ConfigError(str(exc), key=key, value=rule.match) from None
    return CompiledRule(
        rule=compiled, decision=rule.decision, when=rule.when, reason=rule.reason, key=key
    )


def checked_classes(classify: Mapping[str, Class]) -> dict[str, Class]:
    for name, kind in classify.items():
        check_choice(kind, CLASSES, key=f"classify[{name!r}]")
    return dict(classify)


def checked_unmatched(unmatched: Mapping[Class, Decision]) -> dict[Class, Decision]:
    """`unmatched` over `DEFAULT_UNMATCHED`: what a call no rule matches gets, by class."""
    merged = {**DEFAULT_UNMATCHED, **unmatched}
    for kind, decision in merged.items():
        if kind not in CLASSES:
            raise ConfigError(
                f'the classes are "safe" and "destructive", not {kind!r}', key="unmatched"
            )
        check_choice(decision, DECISIONS, key=f"unmatched[{kind!r}]")
    return merged
