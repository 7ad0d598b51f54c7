"""`Approvals(rules)`: allow, deny or ask before each tool call, by rule and by tool class.

One policy-tier before_tool guard, `approvals:rules`, tests each call against the rules (given
in code, and read from the project's Claude Code settings files): a deny rule blocks the call
with a reason naming the rule and its file; an ask rule asks a person, with the options
``once``, ``run``, ``session``, ``always`` and ``deny``; an allow rule lets it through without
a vote. A call no rule matches is decided by its class (`classify_tool`): by default safe
(read-only) tools run and destructive ones are asked about.

A call that runs in its tool's sandbox, when the tool says sandboxed calls may run without
asking (`hookagent.tools._sandboxing`: Bash's `auto_allow`, Claude Code's
`autoAllowBashIfSandboxed`), is allowed where the guard would ask, as Claude Code does: deny
rules still deny, and ask rules scoped to the call's content (``Bash(git push *)``, or any
rule with a `when`) still ask; the class default and a rule for the whole tool do not. The
vote is recorded, decided by `AUTO_ALLOWED`. A call outside the sandbox is never allowed so.

Answers that reach further than one call need to be seen, and an `Approver` is called by the
run, not by hooks: `approver(inner)` wraps the approver given to `run` so that this object
sees the answers to its own questions. An approval for the ``run`` or the ``session`` is then
remembered in memory, keyed by the tool and its canonical arguments (the digest the durable
store fingerprints approvals with), and the same call is allowed later without asking;
``always`` adds allow rules for calls like it to `save_to` (`.claude/settings.local.json`),
where this object and Claude Code read them from then on. Runs kept in a store answer through
the store instead, whose approvals have scopes of their own (`durable/_answers.py`);
`hookagent run` wraps its terminal prompt with `remembering(agent, approver)`.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookagent._errors import ConfigError
from hookagent.capabilities.approvals._answers import OPTIONS, Asked, call_key, scope_of, shown_path
from hookagent.capabilities.approvals._options import (
    DEFAULT_UNMATCHED,
    checked_classes,
    checked_unmatched,
    compiled_rules,
)
from hookagent.capabilities.approvals._rules import (
    Class,
    CompiledRule,
    Decision,
    Rule,
    Verdict,
    classify_tool,
    decide,
    suggest_rules,
    summarize_call,
)
from hookagent.capabilities.approvals._settings import append_allow_rules, read_project_permissions
from hookagent.claude._rules import compile_rule
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import RunEvent, ToolCallEvent
from hookagent.hooks._points import BEFORE_TOOL, EXECUTION_END
from hookagent.hooks._result import HookResult
from hookagent.kernel._approval import Answer, Approver, Question
from hookagent.tools._sandboxing import auto_allowed

if TYPE_CHECKING:
    from hookagent._agent import Agent

__all__ = [
    "AUTO_ALLOWED",
    "DEFAULT_UNMATCHED",
    "HOOK_ID",
    "OPTIONS",
    "Approvals",
    "call_key",
    "remembering",
    "scope_of",
]

log = logging.getLogger("hookagent.approvals")

AUTO_ALLOWED: Final = "auto-allowed: runs in the sandbox (autoAllowBashIfSandboxed)"
"""What decision records name as deciding a call allowed because it runs sandboxed."""
HOOK_ID: Final = "approvals:rules"
"""The guard's id, as decision records and questions name it."""


