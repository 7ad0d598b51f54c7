"""Finding the settings files of a session and merging them: order, switches, repeats."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookagent._errors import ConfigError
from hookagent.claude._model import LoadedSettings, SettingsSource, SourceKind
from hookagent.claude._settings import FileSettings, load_file, parse_settings
from hookagent.claude._sources import discover, merge, standard_locations


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def stop(*commands: str, matcher: str | None = None, **switches: Any) -> dict[str, Any]:
    """Settings with one Stop group running `commands`, plus top-level `switches`."""
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": c} for c in commands]}
    if matcher is not None:
        group["matcher"] = matcher
    return {"hooks": {"Stop": [group]}, **switches}


def commands(loaded: LoadedSettings) -> list[str | None]:
    return [h.command for h in loaded.handlers]


@dataclass
class Layout:
    """A home, a project and a managed-policy folder under one temporary folder."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def managed(self) -> Path:
        return self.root / "etc"

    def user(self, data: Any) -> Path:
        return write(self.home / ".claude" / "settings.json", data)

    def shared(self, data: Any) -> Path:
        return write(self.project / ".claude" / "settings.json", data)

    def local(self, data: Any) -> Path:
        return write(self.project / ".claude" / "settings.local.json", data)

    def policy(self, data: Any, drop_in: str | None = None) -> Path:
        if drop_in is None:
            return write(self.managed / "managed-settings.json", data)
        return write(self.managed / "managed-settings.d" / drop_in, data)

    def plugin(self, name: str, data: Any) -> Path:
        write(self.root / "plugins" / name / "hooks" / "hooks.json", data)
        return self.root / "plugins" / name

    def discover(self, **options: Any) -> LoadedSettings:
        return discover(self.project, home=self.home, managed_dir=self.managed, **options)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    (tmp_path / "project").mkdir()
    return Layout(tmp_path)


def test_nothing_configured_loads_nothing(layout: Layout) -> None:
    assert layout.discover() == LoadedSettings()


def test_handlers_follow_the_merge_order_of_every_source(layout: Layout) -> None:
    layout.local(stop("local"))
    layout.shared(stop("project-1", "project-2"))
    layout.user(stop("user"))
    layout.policy(stop("managed-d20"), drop_in="20-late.json")
    layout.policy(stop("managed-d10"), drop_in="10-early.json")
    layout.policy(stop("managed"))
    write(layout.managed / "managed-settings.d" / "notes.txt", "not json")
    explicit = [write(layout.root / n, stop(n)) for n in ("cli-b.json", "cli-a.json")]
    plugins = [layout.plugin(n, stop(f"{n}-hook")) for n in ("zeta", "alpha")]
    loaded = layout.discover(explicit=explicit, plugin_dirs=plugins)
    assert commands(loaded) == [
        "managed",
        "managed-d10",
        "managed-d20",
        "user",
        "project-1",
        "project-2",
        "local",
        "cli-b.json",
        "cli-a.json",
        "zeta-hook",
        "alpha-hook",
    ]
    assert [h.source.kind for h in loaded.handlers][::3] == ["managed", "user", "local", "plugin"]
    assert loaded.files == tuple(h.source.path for h in loaded.handlers if h.command != "project-2")
    assert loaded.warnings == ()


def test_standard_locations_are_listed_in_merge_order(layout: Layout) -> None:
    layout.policy({}, drop_in="b.json")
    layout.policy({}, drop_in="a.json")
    layout.policy({}, drop_in=".hidden.json")
    found = standard_locations(layout.project, home=layout.home, managed_dir=layout.managed)
    assert found == [
        (layout.managed / "managed-settings.json", "managed"),
        (layout.managed / "managed-settings.d" / "a.json", "managed"),
        (layout.managed / "managed-settings.d" / "b.json", "managed"),
        (layout.home / ".claude" / "settings.json", "user"),
        (layout.project / ".claude" / "settings.json", "project"),
        (layout.project / ".claude" / "settings.local.json", "local"),
    ]


