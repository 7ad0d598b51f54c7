"""`Bash(sandbox=..., network=..., writable=..., deny_paths=...)`: what each mode does when
the sandbox can and cannot be had, and the settings refused when built."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from hookagent._errors import ConfigError
from hookagent._messages import ToolCall
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.capabilities.bash import _sandbox_config as sandbox_config
from hookagent.capabilities.bash._sandbox import Probe
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult

NONE_HERE = Probe(None, "bwrap (bubblewrap) is not installed")


async def run(bash: Bash, command: str) -> ToolResult:
    (tool,) = bash.tools()
    view = RunView(RunState(run_id="run-1"))
    view.files_root = bash.root / ".hookagent"
    args: dict[str, Any] = {"command": command}
    return await tool(args, ToolContext(run=view, call=ToolCall(id="c1", name="Bash", args=args)))


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_config, "probe_bwrap", lambda: NONE_HERE)


@pytest.mark.usefixtures("no_sandbox")
async def test_auto_without_a_sandbox_runs_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bash = Bash(tmp_path)
    with caplog.at_level(logging.WARNING, logger="hookagent.bash"):
        first = await run(bash, "echo hi")
        second = await run(bash, "echo again")
    assert first.content == "hi" and second.content == "again"
    for result in (first, second):
        assert result.data["sandbox"]["active"] is False
        assert result.data["sandbox"]["reason"] == NONE_HERE.reason
    [warning] = caplog.records
    assert warning.getMessage() == f"Bash commands run WITHOUT a sandbox: {NONE_HERE.reason}"


@pytest.mark.usefixtures("no_sandbox")
def test_required_without_a_sandbox_is_refused_when_built(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no sandbox is available: bwrap .* not installed"):
        Bash(tmp_path, sandbox="required")


async def test_required_refuses_each_call_when_the_sandbox_is_gone(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bash = Bash(tmp_path, sandbox="required")
    monkeypatch.setattr(sandbox_config, "probe_bwrap", lambda: NONE_HERE)
    result = await run(bash, "touch made")
    assert result.is_error
    assert result.content == f"Bash requires a sandbox and none is available: {NONE_HERE.reason}"
    assert not (tmp_path / "made").exists()


async def test_off_runs_unsandboxed_by_choice(tmp_path: Path) -> None:
    result = await run(Bash(tmp_path, sandbox="off"), "true")
    assert result.data["sandbox"]["active"] is False
    assert result.data["sandbox"]["mode"] == "off"


async def test_the_profile_is_in_the_result_data(bwrap: str, tmp_path: Path) -> None:
    extra = tmp_path / "cache"
    extra.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    bash = Bash(root, BashPolicy(), writable=[extra], deny_paths=["~/.ssh", tmp_path / "x"])
    result = await run(bash, f"echo ok > {extra}/made")
    assert not result.is_error, result.content
    assert (extra / "made").read_text() == "ok\n"
    assert result.data["sandbox"] == {
        "active": True,
        "mode": "auto",
        "writable": [str(root.resolve()), str(extra.resolve())],
        "deny": [  # the run's own .hookagent folder is always denied
            str(Path("~/.ssh").expanduser().resolve()),
            str((tmp_path / "x").resolve()),
            str((root / ".hookagent").resolve()),
        ],
        "network": "off",
    }


async def test_a_missing_writable_path_is_an_error_result(bwrap: str, tmp_path: Path) -> None:
    result = await run(Bash(tmp_path, writable=[tmp_path / "gone"]), "true")
    assert result.is_error
    assert result.content == f"Writable path {(tmp_path / 'gone').resolve()} does not exist"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sandbox": "yes"}, r"Bash\(sandbox\): must be 'auto', 'required' or 'off'"),
        ({"network": "on"}, r"Bash\(network\): must be 'off', 'allow' or a list of domains"),
        ({"network": ["pypi org"]}, r"Bash\(network\): 'pypi org' is not a host name"),
        ({"writable": "/srv"}, r"Bash\(writable\): takes a sequence of paths, not one"),
        ({"deny_paths": "~/.ssh"}, r"Bash\(deny_paths\): takes a sequence of paths, not one"),
    ],
)
def test_bad_settings_are_refused_naming_them(
    tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        Bash(tmp_path, **kwargs)
