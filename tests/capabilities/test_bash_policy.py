"""BashPolicy checks its limits when built; the environment scrub keeps what it should."""

from __future__ import annotations

from typing import Any

import pytest

from hookagent._errors import ConfigError
from hookagent.capabilities.bash import DEFAULT_DENY, BashPolicy, DenyRule
from hookagent.capabilities.bash._env import command_env


def test_defaults_follow_the_reference() -> None:
    policy = BashPolicy()
    assert (policy.default_timeout_s, policy.max_timeout_s) == (120.0, 600.0)
    assert (policy.max_output, policy.output_head, policy.output_tail) == (32768, 8192, 24576)
    assert (policy.keep_head, policy.keep_tail) == (32768, 98304)
    assert policy.rules == DEFAULT_DENY
    assert {rule.name for rule in DEFAULT_DENY} >= {"rm-root", "mkfs", "shutdown", "reboot"}


@pytest.mark.parametrize(
    "field",
    [
        "default_timeout_s",
        "max_timeout_s",
        "kill_grace_s",
        "max_output",
        "output_head",
        "output_tail",
        "keep_head",
        "keep_tail",
    ],
)
@pytest.mark.parametrize("value", [0, -1, True, "10"])
def test_zero_negative_or_non_numeric_limits_are_config_errors(field: str, value: Any) -> None:
    with pytest.raises(ConfigError, match=rf"BashPolicy\({field}\)") as raised:
        BashPolicy(**{field: value})
    assert raised.value.value == value


@pytest.mark.parametrize(
    ("kwargs", "key"),
    [
        ({"default_timeout_s": 700}, "default_timeout_s"),
        ({"max_output": 1000, "output_head": 800, "output_tail": 800}, "output_head"),
        ({"output_head": 40_000, "max_output": 100_000}, "output_head"),
        ({"max_output": 200_000, "output_tail": 100_000}, "output_tail"),
        ({"max_output": 200_000}, "max_output"),
        ({"max_output": 1.5}, "max_output"),
        ({"deny": "rm"}, "deny"),
        ({"allow": "ls"}, "allow"),
        ({"allow": ["("]}, "allow"),
        ({"deny": ["("]}, "DenyRule"),
        ({"extra_env": {"A": 1}}, "extra_env"),
        ({"extra_env": {"A=B": "x"}}, "extra_env"),
        ({"extra_env": {"HOOKAGENT_IDEMPOTENCY_KEY": "x"}}, "idempotency key"),
    ],
)
def test_inconsistent_settings_are_config_errors(kwargs: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        BashPolicy(**kwargs)


def test_str_rules_become_regex_rules_named_after_their_pattern() -> None:
    policy = BashPolicy(deny=["^curl .*\\| *sh", DenyRule(name="x", pattern="y")])
    assert [rule.name for rule in policy.rules] == ["/^curl .*\\| *sh/", "x"]
    assert policy.rules[0].regex is not None


def test_the_policy_is_frozen() -> None:
    policy = BashPolicy(extra_env={"A": "1"})
    with pytest.raises(AttributeError):
        policy.max_output = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        policy.extra_env["B"] = "2"  # type: ignore[index]


HOST = {
    "PATH": "/usr/bin",
    "HOME": "/home/me",
    "LANG": "C.UTF-8",
    "LD_PRELOAD": "evil.so",
    "LD_LIBRARY_PATH": "/x",
    "DYLD_INSERT_LIBRARIES": "evil.dylib",
    "PYTHONPATH": "/x",
    "PYTHONSTARTUP": "/x/start.py",
    "NODE_OPTIONS": "--require evil",
    "NPM_CONFIG_TOKEN": "t",
    "PIP_INDEX_URL": "https://x",
    "RUBYOPT": "-revil",
    "GEM_HOME": "/x",
    "PHPRC": "/x",
    "AWS_ACCESS_KEY_ID": "AKIA",
    "AWS_SECRET_ACCESS_KEY": "s",
    "AWS_SESSION_TOKEN": "t",
    "AZURE_CLIENT_SECRET": "s",
    "GOOGLE_APPLICATION_CREDENTIALS": "/x.json",
    "CLOUDSDK_AUTH_ACCESS_TOKEN_FILE": "/x",
    "GCP_SA_KEY": "k",
    "OPENAI_API_KEY": "sk",
    "ANTHROPIC_API_KEY": "sk",
    "GITHUB_TOKEN": "ghp",
    "SLACK_BOT_TOKEN": "x",
    "DB_PASSWORD": "pw",
    "STRIPE_SECRET_KEY": "sk",
    "BASH_ENV": "/x",
    "BASH_FUNC_ls%%": "() { rm -rf ~; }",
}


def test_the_scrub_drops_hooks_credentials_and_secrets() -> None:
    assert command_env(HOST) == {"PATH": "/usr/bin", "HOME": "/home/me", "LANG": "C.UTF-8"}


def test_names_are_matched_case_insensitively() -> None:
    assert command_env({"github_token": "x", "ld_preload": "y", "editor": "vi"}) == {"editor": "vi"}


def test_allowed_names_are_kept_and_extra_variables_added_last() -> None:
    env = command_env(HOST, allow=["AWS_REGION", "PYTHON*"], extra={"PATH": "/opt/bin", "X": "1"})
    assert env["PYTHONPATH"] == "/x"
    assert env["PATH"] == "/opt/bin"
    assert env["X"] == "1"
    assert "AWS_SECRET_ACCESS_KEY" not in env
