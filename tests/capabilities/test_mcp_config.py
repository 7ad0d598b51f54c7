"""Server configurations, names, and Claude Code's `.mcp.json`: checked before anything starts."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hookagent as h
from hookagent.capabilities.mcp import MCP, HttpServer, StdioServer
from hookagent.capabilities.mcp._claude_config import load_claude_config
from hookagent.mcp_client._config import sanitise, tool_name


def test_names_are_sanitised_to_what_providers_and_matchers_accept() -> None:
    assert sanitise("brave-search_2") == "brave-search_2"
    assert sanitise("env.get") == "env_get"
    assert sanitise("my server/ünï") == "my_server__n_"
    assert tool_name("brave search", "web.search") == "mcp__brave_search__web_search"


def test_stdio_server_input_is_normalised() -> None:
    server = StdioServer(command="srv", args=["-v"], env={"A": "1"}, cwd=Path("/tmp"), timeout=5)
    assert server.args == ("-v",)
    assert server.cwd == "/tmp"
    assert server.timeout == 5.0 and isinstance(server.timeout, float)
    assert server.transport == "stdio"
    assert HttpServer(url="http://localhost:1/mcp").transport == "http"


@pytest.mark.parametrize(
    ("make", "key"),
    [
        (lambda: StdioServer(command=""), "StdioServer.command"),
        (lambda: StdioServer(command="x", args="-v"), "StdioServer.args"),
        (lambda: StdioServer(command="x", env={"A": 1}), "StdioServer.env"),
        (lambda: StdioServer(command="x", timeout=0), "StdioServer.timeout"),
        (lambda: StdioServer(command="x", connect_timeout=True), "StdioServer.connect_timeout"),
        (lambda: HttpServer(url="localhost:8000"), "HttpServer.url"),
        (lambda: HttpServer(url="https://x/mcp", headers={"A": None}), "HttpServer.headers"),
    ],
)
def test_bad_server_settings_are_config_errors_naming_the_field(make: Any, key: str) -> None:
    with pytest.raises(h.ConfigError, match=key):
        make()


def test_server_names_that_sanitise_alike_are_refused() -> None:
    servers = {"a.b": StdioServer(command="x"), "a_b": StdioServer(command="y")}
    with pytest.raises(h.ConfigError, match=r"'a\.b' and 'a_b' both become 'a_b'"):
        MCP(servers)


@pytest.mark.parametrize("servers", [{"": StdioServer(command="x")}, {"s": {"command": "x"}}])
def test_bad_server_maps_are_config_errors(servers: Any) -> None:
    with pytest.raises(h.ConfigError, match="MCP"):
        MCP(servers)


def test_the_capability_names_itself_and_its_servers() -> None:
    mcp = MCP({"math": StdioServer(command="x"), "docs": HttpServer(url="https://d/mcp")})
    assert isinstance(mcp, h.Capability)
    assert mcp.name == "mcp"
    assert mcp.servers == ("math", "docs")
    [ask] = mcp.hooks()  # asks a human when a server asks the user and no hook answered
    assert (ask.point.name, ask.id) == ("elicitation", "mcp:ask-user")
    assert repr(mcp) == "<MCP ['math', 'docs'] closed>"


def test_importing_hookagent_does_not_load_the_mcp_sdk() -> None:
    code = "import sys, hookagent; print(any(m.split('.')[0] == 'mcp' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- .mcp.json ---------------------------------------------------------------------------


def write(tmp_path: Path, servers: object) -> Path:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def test_claude_config_servers_are_read_with_variables_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(
        tmp_path,
        {
            "files": {
                "command": "npx",
                "args": ["-y", "server-files", "${ROOT}"],
                "env": {"LEVEL": "${LEVEL:-info}"},
            },
            "docs": {
                "type": "http",
                "url": "https://${HOST}/mcp",
                "headers": {"Authorization": "Bearer ${TOKEN}"},
                "description": "unknown keys are ignored",
            },
        },
    )
    servers = load_claude_config(path, environ={"ROOT": "/srv", "HOST": "d.example", "TOKEN": "t"})
    assert list(servers) == ["files", "docs"]
    assert servers["files"] == StdioServer(
        command="npx", args=["-y", "server-files", "/srv"], env={"LEVEL": "info"}, cwd=tmp_path
    )
    assert servers["docs"] == HttpServer(
        url="https://d.example/mcp", headers={"Authorization": "Bearer t"}
    )
    for name, value in {"ROOT": "/srv", "HOST": "d.example", "TOKEN": "t"}.items():
        monkeypatch.setenv(name, value)
    assert MCP.from_claude_config(path).servers == ("files", "docs")


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        ({"s": {"command": "x", "args": ["${NOPE}"]}}, r"mcpServers\.s\.args\[0\]: \$\{NOPE\}"),
        ({"s": {"type": "ws", "url": "wss://x"}}, r"mcpServers\.s\.type: type 'ws'"),
        ({"s": {"url": "https://x"}}, r"mcpServers\.s\.type: has a url but no type"),
        ({"s": {"args": []}}, r"mcpServers\.s\.command: must be a string"),
        ({"s": {"command": "x", "args": "-v"}}, r"mcpServers\.s\.args: must be a list"),
        ({"s": {"command": "x", "env": ["A"]}}, r"mcpServers\.s\.env: must be an object"),
        ({"s": {"type": "http", "url": "ftp://x"}}, r"mcpServers\.s: HttpServer\.url"),
        ({"s": "npx server"}, r"mcpServers\.s: must be an object"),
    ],
)
def test_claude_config_mistakes_name_the_file_and_key(
    tmp_path: Path, servers: object, message: str
) -> None:
    path = write(tmp_path, servers)
    with pytest.raises(h.ConfigError, match=message) as caught:
        load_claude_config(path, environ={})
    assert caught.value.file == str(path)


def test_a_missing_or_broken_claude_config_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(h.ConfigError, match="cannot be read"):
        load_claude_config(tmp_path / "absent.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(h.ConfigError, match="not valid JSON"):
        load_claude_config(broken)
    broken.write_text('{"mcpServers": []}')
    with pytest.raises(h.ConfigError, match="mcpServers: must be an object"):
        load_claude_config(broken)
    broken.write_text("[]")
    with pytest.raises(h.ConfigError, match="must be a JSON object"):
        load_claude_config(broken)


_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
_VALUES = st.text(alphabet=st.characters(exclude_characters="\x00"), max_size=20)


@given(name=_NAMES, value=_VALUES, default=_VALUES.filter(lambda d: "}" not in d))
def test_variables_expand_as_claude_code_expands_them(name: str, value: str, default: str) -> None:
    """`${NAME}` is the variable's value; `${NAME:-default}` the value when it is set (even
    empty), else the default; the text around them is kept."""
    args = [f"<${{{name}}}>", f"<${{{name}:-{default}}}>"]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), {"s": {"command": "x", "args": args}})
        assert load_claude_config(path, environ={name: value})["s"].args == (
            f"<{value}>",
            f"<{value}>",
        )
        path = write(Path(folder), {"s": {"command": "x", "args": args[1:]}})
        assert load_claude_config(path, environ={})["s"].args == (f"<{default}>",)
