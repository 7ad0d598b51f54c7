"""Running one command handler: argv, stdin, environment, timeouts, output caps, parallelism.

Every test runs real hook scripts from `scripts/` in real processes.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from hookagent.claude._model import HandlerSpec, ProcessOutcome, SettingsSource
from hookagent.claude._runner import STDERR_KEEP, default_timeout, run_all, run_handler

SCRIPTS = Path(__file__).parent / "scripts"
PY = shlex.quote(sys.executable)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

PAYLOAD: dict[str, Any] = {
    "session_id": "sess-1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/work",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "echo 'héllo' \"✓\"", "description": "greet"},
    "tool_use_id": "toolu_1",
}


def spec(
    command: str,
    *,
    event: str = "PreToolUse",
    args: tuple[str, ...] | None = None,
    shell: str | None = None,
    timeout: float | None = None,
    plugin_root: str | None = None,
) -> HandlerSpec:
    source = SettingsSource(
        path="settings.json", kind="plugin" if plugin_root else "project", plugin_root=plugin_root
    )
    return HandlerSpec(
        event=event,
        matcher=None,
        type="command",
        command=command,
        args=args,
        shell=shell,
        timeout=timeout,
        source=source,
        where=f"hooks.{event}[0].hooks[0]",
    )


async def run(handler: HandlerSpec, tmp_path: Path, **kw: Any) -> ProcessOutcome:
    kw.setdefault("timeout", 10.0)
    return await run_handler(
        handler, kw.pop("payload", PAYLOAD), cwd=str(tmp_path), project_dir=str(SCRIPTS), **kw
    )


def live_members(pgid: int) -> list[int]:
    """Processes of group `pgid` that are not zombies (a container's init may never reap)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(stat.parent.name))
    return members


async def group_is_gone(pgid: int) -> bool:
    """True once no member of `pgid` is alive; a killed process closes its pipes a moment
    before /proc shows it dead, so allow that moment."""
    for _ in range(100):
        if not live_members(pgid):
            return True
        await asyncio.sleep(0.01)
    return False


# stdin and environment ----------------------------------------------------------------------


async def test_stdin_is_one_compact_json_line_without_newline() -> None:
    outcome = await run(spec(f"{PY} emit.py --echo-input"), SCRIPTS)
    assert outcome.exit_code == 0
    assert outcome.stdout == json.dumps(PAYLOAD, separators=(",", ":"), ensure_ascii=False)
    assert "\n" not in outcome.stdout
    assert "héllo" in outcome.stdout  # raw UTF-8, as JSON.stringify writes it


async def test_read_r_line_script_sees_payload_env_and_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector")
    monkeypatch.setenv("CLAUDE_ENV_FILE", "/inherited/must/not/leak")
    env_file = tmp_path / "env.sh"
    handler = spec('sh "$CLAUDE_PROJECT_DIR/read_line.sh"', plugin_root="/plugins/p1")
    outcome = await run(handler, tmp_path, session_id="sess-1", env_file=str(env_file))
    assert outcome.exit_code == 0, outcome.stderr
    seen = json.loads(outcome.stdout)
    assert seen == {
        "payload": PAYLOAD,
        "project": str(SCRIPTS),
        "claudecode": "1",
        "session": "sess-1",
        "env_file": str(env_file),
        "plugin_root": "/plugins/p1",
        "otel": "",
        "pwd": str(tmp_path),
    }


async def test_per_hook_variables_are_unset_when_not_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_ENV_FILE", "/inherited")
    monkeypatch.setenv("HOOKAGENT_HOST_VAR", "kept")
    command = 'printf "%s|%s|%s" "${CLAUDE_ENV_FILE-unset}" "${CLAUDE_PLUGIN_ROOT-unset}" '
    outcome = await run(spec(command + '"$HOOKAGENT_HOST_VAR"'), tmp_path)
    assert outcome.stdout == "unset|unset|kept"


# argv forms --------------------------------------------------------------------------------


async def test_exec_form_passes_args_without_a_shell(tmp_path: Path) -> None:
    handler = spec(
        sys.executable,
        args=(str(SCRIPTS / "emit.py"), "--stdout", "a b; $HOME `id`", "--exit", "3"),
    )
    outcome = await run(handler, tmp_path)
    assert (outcome.exit_code, outcome.stdout) == (3, "a b; $HOME `id`")


async def test_exec_form_missing_executable_cannot_start(tmp_path: Path) -> None:
    outcome = await run(spec("/no/such/hook", args=("x",)), tmp_path)
    assert outcome.exit_code is None
    assert not outcome.timed_out
    assert outcome.error is not None and "/no/such/hook" in outcome.error


async def test_shell_form_missing_script_is_exit_127(tmp_path: Path) -> None:
    outcome = await run(spec("/no/such/hook.sh --flag"), tmp_path)
    assert outcome.exit_code == 127
    assert outcome.error is None
    assert "not found" in outcome.stderr.lower()


async def test_shell_bash_runs_bash(tmp_path: Path) -> None:
    outcome = await run(spec('echo "${BASH_VERSION:+bash}"', shell="bash"), tmp_path)
    assert outcome.stdout.strip() == "bash"


@needs_node
async def test_node_hook(tmp_path: Path) -> None:
    handler = spec('node "$CLAUDE_PROJECT_DIR/emit.js" \'{"ok":true}\' 2 "why"')
    outcome = await run(handler, tmp_path)
    assert (outcome.exit_code, outcome.stdout, outcome.stderr) == (2, '{"ok":true}', "why")


def test_default_timeouts() -> None:
    assert default_timeout("PreToolUse") == 600
    assert default_timeout("Stop") == 600
    assert default_timeout("UserPromptSubmit") == 30
    assert default_timeout("SessionEnd") == 1.5


# timeouts -----------------------------------------------------------------------------------


@needs_proc
@pytest.mark.parametrize("ignore_term", [False, True], ids=["sigterm", "sigkill"])
async def test_timeout_stops_the_whole_process_group(tmp_path: Path, ignore_term: bool) -> None:
    pgid_file = tmp_path / "pgid"  # the shell leads the group: $$ is its id
    flag = " --ignore-term" if ignore_term else ""
    handler = spec(f"echo $$ > {pgid_file}; {PY} {SCRIPTS / 'sleeper.py'}{flag}")
    outcome = await run(handler, tmp_path, timeout=0.4, kill_grace=0.2)
    assert outcome.timed_out
    assert outcome.exit_code is None
    assert outcome.error == "timed out after 0.4 s"
    assert outcome.stdout == ""  # printed before the timeout, discarded
    assert await group_is_gone(int(pgid_file.read_text()))


async def test_sigterm_comes_first(tmp_path: Path) -> None:
    cleaned = tmp_path / "cleaned"
    handler = spec(f"trap 'echo bye > {cleaned}; exit 0' TERM; sleep 5 & wait")
    outcome = await run(handler, tmp_path, timeout=0.3, kill_grace=2.0)
    assert outcome.timed_out
    assert cleaned.read_text() == "bye\n"


async def test_a_background_child_holding_stdout_keeps_the_hook_running(tmp_path: Path) -> None:
    """Finished means exited with stdout and stderr closed, as Node's `close` event."""
    outcome = await run(spec("sleep 5 & echo started"), tmp_path, timeout=0.3, kill_grace=0.1)
    assert outcome.timed_out
    redirected = await run(spec("sleep 1 >/dev/null 2>&1 & echo started"), tmp_path)
    assert (redirected.exit_code, redirected.stdout) == (0, "started\n")


async def test_session_end_budget_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS", "200")
    handlers = [spec("sleep 5", event="SessionEnd"), spec("true", event="SessionEnd")]
    slow, quick = await run_all(
        handlers, PAYLOAD, cwd=str(tmp_path), project_dir=str(tmp_path), kill_grace=0.1
    )
    assert slow.timed_out and slow.error == "timed out after 0.2 s"
    assert quick.exit_code == 0


@needs_proc
async def test_cancelling_the_caller_kills_the_hook(tmp_path: Path) -> None:
    pgid_file = tmp_path / "pgid"
    handler = spec(f"echo $$ > {pgid_file}; {PY} {SCRIPTS / 'sleeper.py'}")
    task = asyncio.ensure_future(run(handler, tmp_path))
    for _ in range(500):
        await asyncio.sleep(0.01)
        if pgid_file.exists() and pgid_file.read_text():
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await group_is_gone(int(pgid_file.read_text()))


# output -------------------------------------------------------------------------------------


async def test_ten_megabytes_of_output_do_not_deadlock(tmp_path: Path) -> None:
    size = 10_000_000 + 1234
    outcome = await run(spec(f"{PY} {SCRIPTS / 'flood.py'} {size}"), tmp_path)
    assert outcome.exit_code == 0
    assert len(outcome.stdout) == 10_000_000  # capped
    assert len(outcome.stderr) == STDERR_KEEP
    assert outcome.stderr_bytes > 2_000_000  # read concurrently with stdout
    assert (outcome.stdout_bytes, outcome.stdout_file, outcome.stderr_file) == (size, None, None)


async def test_output_beyond_the_cap_spills_to_a_file(tmp_path: Path) -> None:
    size = 3_000_000
    spill = tmp_path / "spill"
    spill.mkdir()
    outcome = await run(
        spec(f"{PY} {SCRIPTS / 'flood.py'} {size}"),
        tmp_path,
        output_cap=100_000,
        spill_dir=str(spill),
    )
    assert (len(outcome.stdout), len(outcome.stderr)) == (100_000, STDERR_KEEP)
    assert outcome.stdout_file is not None and outcome.stderr_file is not None
    saved = Path(outcome.stdout_file).read_bytes()
    assert len(saved) == outcome.stdout_bytes == size
    assert saved.startswith(outcome.stdout.encode())
    errors = Path(outcome.stderr_file).read_bytes()
    assert len(errors) == outcome.stderr_bytes > 700_000
    assert errors.startswith(outcome.stderr.encode())
    assert set(errors) == {ord("x"), ord("\n")}


async def test_spill_folder_is_made_only_when_a_stream_outgrows_what_is_kept(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "runs" / "r1"
    small = await run(spec("echo fine; echo note >&2"), tmp_path, spill_dir=str(folder))
    assert (small.stdout, small.stderr, small.stdout_bytes) == ("fine\n", "note\n", 5)
    assert not folder.exists()
    big = await run(spec("head -c 100000 /dev/zero >&2"), tmp_path, spill_dir=str(folder))
    assert big.stderr_file is not None and Path(big.stderr_file).parent == folder
    assert Path(big.stderr_file).stat().st_size == big.stderr_bytes == 100_000


async def test_large_payload_to_a_hook_that_never_reads_stdin(tmp_path: Path) -> None:
    payload = {**PAYLOAD, "tool_input": {"content": "z" * 2_000_000}}
    outcome = await run(spec("echo done"), tmp_path, payload=payload)
    assert (outcome.exit_code, outcome.stdout) == (0, "done\n")


async def test_invalid_utf8_is_replaced(tmp_path: Path) -> None:
    outcome = await run(spec(r"printf 'ok \377\n'"), tmp_path)
    assert outcome.stdout == "ok \ufffd\n"


async def test_signal_exit_is_a_negative_code(tmp_path: Path) -> None:
    outcome = await run(spec("kill -KILL $$"), tmp_path)
    assert outcome.exit_code == -9
    assert outcome.error is None


# several handlers ---------------------------------------------------------------------------


async def test_run_all_runs_in_parallel_and_keeps_spec_order(tmp_path: Path) -> None:
    arrivals = tmp_path / "arrivals"
    arrivals.mkdir()
    names = ["first", "second", "third"]
    handlers = [spec(f"{PY} {SCRIPTS / 'barrier.py'} {arrivals} 3 {name}") for name in names]
    outcomes = await run_all(handlers, PAYLOAD, cwd=str(tmp_path), project_dir=str(tmp_path))
    assert [o.exit_code for o in outcomes] == [0, 0, 0]  # each saw the others arrive
    assert [o.stdout.strip() for o in outcomes] == names