def test_an_invalid_standard_file_is_an_error(layout: Layout) -> None:
    path = layout.shared({"hooks": {"Stop": {}}})
    with pytest.raises(ConfigError, match=rf"^{path}, hooks\.Stop: must be a list"):
        layout.discover()


def test_a_missing_explicit_file_is_an_error(layout: Layout) -> None:
    with pytest.raises(ConfigError, match=r"nope\.json: cannot read"):
        layout.discover(explicit=[layout.root / "nope.json"])


def test_a_missing_plugin_folder_is_an_error_but_a_plugin_without_hooks_is_not(
    layout: Layout,
) -> None:
    (layout.root / "bare-plugin").mkdir()
    assert layout.discover(plugin_dirs=[layout.root / "bare-plugin"]) == LoadedSettings()
    with pytest.raises(ConfigError, match=r"gone: plugin folder not found"):
        layout.discover(plugin_dirs=[layout.root / "gone"])


def test_plugin_hooks_get_their_root(layout: Layout) -> None:
    plugin = layout.plugin("fmt", stop("${CLAUDE_PLUGIN_ROOT}/run.sh"))
    (spec,) = layout.discover(plugin_dirs=[plugin]).handlers
    assert spec.command == f"{plugin}/run.sh"
    assert spec.source.plugin_root == str(plugin)


def test_include_standard_false_reads_only_what_was_named(layout: Layout) -> None:
    layout.policy(stop("managed", disableAllHooks=True))
    layout.user(stop("user"))
    cli = write(layout.root / "cli.json", stop("cli"))
    assert commands(layout.discover(explicit=[cli], include_standard=False)) == ["cli"]


def test_a_file_reached_twice_is_read_once(layout: Layout) -> None:
    layout.user(stop("x", matcher="*"))
    loaded = discover(layout.home, home=layout.home, managed_dir=layout.managed)
    assert [h.source.kind for h in loaded.handlers] == ["user"]
    again = layout.discover(explicit=[layout.shared(stop("p", matcher="*"))])
    assert [h.source.kind for h in again.handlers] == ["user", "project"]


# -- disableAllHooks and allowManagedHooksOnly ------------------------------------------------


def everywhere(layout: Layout, **switches: dict[str, Any]) -> LoadedSettings:
    """One handler per level, named after it; `switches[level]` adds top-level keys."""
    layout.policy(stop("managed", **switches.get("managed", {})))
    layout.user(stop("user", **switches.get("user", {})))
    layout.shared(stop("project", **switches.get("project", {})))
    layout.local(stop("local", **switches.get("local", {})))
    cli = write(layout.root / "cli.json", stop("explicit", **switches.get("explicit", {})))
    plugin = layout.plugin("p", stop("plugin", **switches.get("plugin", {})))
    return layout.discover(explicit=[cli], plugin_dirs=[plugin])


ALL = ["managed", "user", "project", "local", "explicit", "plugin"]
OFF = {"disableAllHooks": True}
ON = {"disableAllHooks": False}


@pytest.mark.parametrize(
    ("switches", "expected"),
    [
        pytest.param({}, ALL, id="none"),
        pytest.param({"user": OFF}, ["managed"], id="user-off-spares-managed"),
        pytest.param({"user": OFF, "project": ON}, ALL, id="project-beats-user"),
        pytest.param({"project": ON, "local": OFF}, ["managed"], id="local-beats-project"),
        pytest.param({"local": OFF, "explicit": ON}, ALL, id="cli-beats-local"),
        pytest.param({"explicit": OFF, "managed": ON}, ALL, id="managed-beats-cli"),
        pytest.param({"managed": OFF}, [], id="managed-off-is-everything"),
        pytest.param({"managed": OFF, "explicit": ON}, [], id="cli-cannot-undo-managed"),
        pytest.param({"plugin": OFF}, ALL, id="plugins-cannot-switch"),
    ],
)
def test_disable_all_hooks_follows_precedence(
    layout: Layout, switches: dict[str, dict[str, Any]], expected: list[str]
) -> None:
    assert commands(everywhere(layout, **switches)) == expected


