"""The `if` field: one Claude Code permission rule tested against a tool call (§4.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookagent.claude._rules import FILE_TOOLS, PermissionRule, compile_rule, split_bash_command

CWD = "/work/project"


def matches(rule: str, tool: str, cwd: str = CWD, **tool_input: Any) -> bool:
    return compile_rule(rule).matches(tool, tool_input, cwd=cwd)


def bash(rule: str, command: str) -> bool:
    return matches(rule, "Bash", command=command)


# ---- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Bash",
        "Bash(git *)",
        "Bash(npm run test:*)",
        "Edit(*.ts)",
        "Edit(src/**)",
        "Read(./.env)",
        "Write",
        "WebFetch(domain:example.com)",
        "mcp__server__tool",
        "Bash(echo $(date))",
        "Bash(echo \\(x\\))",
        "  Bash(ls)  ",
    ],
)
def test_well_formed_rules_compile(text: str) -> None:
    rule = compile_rule(text)
    assert isinstance(rule, PermissionRule)
    assert repr(rule) == text
    assert rule.problem is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "names no tool"),
        ("   ", "names no tool"),
        ("Bash(", "is not closed"),
        ("Bash(git *", "is not closed"),
        ("Bash(git *)x", "is not closed"),
        ("Bash(git *\\)", "is not closed"),
        ("(git *)", "names no tool"),
        ("Bash)", "is not a tool name"),
        ("Ba sh", "is not a tool name"),
        ("Bash git", "is not a tool name"),
        ('"Bash"', "is not a tool name"),
    ],
)
def test_malformed_rules_raise_value_error(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as caught:
        compile_rule(text)
    assert repr(text) in str(caught.value)


# ---- tool names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "tool", "expected"),
    [
        ("Write", "Write", True),
        ("Write", "Edit", False),
        ("Write", "write", False),
        ("Edit", "MultiEdit", False),  # exact, never a search
        ("Bash", "BashOutput", False),
        ("Task", "Agent", True),
        ("Agent", "Task", True),
        ("Task", "TaskCreate", False),
        ("mcp__server__tool", "mcp__server__tool", True),
        ("mcp__server__tool", "mcp__server__tool2", False),
        ("mcp__server__tool", "mcp__server__other", False),
        ("mcp__server", "mcp__server__tool", True),  # permission rules: a bare server
        ("mcp__server", "mcp__server", True),
        ("mcp__server", "mcp__servers__tool", False),
        ("mcp__server__*", "mcp__server__tool", True),
        ("mcp__server__*", "mcp__other__tool", False),
        ("mcp__*", "mcp__any__tool", True),
        ("mcp__*", "Bash", False),
        ("mcp__brave-search__web_search", "mcp__brave-search__web_search", True),
    ],
)
def test_tool_names(rule: str, tool: str, expected: bool) -> None:
    assert matches(rule, tool) is expected


@pytest.mark.parametrize("rule", ["Bash", "Bash()", "Bash(*)"])
def test_a_bare_tool_matches_every_call(rule: str) -> None:
    assert bash(rule, "rm -rf /")
    assert bash(rule, "")
    assert matches(rule, "Bash")  # even with no command at all
    assert not matches(rule, "Edit", file_path="/x")


# ---- Bash ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(git *)", "git push origin main", True),
        ("Bash(git *)", "git", True),  # a single trailing ` *` may match nothing
        ("Bash(git *)", "gitk", False),  # but the space is a word boundary
        ("Bash(git *)", "legit push", False),
        ("Bash(git:*)", "git status", True),  # legacy prefix form
        ("Bash(git:*)", "git", True),
        ("Bash(git:*)", "gitk --all", False),
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test -- --watch", True),
        ("Bash(npm run test:*)", "npm run testing", False),
        ("Bash(npm run test:*)", "npm run build", False),
        ("Bash(ls*)", "lsof -i", True),
        ("Bash(ls*)", "ls -la", True),
        ("Bash(npm run build)", "npm run build", True),
        ("Bash(npm run build)", "npm run build:dev", False),
        ("Bash(npm run build)", "npm run build --prod", False),
        ("Bash(* --version)", "node --version", True),
        ("Bash(* --version)", "node --help", False),
        ("Bash(git * main)", "git push origin main", True),
        ("Bash(git * main)", "git push origin dev", False),
        ("Bash(rm -rf *)", "rm -rf build", True),
        ("Bash(rm -rf *)", "rm build", False),
        ("Bash(echo \\*)", "echo *", True),
        ("Bash(echo \\*)", "echo hi", False),
        ("Bash(python -c *)", "python -c 'print(1)\nprint(2)'", True),
        ("Bash(curl * | bash)", "curl https://x.sh | bash", True),  # the whole command too
    ],
)
def test_bash_patterns(rule: str, command: str, expected: bool) -> None:
    assert bash(rule, command) is expected


@pytest.mark.parametrize(
    ("rule", "command", "expected"),
    [
        ("Bash(rm *)", "git status && rm -rf /", True),
        ("Bash(rm *)", "git status || rm -rf /", True),
        ("Bash(rm *)", "cd /tmp; rm -rf x", True),
        ("Bash(rm *)", "find . -name '*.o' | xargs rm", False),
        ("Bash(xargs rm*)", "find . -name '*.o' | xargs rm", True),
        ("Bash(grep *)", "cat file | grep secret", True),
        ("Bash(grep *)", "cat file |& grep secret", True),
        ("Bash(rm *)", "sleep 10 & rm -rf x", True),
        ("Bash(rm *)", "ls\nrm -rf x", True),
        ("Bash(git push *)", "FOO=1 git push origin", True),
        ("Bash(git push *)", "FOO=1 BAR='a b' BAZ=\"c d\" git push", True),
        ("Bash(git push *)", "cd repo && GIT_TRACE=1 git push --force", True),
        ("Bash(npm test)", "npm test && echo done", True),
        ("Bash(echo done)", "npm test && echo done", True),
        ("Bash(rm *)", "echo 'a && rm -rf /'", False),  # quoted operators do not split
        ("Bash(rm *)", 'echo "a; rm -rf /"', False),
        ("Bash(rm *)", "echo a \\&\\& rm -rf /", False),
        ("Bash(rm *)", "echo $(rm -rf /)", True),  # commands inside substitutions count
        ("Bash(rm *)", "echo `rm -rf /`", True),
        ("Bash(rm *)", 'echo "$(rm -rf /)"', True),
        ("Bash(rm *)", "(cd build && rm -rf out)", True),
        ("Bash(make)", "{ make; }", True),
        ("Bash(rm *)", "if test -d x; then rm -rf x; fi", True),
        ("Bash(rm *)", "for f in *.o; do rm $f; done", True),
        ("Bash(make *)", "make 2>&1 | tee log", True),
        ("Bash(tee log)", "make 2>&1 | tee log", True),
        ("Bash(make *)", "make &>/dev/null", True),
        ("Bash(rm *)", "ls > /dev/null", False),
        ("Bash(git *)", "docker run && npm test", False),
    ],
)
def test_bash_rules_apply_per_subcommand(rule: str, command: str, expected: bool) -> None:
    assert bash(rule, command) is expected


@pytest.mark.parametrize(
    "command",
    ["echo 'unclosed", 'echo "unclosed', "echo $(unclosed", "echo `unclosed", "trailing \\"],
)
def test_an_unparsable_command_counts_as_a_match(command: str) -> None:
    assert split_bash_command(command) is None
    assert bash("Bash(git *)", command)
    assert bash("Bash(never-run-this)", command)


def test_a_non_string_command_does_not_match() -> None:
    assert not matches("Bash(git *)", "Bash", command=["git", "push"])
    assert not matches("Bash(git *)", "Bash")


@pytest.mark.parametrize(
    ("command", "subcommands"),
    [
        ("git status", ["git status"]),
        ("a && b || c ; d | e", ["a", "b", "c", "d", "e"]),
        ("a;;b", ["a", "b"]),
        ("FOO=1 git push", ["git push"]),
        ("FOO=1", ["FOO=1"]),
        ("FOO=$(date) make", ["make", "date"]),
        ("! grep -q x f", ["grep -q x f"]),
        ("echo 'a|b' \"c;d\"", ["echo 'a|b' \"c;d\""]),
        ("echo $(a && b) c", ["echo $(a && b) c", "a", "b"]),
        ("echo $(echo $(date))", ["echo $(echo $(date))", "echo $(date)", "date"]),
        ("cmd 2>&1 >&2 <&0", ["cmd 2>&1 >&2 <&0"]),
        ("cmd >| out", ["cmd >| out"]),
        ("", []),
        ("  ;  ", []),
    ],
)
def test_split_bash_command(command: str, subcommands: list[str]) -> None:
    assert split_bash_command(command) == subcommands


# ---- file tools ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "path", "expected"),
    [
        ("Edit(*.ts)", "/work/project/a.ts", True),
        ("Edit(*.ts)", "/work/project/src/deep/er/a.ts", True),  # at any depth, like gitignore
        ("Edit(*.ts)", "src/a.ts", True),  # relative tool paths resolve against cwd
        ("Edit(*.ts)", "/work/project/a.tsx", False),
        ("Edit(*.ts)", "/elsewhere/a.ts", False),  # outside the pattern's base
        ("Edit(*.ts)", "/work/project/../other/a.ts", False),
        ("Edit(src/**)", "/work/project/src/a.ts", True),
        ("Edit(src/**)", "/work/project/src/x/y/z.py", True),
        ("Edit(src/**)", "/work/project/lib/src/a.ts", False),  # an inner `/` anchors it
        ("Edit(src/**)", "/work/project/src", False),
        ("Edit(src/**/*.ts)", "/work/project/src/a.ts", True),
        ("Edit(src/**/*.ts)", "/work/project/src/a/b/c.ts", True),
        ("Edit(src/**/*.ts)", "/work/project/src/a/b/c.js", False),
        ("Edit(src/*.ts)", "/work/project/src/a/b.ts", False),  # `*` stays in one directory
        ("Edit(**/*.key)", "/work/project/a/b.key", True),
        ("Edit(**/*.key)", "/work/project/b.key", True),
        ("Read(./.env)", "/work/project/.env", True),
        ("Read(./.env)", "/work/project/api/.env", True),  # CC: `./.env` is any .env below cwd
        ("Read(./.env)", "/work/project/.env.local", False),
        ("Read(.env*)", "/work/project/.env.local", True),
        ("Read(/.env)", "/work/project/.env", True),  # a leading `/` anchors at the project
        ("Read(/.env)", "/work/project/api/.env", False),
        ("Read(./src/secrets.txt)", "/work/project/src/secrets.txt", True),
        ("Read(//etc/passwd)", "/etc/passwd", True),
        ("Read(//etc/passwd)", "/work/project/etc/passwd", False),
        ("Read(//etc/**)", "/etc/ssh/sshd_config", True),
        ("Read(//**)", "/anything/at/all", True),
        ("Read(secrets)", "/work/project/a/secrets/key.pem", True),  # a directory covers its files
        ("Read(secrets/)", "/work/project/a/secrets/key.pem", True),
        ("Read(secrets/)", "/work/project/a/secrets", False),  # `/` at the end: directories only
        ("Read(file?.txt)", "/work/project/file1.txt", True),
        ("Read(file?.txt)", "/work/project/file10.txt", False),
        ("Read(file[0-9].txt)", "/work/project/file7.txt", True),
        ("Read(file[!0-9].txt)", "/work/project/file7.txt", False),
        ("Read(file[!0-9].txt)", "/work/project/filex.txt", True),
        ("Read(\\*.txt)", "/work/project/*.txt", True),
        ("Read(\\*.txt)", "/work/project/a.txt", False),
        ("Read(a+b (1).txt)", "/work/project/a+b (1).txt", True),
    ],
)
def test_file_patterns(rule: str, path: str, expected: bool) -> None:
    assert matches(rule, rule.split("(", maxsplit=1)[0], file_path=path) is expected


def test_home_patterns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert matches("Read(~/.ssh/**)", "Read", file_path=f"{tmp_path}/.ssh/id_rsa")
    assert matches("Read(~/**)", "Read", file_path=f"{tmp_path}/a/b")
    assert not matches("Read(~/.ssh/**)", "Read", file_path="/work/project/.ssh/id_rsa")
    assert not matches("Read(~/.ssh/**)", "Read", file_path=f"{tmp_path}/x/.ssh/id_rsa")


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "/work/project/src/a.ts"}),
        ("Write", {"file_path": "/work/project/src/a.ts", "content": ""}),
        ("Edit", {"file_path": "/work/project/src/a.ts"}),
        ("MultiEdit", {"file_path": "src/a.ts", "edits": []}),
        ("NotebookEdit", {"notebook_path": "/work/project/src/a.ts"}),
        ("Glob", {"pattern": "*.ts", "path": "/work/project/src/a.ts"}),
        ("Grep", {"pattern": "x", "path": "src/a.ts"}),
        ("LS", {"path": "/work/project/src/a.ts"}),
    ],
)
def test_every_file_tool_reads_its_path(tool: str, tool_input: dict[str, Any]) -> None:
    assert tool in FILE_TOOLS
    rule = compile_rule(f"{tool}(src/*.ts)")
    assert rule.matches(tool, tool_input, cwd=CWD)
    assert not rule.matches(tool, {**tool_input, **dict.fromkeys(tool_input, "/x/b.py")}, cwd=CWD)


def test_search_tools_default_to_the_cwd() -> None:
    assert matches("Grep(//work/**)", "Grep", pattern="x")
    assert matches("Glob(//work/project/**)", "Glob", pattern="*", cwd="/work/project/sub")
    assert not matches("Grep(//etc/**)", "Grep", pattern="x")
    assert not matches("Read(//work/**)", "Read")  # Read names a file or matches nothing
    assert not matches("LS(//work/**)", "LS")


def test_relative_cwd_and_dot_segments_are_normalised() -> None:
    assert matches("Edit(src/**)", "Edit", cwd="/work/project/", file_path="./src/../src/a.py")
    assert not matches("Edit(src/**)", "Edit", file_path="src/../lib/a.py")


# ---- other tools -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "url", "expected"),
    [
        ("WebFetch(domain:example.com)", "https://example.com/page", True),
        ("WebFetch(domain:example.com)", "http://EXAMPLE.com:8080/x?q=1", True),
        ("WebFetch(domain:example.com)", "https://docs.example.com/", False),
        ("WebFetch(domain:example.com)", "https://example.com.evil.io/", False),
        ("WebFetch(domain:example.com)", "https://notexample.com/", False),
        ("WebFetch(domain:*.example.com)", "https://docs.example.com/", True),
        ("WebFetch(domain:*.example.com)", "https://a.b.example.com/", True),
        ("WebFetch(domain:*.example.com)", "https://example.com/", False),
        ("WebFetch(domain:Example.COM)", "https://example.com/", True),
        ("WebFetch(domain:example.com)", "not a url", False),
        ("WebFetch(domain:example.com)", "http://[::1/", False),
    ],
)
def test_webfetch_domains(rule: str, url: str, expected: bool) -> None:
    assert matches(rule, "WebFetch", url=url, prompt="summarise") is expected


def test_webfetch_without_a_url_does_not_match() -> None:
    assert not matches("WebFetch(domain:example.com)", "WebFetch", prompt="x")


@pytest.mark.parametrize(
    ("rule", "tool", "subagent_type", "expected"),
    [
        ("Agent(Explore)", "Agent", "Explore", True),
        ("Agent(Explore)", "Task", "Explore", True),
        ("Task(Explore)", "Agent", "Explore", True),
        ("Agent(Explore)", "Agent", "Plan", False),
        ("Agent(code-*)", "Agent", "code-reviewer", True),
        ("Agent(code-*)", "Agent", "reviewer", False),
    ],
)
def test_subagent_types(rule: str, tool: str, subagent_type: str, expected: bool) -> None:
    assert matches(rule, tool, subagent_type=subagent_type, prompt="p") is expected


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input"),
    [
        ("WebFetch(example.com)", "WebFetch", {"url": "https://example.com/"}),
        ("WebSearch(python)", "WebSearch", {"query": "python"}),
        ("TodoWrite(x)", "TodoWrite", {"todos": []}),
        ("mcp__server__tool(x)", "mcp__server__tool", {"x": "x"}),
        ("Skill(deploy *)", "Skill", {"skill": "deploy prod"}),
    ],
)
def test_a_specifier_we_cannot_read_never_matches(
    rule: str, tool: str, tool_input: dict[str, Any]
) -> None:
    compiled = compile_rule(rule)
    assert compiled.problem is not None
    assert repr(rule) in compiled.problem
    assert not compiled.matches(tool, tool_input, cwd=CWD)


def test_rules_are_frozen_values() -> None:
    assert compile_rule("Bash(git *)") == compile_rule("Bash(git *)")
    assert hash(compile_rule("Edit(*.ts)")) == hash(compile_rule("Edit(*.ts)"))
    assert compile_rule("Bash(git *)") != compile_rule("Bash(npm *)")
