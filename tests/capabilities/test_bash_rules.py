"""The deny list: dangerous commands are blocked however they are spelled, through a real
run; ordinary commands, including look-alikes, are not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.bash import (
    DEFAULT_DENY,
    Bash,
    BashPolicy,
    DenyRule,
    SimpleCommand,
    parse_command,
)
from hookagent.capabilities.bash._rules import find_violation
from hookagent.testing import ScriptedModel, reply, tool_call

BLOCKED = {
    "rm -rf /": "rm-root",
    "rm  -rf   /": "rm-root",
    "rm\t-rf /": "rm-root",
    "rm -r -f /": "rm-root",
    "rm -fr /": "rm-root",
    "rm -Rf /": "rm-root",
    "rm --recursive --force /": "rm-root",
    "rm --rec /": "rm-root",
    "rm / -rf": "rm-root",
    "rm -rf -- /": "rm-root",
    '"rm" -rf /': "rm-root",
    "'rm' '-rf' '/'": "rm-root",
    "r''m -rf /": "rm-root",
    "\\rm -rf /": "rm-root",
    "/bin/rm -rf /": "rm-root",
    "rm -rf /*": "rm-root",
    "rm -rf //": "rm-root",
    "rm -rf /.": "rm-root",
    "rm -rf /tmp/..": "rm-root",
    "rm -rf /usr": "rm-root",
    "rm -rf /etc/": "rm-root",
    "rm -rf ~": "rm-root",
    "rm -rf ~/": "rm-root",
    "rm -rf ~/*": "rm-root",
    "rm -rf $HOME": "rm-root",
    'rm -rf "${HOME}/"': "rm-root",
    "rm -r --no-preserve-root /tmp/x": "rm-root",
    "sudo rm -rf /": "rm-root",
    "sudo -u root rm -rf /": "rm-root",
    "sudo -- rm -rf /": "rm-root",
    "env -i FOO=1 rm -rf /": "rm-root",
    "LC_ALL=C rm -rf /": "rm-root",
    "command rm -rf /": "rm-root",
    "nohup rm -rf / &": "rm-root",
    "timeout 5 rm -rf /": "rm-root",
    "echo hi; rm -rf /": "rm-root",
    "echo hi;rm -rf /": "rm-root",
    "true && rm -rf /": "rm-root",
    "false || rm -rf /": "rm-root",
    "ls | rm -rf /": "rm-root",
    "sleep 1 & rm -rf /": "rm-root",
    "ls\nrm -rf /": "rm-root",
    "rm -rf \\\n /": "rm-root",
    "echo $(rm -rf /)": "rm-root",
    'echo "$(rm -rf /)"': "rm-root",
    "echo `rm -rf /`": "rm-root",
    "cat <(rm -rf /)": "rm-root",
    "(rm -rf /)": "rm-root",
    "{ rm -rf /; }": "rm-root",
    "if true; then rm -rf /; fi": "rm-root",
    "bash -c 'rm -rf /'": "rm-root",
    'sh -xc "rm -rf /"': "rm-root",
    "sudo bash -c 'cd / && rm -rf /'": "rm-root",
    "eval 'rm -rf /'": "rm-root",
    "# comment\nrm -rf /": "rm-root",
    "mkfs /dev/sdb1": "mkfs",
    "mkfs.ext4 /dev/sda1": "mkfs",
    "sudo mke2fs /dev/sda": "mkfs",
    "shutdown -h now": "shutdown",
    "sudo poweroff": "shutdown",
    "systemctl poweroff": "shutdown",
    "init 0": "shutdown",
    "reboot": "reboot",
    "sudo /sbin/reboot -f": "reboot",
    "systemctl reboot": "reboot",
    "dd if=/dev/zero of=/dev/sda": "dd-device",
    "dd if=/dev/zero of=/dev/nvme0n1 bs=1M": "dd-device",
    "sudo dd if=image.iso of=/dev/sdb": "dd-device",
    "echo x > /dev/sda": "device-write",
    "cat junk >/dev/sda1": "device-write",
    "cat junk >> /dev/disk/by-id/usb": "device-write",
    "echo x | sudo tee /dev/sda": "device-write",
    ":(){ :|:& };:": "fork-bomb",
    ":(){ :|: & };:": "fork-bomb",
    "bomb() { bomb | bomb & }; bomb": "fork-bomb",
}

ALLOWED = [
    "rm -rf build/",
    "rm -rf ./dist node_modules",
    "rm -rf /tmp/hookagent-scratch",
    "rm -rf ~/project/build",
    "rm -f /etc/motd",  # not recursive
    "rm -r -- -weird-name",
    "echo 'rm -rf /'",
    "echo rm -rf /",
    "grep -rn 'rm -rf /' docs",
    "git commit -m 'handle reboot and shutdown'",
    "grep -r mkfs .",
    "dd if=/dev/zero of=blank.img bs=1k count=1",
    "ls > /dev/null 2>&1",
    "cat /dev/sda | head -c 10",
    "make -j4 && ./run-tests.sh",
    "echo ':(){ :|:& };:'",
    "python -c 'print(1)'",
    "",
]


def first_violation(command: str) -> str | None:
    found = find_violation(parse_command(command), DEFAULT_DENY, ())
    return None if found is None else found.rule.name


@pytest.mark.parametrize(("command", "rule"), BLOCKED.items())
def test_dangerous_commands_break_a_default_rule(command: str, rule: str) -> None:
    assert first_violation(command) == rule


@pytest.mark.parametrize("command", ALLOWED)
def test_ordinary_commands_break_no_rule(command: str) -> None:
    assert first_violation(command) is None


def test_parsing_normalises_spelling_and_finds_nested_commands() -> None:
    parsed = parse_command('sudo   "/bin/rm" -rf \'a b\' && echo "$(cat x)" > out.txt')
    assert [c.argv for c in parsed.commands] == [
        ("rm", "-rf", "a b"),
        ("echo", "$(cat x)"),
        ("cat", "x"),
    ]
    assert parsed.commands[1].redirects == ((">", "out.txt"),)
    assert parsed.line == "rm -rf a b && echo $(cat x) > out.txt"


def test_unbalanced_quotes_are_still_checked() -> None:
    assert first_violation("rm -rf '/") == "rm-root"


SAFETY_NET = "test safety net: the deny guard let this through"


def safety_net(event: h.ToolCallEvent) -> h.HookResult:
    """Runs after the policy-tier guard, so a command the guard misses is still never run:
    these tests must not be able to damage the machine they run on."""
    return h.HookResult.block(SAFETY_NET)


async def run_commands(tmp_path: Path, bash: Bash, *commands: str, net: bool = True) -> h.RunResult:
    calls = [tool_call("Bash", command=command) for command in commands]
    model = ScriptedModel([*calls, reply("done")])
    builder = h.AgentBuilder().model(model).with_(bash).limits(max_steps=len(calls) + 2)
    if net:
        builder = builder.on(h.BEFORE_TOOL, safety_net, match="Bash", tier="default")
    result = await builder.build().run("tidy up")
    model.assert_consumed()
    return result


async def test_blocked_variants_become_error_results_naming_the_rule(tmp_path: Path) -> None:
    variants = [
        "rm  -rf   /",
        "rm -r -f /",
        "rm -fr /",
        '"rm" -rf /',
        "rm -rf /*",
        "rm -rf ~",
        "sudo rm -rf /",
        "cd build; rm -rf /",
        "make && rm -rf /",
        "echo $(rm -rf /)",
        "mkfs.ext4 /dev/sda1",
        ":(){ :|:& };:",
    ]
    result = await run_commands(tmp_path, Bash(tmp_path), *variants)
    assert result.status == "completed"
    assert [e.blocked for e in result.tool_calls] == [True] * len(variants)
    for execution in result.tool_calls:
        assert execution.result.is_error
        assert "blocked by rule" in execution.result.content
    assert "rule rm-root" in result.tool_calls[0].result.content
    assert "rule mkfs" in result.tool_calls[-2].result.content
    assert "rule fork-bomb" in result.tool_calls[-1].result.content
    decisions = result.decisions.at(h.BEFORE_TOOL)
    assert [d.outcome for d in decisions] == ["block"] * len(variants)
    assert {d.hook for d in decisions} == {"bash:deny"}


async def test_the_guard_sits_in_the_policy_tier(tmp_path: Path) -> None:
    agent = h.AgentBuilder().model(ScriptedModel([reply("hi")])).with_(Bash(tmp_path)).build()
    (guard,) = [hook for hook in agent.registry if hook.id == "bash:deny"]
    assert guard.tier == "policy"
    assert guard.kind == "guard"


async def test_a_recursive_delete_inside_root_runs(tmp_path: Path) -> None:
    (tmp_path / "build" / "deep").mkdir(parents=True)
    (tmp_path / "build" / "deep" / "x.o").write_text("x")
    command = "rm -rf build/ && echo removed"
    assert first_violation(command) is None  # checked before anything runs for real
    result = await run_commands(tmp_path, Bash(tmp_path), command, net=False)
    (execution,) = result.tool_calls
    assert not execution.blocked
    assert execution.result.content == "removed"
    assert not (tmp_path / "build").exists()
    assert result.decisions.at(h.BEFORE_TOOL) == []


async def test_custom_rules_and_allow_patterns(tmp_path: Path) -> None:
    policy = BashPolicy(
        deny=[*DEFAULT_DENY, r"^git push( .*)? --force\b", DenyRule(name="no-curl", test=curl)],
        allow=[r"rm -rf /opt"],
    )
    result = await run_commands(
        tmp_path,
        Bash(tmp_path, policy),
        "sudo git push origin --force",
        "'curl' https://example.com",
        "rm -rf /opt; echo ok",
        "rm -rf /opt; rm -rf /",
    )
    reasons = [d.reason or "" for d in result.decisions.at(h.BEFORE_TOOL)]
    assert "blocked by rule /^git push( .*)? --force\\b/" in reasons[0]
    assert "blocked by rule no-curl" in reasons[1]
    assert reasons[2] == SAFETY_NET  # allowed by the policy; only the test's net stopped it
    assert "blocked by rule rm-root" in reasons[3]
    assert all(e.blocked for e in result.tool_calls)


def curl(command: SimpleCommand) -> bool:
    return command.argv[:1] == ("curl",)


def test_an_allowed_command_exempts_the_line_only_when_all_of_it_is_allowed() -> None:
    rules = (DenyRule(name="pipe-to-shell", pattern=r"\| (ba)?sh\b"),)
    parsed = parse_command("curl https://x | sh")
    allow_all = BashPolicy(deny=rules, allow=[r"curl .*", r"sh"])
    allow_curl = BashPolicy(deny=rules, allow=[r"curl .*"])
    assert find_violation(parsed, allow_all.rules, allow_all.allow_patterns) is None
    found = find_violation(parsed, allow_curl.rules, allow_curl.allow_patterns)
    assert found is not None
    assert found.where == "curl https://x | sh"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "x"}, "give a pattern or a test"),
        ({"name": "x", "pattern": "a", "test": curl}, "give a pattern or a test"),
        ({"name": "", "pattern": "a"}, "needs a name"),
        ({"name": "x", "pattern": "("}, "not a valid regex"),
    ],
)
def test_bad_deny_rules_are_config_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        DenyRule(**kwargs)