def test_turned_off_handlers_are_reported(layout: Layout) -> None:
    loaded = everywhere(layout, local=OFF)
    assert loaded.warnings[-1] == (
        f"{layout.project / '.claude' / 'settings.local.json'}, "
        "disableAllHooks: 5 handler(s) turned off"
    )


def test_a_later_managed_drop_in_overrides_the_base_file(layout: Layout) -> None:
    layout.policy({"disableAllHooks": True})
    layout.policy({"disableAllHooks": False}, drop_in="50-on.json")
    layout.user(stop("user"))
    assert commands(layout.discover()) == ["user"]


def test_allow_managed_hooks_only_keeps_managed_hooks(layout: Layout) -> None:
    loaded = everywhere(layout, managed={"allowManagedHooksOnly": True})
    assert commands(loaded) == ["managed"]
    assert loaded.warnings[-1].endswith("allowManagedHooksOnly: 5 handler(s) turned off")


def test_allow_managed_hooks_only_outside_managed_is_ignored(layout: Layout) -> None:
    loaded = everywhere(layout, user={"allowManagedHooksOnly": True}, plugin=OFF)
    assert commands(loaded) == ALL
    user, plugin = layout.home / ".claude", layout.root / "plugins" / "p" / "hooks"
    assert loaded.warnings == (
        f"{user / 'settings.json'}, allowManagedHooksOnly: only managed settings set it",
        f"{plugin / 'hooks.json'}, disableAllHooks: ignored in a plugin's hooks file",
    )


LEVELS: list[SourceKind] = ["managed", "user", "project", "local", "explicit"]
RANK = {"user": 1, "project": 2, "local": 3, "explicit": 4, "managed": 5}


@given(st.lists(st.sampled_from([None, True, False]), min_size=5, max_size=5))
def test_disable_all_hooks_matches_the_rule(values: list[bool | None]) -> None:
    """The highest level that sets the key decides; only managed can switch managed off."""
    set_at = {k: v for k, v in zip(LEVELS, values, strict=True) if v is not None}
    files = [
        parse_settings(
            {**stop(kind), **({"disableAllHooks": set_at[kind]} if kind in set_at else {})},
            SettingsSource(path=kind, kind=kind),
        )
        for kind in LEVELS
    ]
    decider = max(set_at, key=RANK.__getitem__, default=None)
    if decider is None or not set_at[decider]:
        expected: list[str] = list(LEVELS)
    else:
        expected = [] if decider == "managed" else ["managed"]
    assert commands(merge(files)) == expected


# -- repeats ---------------------------------------------------------------------------------


def test_a_command_in_several_settings_files_runs_once(layout: Layout) -> None:
    layout.user(stop("lint", "user-only", matcher="Bash"))
    layout.shared(stop("lint", matcher="Bash"))
    layout.local(stop("lint", matcher="Edit"))
    loaded = layout.discover()
    assert [(h.command, h.source.kind) for h in loaded.handlers] == [
        ("lint", "user"),
        ("user-only", "user"),
        ("lint", "local"),  # another matcher: not the same handler
    ]


def test_match_everything_matchers_are_the_same_matcher(layout: Layout) -> None:
    layout.user(stop("lint"))
    layout.shared(stop("lint", matcher="*"))
    layout.local(stop("lint", matcher=""))
    assert commands(layout.discover()) == ["lint"]


