"""MCP servers from the command line, run for real: `--mcp-config`, the project's `.mcp.json`
under `--discover-settings`, `hookagent mcp ls`, servers that cannot start, and `mcp_tool`
hooks over the run's connection. The server is the SDK test server on stdio and streamable
HTTP (tests/capabilities/mcp_server.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from capabilities.test_mcp import SERVER, free_port, http_server, serving

from . import run_cli

__all__ = ["http_server"]  # the fixture, used by name

MATH = {"command": sys.executable, "args": [SERVER]}


def write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def script(tmp_path: Path, *turns: dict[str, Any]) -> None:
    write(tmp_path / "turns.json", [*turns, {"text": "done"}])


def call(name: str, /, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "args": args, "id": "c1"}]}


def run(tmp_path: Path, *more: str, **env: str) -> tuple[int, Any, str]:
    done = run_cli.hookagent(
        tmp_path, "run", "go", "--model", "scripted:turns.json", "--json", *more, env=env
    )
    out = json.loads(done.stdout) if done.stdout.strip().startswith("{") else done.stdout
    return done.returncode, out, done.stderr


def test_a_server_of_an_mcp_config_is_called_by_the_model(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH}})
    script(tmp_path, call("mcp__math__add", a=2, b=3))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 0, err
    [executed] = result["tool_calls"]
    assert json.loads(executed["result"]) == {"total": 5}
    assert result["output"] == "done"


def test_a_pre_tool_use_hook_governs_the_servers_tools_by_their_claude_code_name(
    tmp_path: Path,
) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH}})
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no maths today",
        }
    }
    handler = {"type": "command", "command": f"echo '{json.dumps(deny)}'"}
    hooks = {"PreToolUse": [{"matcher": "mcp__math__.*", "hooks": [handler]}]}
    write(tmp_path / "settings.json", {"hooks": hooks})
    script(tmp_path, call("mcp__math__add", a=2, b=3))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json", "--settings", "settings.json")
    assert code == 0, err
    [executed] = result["tool_calls"]
    assert executed["blocked"] and "no maths today" in executed["result"]


def test_the_projects_mcp_json_is_read_with_discover_settings_only(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"math": MATH}})
    script(tmp_path, call("mcp__math__add", a=1, b=1))
    code, result, err = run(tmp_path, "--discover-settings")
    assert code == 0, err
    assert json.loads(result["tool_calls"][0]["result"]) == {"total": 2}
    code, result, err = run(tmp_path)
    assert code == 0, err
    assert "unknown tool" in result["tool_calls"][0]["result"].lower()


def test_a_server_that_cannot_start_is_exit_2_naming_it_and_its_stderr(tmp_path: Path) -> None:
    broken = {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no licence key')"]}
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH, "licensed": broken}})
    script(tmp_path, call("mcp__math__add", a=1, b=1))
    code, out, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 2
    assert "servers.json" in err and "MCP server 'licensed' failed to connect" in err
    assert "no licence key" in err
    assert out == ""


def test_a_wrong_entry_in_a_named_file_is_exit_2_naming_file_server_and_key(
    tmp_path: Path,
) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH, "bad": {"command": 7}}})
    script(tmp_path)
    code, _, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 2
    assert f"{tmp_path / 'servers.json'}, mcpServers.bad.command: must be a string" in err


def test_a_variable_without_default_is_exit_2_naming_file_server_and_key(tmp_path: Path) -> None:
    server = {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "${NO_SUCH_VAR}"}}
    write(tmp_path / "servers.json", {"remote": server})
    script(tmp_path)
    code, _, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 2
    assert "servers.json, remote.headers.A: ${NO_SUCH_VAR} is not set and has no default" in err


def test_a_wrong_entry_in_the_found_mcp_json_is_a_warning_and_the_others_run(
    tmp_path: Path,
) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"math": MATH, "bad": {"args": "x"}}})
    script(tmp_path, call("mcp__math__add", a=1, b=2))
    code, result, err = run(tmp_path, "--discover-settings")
    assert code == 0, err
    assert "warning:" in err and "mcpServers.bad" in err and "MCP server 'bad'" in err
    assert json.loads(result["tool_calls"][0]["result"]) == {"total": 3}


def test_a_streamable_http_server_with_expanded_headers(tmp_path: Path, http_server: str) -> None:
    port = http_server.split(":")[2].split("/", maxsplit=1)[0]
    remote = {
        "type": "http",
        "url": "http://127.0.0.1:${MCP_PORT}/mcp",
        "headers": {"X-Hookagent-Test": "${TEST_HEADER:-from default}"},
    }
    write(tmp_path / "servers.json", {"remote": remote})  # a plugin's file: no wrapper
    script(tmp_path, call("mcp__remote__header", name="x-hookagent-test"))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json", MCP_PORT=port)
    assert code == 0, err
    assert result["tool_calls"][0]["result"] == "from default"


def test_an_sse_server(tmp_path: Path) -> None:
    with serving("sse") as port:
        remote = {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"}
        write(tmp_path / "servers.json", {"mcpServers": {"old": remote}})
        script(tmp_path, call("mcp__old__add", a=4, b=5))
        code, result, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 0, err
    assert json.loads(result["tool_calls"][0]["result"]) == {"total": 9}


def test_mcp_tool_hooks_call_the_runs_server_over_its_connection(tmp_path: Path) -> None:
    starts = tmp_path / "starts"
    counted = {**MATH, "env": {"MCP_TEST_STARTS": "${MCP_TEST_STARTS}"}}
    write(tmp_path / "servers.json", {"mcpServers": {"math": counted}})
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "echo says no",
        }
    }
    handler = {"type": "mcp_tool", "server": "math", "tool": "echo", "input": {"text": ""}}
    handler["input"] = {"text": json.dumps(deny)}
    hooks = {"PreToolUse": [{"matcher": "mcp__math__add", "hooks": [handler]}]}
    write(tmp_path / "settings.json", {"hooks": hooks})
    script(tmp_path, call("mcp__math__add", a=1, b=2))
    code, result, err = run(
        tmp_path,
        "--mcp-config",
        "servers.json",
        "--settings",
        "settings.json",
        MCP_TEST_STARTS=str(starts),
    )
    assert code == 0, err
    [executed] = result["tool_calls"]
    assert executed["blocked"] and "echo says no" in executed["result"]
    assert len(starts.read_text().splitlines()) == 1  # the hook reused the run's server


# --- hookagent mcp ls --------------------------------------------------------------------


def ls(tmp_path: Path, *args: str) -> tuple[int, Any, str]:
    done = run_cli.hookagent(tmp_path, "mcp", "ls", "--json", *args)
    out = json.loads(done.stdout) if done.stdout.strip() else None
    return done.returncode, out, done.stderr


def test_mcp_ls_lists_servers_their_file_status_and_tools(tmp_path: Path) -> None:
    write(tmp_path / ".mcp.json", {"mcpServers": {"math": MATH}})
    code, out, err = ls(tmp_path, "--discover-settings")
    assert code == 0, err
    [server] = out["servers"]
    assert server["name"] == "math" and server["status"] == "connected"
    assert server["source"] == str(tmp_path / ".mcp.json")
    assert server["transport"] == "stdio" and server["error"] is None
    tools = {t["name"]: t for t in server["tools"]}
    assert tools["mcp__math__add"] == {
        "name": "mcp__math__add",
        "tool": "add",
        "description": "Add two integers.",
    }
    assert out["warnings"] == []
    code, out, _ = ls(tmp_path)
    assert (code, out) == (0, {"servers": [], "warnings": []})


def test_mcp_ls_is_exit_1_when_a_server_fails_and_2_for_a_bad_file(tmp_path: Path) -> None:
    nowhere = {"type": "http", "url": f"http://127.0.0.1:{free_port()}/mcp"}
    write(tmp_path / "servers.json", {"math": MATH, "nowhere": nowhere})
    code, out, err = ls(tmp_path, "--mcp-config", "servers.json")
    assert code == 1, err
    status = {s["name"]: s for s in out["servers"]}
    assert status["math"]["status"] == "connected"
    assert status["nowhere"]["status"] == "failed" and status["nowhere"]["error"]
    (tmp_path / "broken.json").write_text("{")
    done = run_cli.hookagent(tmp_path, "mcp", "ls", "--mcp-config", "broken.json")
    assert done.returncode == 2
    assert "broken.json: is not valid JSON" in done.stderr


def test_mcp_ls_text_names_each_server_and_tool(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH}})
    done = run_cli.hookagent(tmp_path, "mcp", "ls", "--mcp-config", "servers.json")
    assert done.returncode == 0, done.stderr
    assert f"math (stdio, {tmp_path / 'servers.json'}): connected, 11 tools" in done.stdout
    assert "  mcp__math__add  Add two integers." in done.stdout


# --- results, and runs taken up later ----------------------------------------------------


def test_a_long_result_is_saved_in_the_run_folder_and_the_model_reads_a_preview(
    tmp_path: Path,
) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH}})
    script(tmp_path, call("mcp__math__text", size=60_000))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 0, err
    content = result["tool_calls"][0]["result"]
    assert content.startswith("<persisted-output>\nOutput too large (60,000 characters).")
    saved = Path(content.split("Full output saved to: ")[1].split("\n")[0])
    assert saved.parent == tmp_path / ".hookagent" / "runs" / result["run_id"]
    assert len(saved.read_text()) == 60_000


def test_an_image_result_is_a_placeholder_for_a_model_that_does_not_accept_images(
    tmp_path: Path,
) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"math": MATH}})
    script(tmp_path, call("mcp__math__picture"))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json")
    assert code == 0, err
    assert result["tool_calls"][0]["result"] == (
        "a red dot\n[image: image/png, 15 bytes; not shown: this model does not accept images]"
    )


def test_a_run_resumed_elsewhere_connects_the_servers_it_was_started_with(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    write(project / "servers.json", {"mcpServers": {"math": MATH}})
    ask = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}
    handler = {"type": "command", "command": f"echo '{json.dumps(ask)}'"}
    write(project / "settings.json", {"hooks": {"PreToolUse": [{"hooks": [handler]}]}})
    script(project, call("mcp__math__add", a=20, b=22))
    store = str(project / "sessions.db")
    code, out, err = run(
        project, "--mcp-config", "servers.json", "--settings", "settings.json", "--store", store
    )
    assert code == 3, err  # waiting for an answer
    done = run_cli.hookagent(
        tmp_path, "approve", out["run_id"], "--resume", "--json", "--store", store
    )
    assert done.returncode == 0, done.stderr
    resumed = json.loads(done.stdout)
    assert json.loads(resumed["tool_calls"][0]["result"]) == {"total": 42}


# --- elicitation -------------------------------------------------------------------------


def test_an_elicitation_hook_answers_the_server_for_the_user(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"ops": MATH}})
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "Elicitation",
            "action": "accept",
            "content": {"target": "prod", "confirm": True},
        }
    }
    seen = tmp_path / "seen.json"
    handler = {"type": "command", "command": f"cat > {seen}; echo '{json.dumps(answer)}'"}
    write(
        tmp_path / "settings.json",
        {"hooks": {"Elicitation": [{"matcher": "ops", "hooks": [handler]}]}},
    )
    script(tmp_path, call("mcp__ops__deploy"))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json", "--settings", "settings.json")
    assert code == 0, err
    assert result["tool_calls"][0]["result"] == "accept: target=prod confirm=True"
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "Elicitation"
    assert (payload["mcp_server_name"], payload["message"]) == ("ops", "Deploy the build?")
    assert set(payload["requested_schema"]["properties"]) == {"target", "confirm"}


def test_an_elicitation_nobody_can_answer_is_declined(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"ops": MATH}})
    script(tmp_path, call("mcp__ops__deploy"))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json")  # no terminal here
    assert code == 0, err
    assert result["tool_calls"][0]["result"] == "decline"
    [decision] = [d for d in result["decisions"] if d["point"] == "elicitation"]
    assert decision["decision"] == "block" and "nobody can answer here" in decision["reason"]


def test_an_elicitation_in_a_run_kept_in_a_store_is_declined_not_paused(tmp_path: Path) -> None:
    write(tmp_path / "servers.json", {"mcpServers": {"ops": MATH}})
    script(tmp_path, call("mcp__ops__deploy"))
    code, result, err = run(tmp_path, "--mcp-config", "servers.json", "--session", "s")
    assert code == 0, err
    assert result["status"] == "completed"
    assert result["tool_calls"][0]["result"] == "decline"
    [decision] = [d for d in result["decisions"] if d["point"] == "elicitation"]
    assert "cannot pause for an MCP server's question" in decision["reason"]


def test_hooks_test_matches_elicitation_hooks_on_the_server_name(tmp_path: Path) -> None:
    handler = {"type": "command", "command": "exit 2"}
    hooks = {"Elicitation": [{"matcher": "ops", "hooks": [handler]}]}
    write(tmp_path / "settings.json", {"hooks": hooks})
    for server, code in (("ops", 1), ("docs", 0)):
        payload = {"mcp_server_name": server, "message": "Deploy?", "requested_schema": {}}
        write(tmp_path / "event.json", payload)
        done = run_cli.hookagent(
            tmp_path, "hooks", "test", "Elicitation", "--input", "event.json", "-s", "settings.json"
        )
        assert done.returncode == code, done.stdout + done.stderr


def test_a_missing_mcp_config_is_refused_before_a_store_is_opened(tmp_path: Path) -> None:
    script(tmp_path)
    code, _, err = run(tmp_path, "--mcp-config", "nope.json", "--session", "s")
    assert code == 2
    assert "error: --mcp-config: no such file: nope.json" in err
    assert not (tmp_path / ".hookagent").exists()