class Approvals(HookProvider):
    """Rules deciding tool calls: ``allow``, ``deny`` or ``ask`` a person.

    `rules` are `Rule` values; with `settings=True` the ``permissions.allow`` / ``deny`` /
    ``ask`` lists of `project_dir`'s ``.claude/settings.json`` and
    ``.claude/settings.local.json`` (and of `save_to`) are read too, once, here. Paths in rules
    and calls are resolved against `project_dir`. `classify` maps tool names (or `fnmatch`
    patterns) to ``"safe"`` or ``"destructive"``, over the defaults; `unmatched` says what a
    call no rule matches gets, by class. `save_to` (relative to `project_dir`; None: never
    save) is where "always" answers write their allow rules.
    """

    name = "approvals"

    def __init__(
        self,
        rules: Iterable[Rule] = (),
        *,
        project_dir: str | os.PathLike[str] = ".",
        settings: bool = True,
        classify: Mapping[str, Class] | None = None,
        unmatched: Mapping[Class, Decision] | None = None,
        save_to: str | os.PathLike[str] | None = ".claude/settings.local.json",
    ) -> None:
        self.project_dir = Path(project_dir).expanduser().absolute()
        self.cwd = os.path.normpath(self.project_dir)
        self.save_to = None if save_to is None else self.project_dir / Path(save_to).expanduser()
        self.classify = checked_classes(classify or {})
        self.unmatched = checked_unmatched(unmatched or {})
        self._code = compiled_rules(rules)
        self.files: tuple[str, ...] = ()
        """The settings files read, in order."""
        self._read: tuple[CompiledRule, ...] = ()
        if settings:
            self.files, self._read = read_project_permissions(self.project_dir, self.save_to)
        self._saved: list[CompiledRule] = []
        self.warnings = tuple(r.rule.problem for r in self.rules if r.rule.problem is not None)
        """Rules that can never match (a specifier hookagent cannot test), and why."""
        self._runs: dict[str, set[str]] = {}
        self._sessions: dict[str | None, set[str]] = {}
        self._asked: dict[tuple[str, str], Asked] = {}

    # -- the rules ------------------------------------------------------------------------
    @property
    def rules(self) -> tuple[CompiledRule, ...]:
        """Every rule in force: in code, then from the settings files, then saved since."""
        return (*self._code, *self._read, *self._saved)

    def classification(self, tool_name: str) -> Class:
        return classify_tool(tool_name, self.classify)

    def decide(self, tool_name: str, args: Mapping[str, Any]) -> Verdict:
        """What the rules say about a call, remembered approvals aside."""
        return decide(
            self.rules,
            tool_name,
            args,
            cwd=self.cwd,
            classification=self.classification(tool_name),
            unmatched=self.unmatched,
        )

    # -- the guard ------------------------------------------------------------------------
    @hook(BEFORE_TOOL, name="rules", tier="policy", kind="guard", quiet=True)
    def check(self, event: ToolCallEvent) -> HookResult | None:
        """Block what a deny rule names, ask about what an ask rule (or the call's class)
        says to, let the rest through without a vote."""
        verdict = self.decide(event.tool_name, event.args)
        if verdict.decision == "allow":
            return None
        if verdict.decision == "deny":
            return HookResult.block(_refusal(verdict)).decided_by(verdict.by)
        if auto_allowed(event.args) and not _scoped(verdict.rule):
            return HookResult.proceed().decided_by(AUTO_ALLOWED)
        run = event.run
        key = call_key(event.tool_name, event.args)
        if self._remembered(key, run.run_id, run.session_id):
            return None
        always = self._always(event.tool_name, event.args, verdict)
        self._asked[(run.run_id, event.call_id)] = Asked(
            tool_name=event.tool_name,
            key=key,
            run_id=run.run_id,
            session_id=run.session_id,
            always=always,
        )
        options = OPTIONS if always else tuple(o for o in OPTIONS if o != "always")
        question = f"Allow {summarize_call(event.tool_name, event.args)}?"
        return HookResult.ask(question, options=options).decided_by(verdict.by)

    @hook(EXECUTION_END, name="forget_run", kind="observer", quiet=True)
    def forget_run(self, event: RunEvent) -> None:
        """Approvals for a run, and its questions nobody answered, end with it."""
        run_id = event.run.run_id
        self._runs.pop(run_id, None)
        for key in [k for k in self._asked if k[0] == run_id]:
            del self._asked[key]

    def _always(self, tool_name: str, args: Mapping[str, Any], verdict: Verdict) -> tuple[str, ...]:
        """The rules "always" would save, or none: not without a file to save them to, and
        not against an ask rule, which outranks any allow rule (Claude Code's precedence)."""
        if self.save_to is None or verdict.rule is not None:
            return ()
        return suggest_rules(tool_name, args, cwd=self.cwd)

    def _remembered(self, key: str, run_id: str, session_id: str | None) -> bool:
        return key in self._runs.get(run_id, ()) or key in self._sessions.get(session_id, ())

    # -- answers --------------------------------------------------------------------------
    def approver(self, inner: Approver) -> Approver:
        """`inner`, seeing the answers to this object's questions: ``run`` and ``session``
        approvals are remembered, ``always`` saves allow rules (see `remember`). The
        question `inner` gets says which rules "always" would save."""

        async def approve(question: Question) -> Answer | bool:
            asked = self._claim(question)
            shown = question
            if asked is not None and asked.always and self.save_to is not None:
                where = shown_path(self.save_to, self.project_dir)
                rules = ", ".join(asked.always)
                text = f"{question.question}\n(always: adds {rules} to {where})"
                shown = replace(question, question=text)
            pending = inner(shown)
            reply: Answer | bool = await pending if inspect.isawaitable(pending) else pending
            if asked is not None and isinstance(reply, Answer) and reply.approved:
                self._remember(asked, scope_of(reply))
            return reply

        return approve

    def remember(self, question: Question, answer: Answer) -> None:
        """Take note of `answer` to `question` (one of this object's): an approval whose
        ``extra["scope"]`` (or `choice`) is ``run`` or ``session`` is remembered for the
        same call in that run or session; ``always`` saves allow rules. For approvers that
        are not wrapped with `approver`."""
        asked = self._claim(question)
        if asked is not None and answer.approved:
            self._remember(asked, scope_of(answer))

    def allow_always(self, rules: Iterable[str]) -> list[str]:
        """Append allow rules to `save_to` and apply them at once; their keys in the file."""
        if self.save_to is None:
            raise ConfigError("this Approvals has no save_to file", key="save_to")
        texts = list(rules)
        compiled = [compile_rule(text) for text in texts]  # checked before the file changes
        keys = append_allow_rules(self.save_to, texts)
        file = os.fspath(self.save_to)
        known = {(r.file, r.text) for r in self.rules}
        for rule, key in zip(compiled, keys, strict=True):
            if (file, rule.source) not in known:
                known.add((file, rule.source))
                self._saved.append(CompiledRule(rule=rule, decision="allow", file=file, key=key))
        return keys

    def _claim(self, question: Question) -> Asked | None:
        if question.hook != HOOK_ID or question.call_id is None:
            return None
        asked = self._asked.pop((question.run_id, question.call_id), None)
        if asked is not None or question.tool_name is None:
            return asked
        # Not raised in this process (a durable run resumed): rebuild it from the question.
        args = question.args or {}
        verdict = self.decide(question.tool_name, args)
        if verdict.decision != "ask":
            return None
        return Asked(
            tool_name=question.tool_name,
            key=call_key(question.tool_name, args),
            run_id=question.run_id,
            session_id=None,
            always=self._always(question.tool_name, args, verdict),
        )

    def _remember(self, asked: Asked, scope: str | None) -> None:
        if scope == "always" and asked.always:
            try:
                self.allow_always(asked.always)
                return
            except (ConfigError, OSError, ValueError) as exc:
                log.warning("could not save %s: %s; approved for this session", asked.always, exc)
            scope = "session"
        elif scope == "always":
            scope = "session"  # nothing to save: the nearest scope that still holds
        if scope == "run":
            self._runs.setdefault(asked.run_id, set()).add(asked.key)
        elif scope == "session":
            self._sessions.setdefault(asked.session_id, set()).add(asked.key)

    def __repr__(self) -> str:
        return f"Approvals({len(self.rules)} rules, project_dir={str(self.project_dir)!r})"


def remembering(agent: Agent, approver: Approver) -> Approver:
    """`approver`, wrapped by every `Approvals` installed in `agent` (see
    `Approvals.approver`); unchanged if there is none."""
    seen: set[int] = set()
    for installed in agent.registry.at(BEFORE_TOOL):
        owner = getattr(installed.fn, "__self__", None)
        if isinstance(owner, Approvals) and id(owner) not in seen:
            seen.add(id(owner))
            approver = owner.approver(approver)
    return approver


def _scoped(rule: CompiledRule | None) -> bool:
    """Whether an ask rule looks at the call's content, and so asks even for a sandboxed call."""
    return rule is not None and (rule.rule.specifier is not None or rule.when is not None)


def _refusal(verdict: Verdict) -> str:
    """Why a call is refused, as the model reads it after "Tool call 'x' was blocked by
    approvals:rules: "."""
    rule = verdict.rule
    if rule is None:
        return (
            f"no rule allows it, and {verdict.classification} tools' calls that no rule "
            "matches are denied"
        )
    because = f": {rule.reason}" if rule.reason else ""
    return f"denied by rule {rule.origin}{because}"
