"""Every `.mcp.json` of Claude Code's official plugins, unchanged (tests/fixtures/mcp_json,
anthropics/claude-plugins-official@340e33a), reads as Claude Code reads it: with or without
the `mcpServers` wrapper, `${CLAUDE_PLUGIN_ROOT}` the plugin's folder, http servers with
expanded headers; a variable with no default and no value is an error naming file, server
and key, or, for a file found rather than named, a warning that keeps the other servers."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookagent as h
from hookagent.capabilities.mcp import HttpServer, StdioServer
from hookagent.capabilities.mcp._claude_config import load_mcp_configs

FIXTURES = Path(__file__).parents[1] / "fixtures" / "mcp_json"
FILES = sorted(FIXTURES.rglob(".mcp.json"))
SECRETS = {
    "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_test",
    "GREPTILE_API_KEY": "grep_test",
    "TFE_TOKEN": "tfe_test",
}


def test_the_fixtures_are_there() -> None:
    assert len(FILES) == 15


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name)
def test_each_official_plugin_file_reads_with_its_plugin_root(path: Path) -> None:
    loaded = load_mcp_configs([path], plugin_root=path.parent, environ=SECRETS)
    assert loaded.warnings == ()
    [(name, server)] = loaded.servers.items()
    assert name in (path.parent.name, "example-server")
    assert server.file == str(path)
    config = server.config
    if isinstance(config, StdioServer):
        assert config.cwd == str(path.parent)
        assert "${" not in " ".join((config.command, *config.args))
        assert config.env is not None and config.env["CLAUDE_PLUGIN_ROOT"] == str(path.parent)
    else:
        assert isinstance(config, HttpServer)
        assert "${" not in config.url + "".join(config.headers.values())


def test_plugin_root_and_defaults_are_expanded() -> None:
    discord = FIXTURES / "external_plugins" / "discord" / ".mcp.json"
    config = load_mcp_configs([discord], plugin_root=discord.parent, environ={}).configs()
    assert config["discord"] == StdioServer(
        command="bun",
        args=["run", "--cwd", str(discord.parent), "--shell=bun", "--silent", "start"],
        env={"CLAUDE_PLUGIN_ROOT": str(discord.parent)},
        cwd=discord.parent,
    )
    context7 = FIXTURES / "external_plugins" / "context7" / ".mcp.json"
    config = load_mcp_configs([context7], environ={}).configs()
    assert config["context7"] == HttpServer(
        url="https://mcp.context7.com/mcp", headers={"Authorization": ""}
    )


def test_a_missing_variable_names_file_server_and_key_or_is_a_warning() -> None:
    github = FIXTURES / "external_plugins" / "github" / ".mcp.json"
    with pytest.raises(h.ConfigError) as caught:
        load_mcp_configs([github], environ={})
    assert str(caught.value) == (
        f"{github}, github.headers.Authorization: "
        "${GITHUB_PERSONAL_ACCESS_TOKEN} is not set and has no default"
    )
    linear = FIXTURES / "external_plugins" / "linear" / ".mcp.json"
    loaded = load_mcp_configs([github, linear], strict=False, environ={})
    assert list(loaded.servers) == ["linear"]
    [warning] = loaded.warnings
    assert "github.headers.Authorization" in warning and "MCP server 'github'" in warning