def test_exec_form_repeats_compare_command_and_args(layout: Layout) -> None:
    def exec_form(*args: str) -> dict[str, Any]:
        handler = {"type": "command", "command": "check", "args": list(args)}
        return {"hooks": {"Stop": [{"hooks": [handler]}]}}

    layout.user(exec_form("--fast"))
    layout.shared(exec_form("--fast"))
    layout.local(exec_form("--slow"))
    assert [h.args for h in layout.discover().handlers] == [("--fast",), ("--slow",)]


def test_handlers_differing_only_in_their_if_rule_are_distinct(layout: Layout) -> None:
    def guard(rule: str) -> dict[str, Any]:
        handler = {"type": "command", "command": "review.sh", "if": rule}
        return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}

    layout.user(guard("Bash(git commit *)"))
    layout.shared(guard("Bash(git push *)"))
    layout.local(guard("Bash(git push *)"))
    loaded = layout.discover()
    assert [h.if_rule for h in loaded.handlers] == ["Bash(git commit *)", "Bash(git push *)"]


def test_http_repeats_compare_the_url(layout: Layout) -> None:
    def http(url: str) -> dict[str, Any]:
        return {"hooks": {"Stop": [{"hooks": [{"type": "http", "url": url}]}]}}

    layout.user(http("http://127.0.0.1:9/a"))
    layout.shared(http("http://127.0.0.1:9/a"))
    layout.local(http("http://127.0.0.1:9/b"))
    assert [h.url for h in layout.discover().handlers] == [
        "http://127.0.0.1:9/a",
        "http://127.0.0.1:9/b",
    ]


def test_plugin_copies_stay_separate(layout: Layout) -> None:
    layout.user(stop("lint"))
    plugins = [layout.plugin(n, stop("lint")) for n in ("a", "b")]
    loaded = layout.discover(plugin_dirs=plugins)
    assert [h.source.kind for h in loaded.handlers] == ["user", "plugin", "plugin"]


# -- merge on its own -------------------------------------------------------------------------


def test_merge_works_without_discovery(tmp_path: Path) -> None:
    a = load_file(write(tmp_path / "a.json", stop("a")), "explicit")
    b = load_file(write(tmp_path / "b.json", stop("b", disableAllHooks=False)), "explicit")
    loaded = merge([a, b])
    assert commands(loaded) == ["a", "b"]
    assert loaded.files == (str(tmp_path / "a.json"), str(tmp_path / "b.json"))


def test_merge_orders_by_level_whatever_the_input_order(tmp_path: Path) -> None:
    def settings(kind: SourceKind) -> FileSettings:
        return parse_settings(stop(kind), SettingsSource(path=kind, kind=kind))

    shuffled = [settings(k) for k in ("plugin", "local", "managed", "explicit", "user", "project")]
    assert commands(merge(shuffled)) == ALL


def test_merge_keeps_each_files_warnings_and_skipped_hooks_in_order(tmp_path: Path) -> None:
    def settings(event: str, path: str, kind: SourceKind) -> FileSettings:
        data = {"hooks": {event: [{"hooks": [{"type": "command", "command": ""}]}]}}
        return parse_settings(data, SettingsSource(path=path, kind=kind))

    user, managed = settings("Nope", "u", "user"), settings("Stop", "m", "managed")
    plugin = settings("Stop", "p", "plugin")
    merged = merge([plugin, user, managed])
    assert [w.split(",")[0] for w in merged.warnings] == ["m", "p"]  # empty commands
    assert [str(s).split(",")[0] for s in merged.skipped] == ["u"]


def test_hooks_switched_off_are_not_reported_as_skipped(tmp_path: Path) -> None:
    agent = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "mcp-tool", "server": "s", "tool": "t"}]}]}
    }
    user = parse_settings(agent, SettingsSource(path="u", kind="user"))
    managed = parse_settings(agent, SettingsSource(path="m", kind="managed"))
    off = parse_settings({"disableAllHooks": True}, SettingsSource(path="l", kind="local"))
    assert [s.source.path for s in merge([user, managed, off]).skipped] == ["m"]
