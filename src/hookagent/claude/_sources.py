"""Find the settings files Claude Code would read and merge them into one `LoadedSettings`.

Hook lists never override one another (§4.2): every source's handlers are kept, in one fixed
order, so "last configured" means the same on every run even though Claude Code itself has no
order. Only the two switches follow ordinary precedence, and managed policy keeps the last word
over its own hooks: a user cannot switch off what an administrator installed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Final

from hookagent._errors import ConfigError
from hookagent.claude._http_policy import apply_http_bounds
from hookagent.claude._model import SEPARATE_KINDS, HandlerSpec, LoadedSettings, SourceKind
from hookagent.claude._settings import FileSettings, load_file

__all__ = [
    "MERGE_ORDER",
    "default_managed_dir",
    "discover",
    "load_settings_file",
    "merge",
    "plugin_root_of",
    "standard_locations",
]

StrPath = str | os.PathLike[str]

MERGE_ORDER: Final[tuple[SourceKind, ...]] = (
    "managed",
    "user",
    "project",
    "local",
    "explicit",
    "plugin",
    "skill",
    "agent",
)
"""The order handlers run in when order matters (§4.2); file order within each level."""

_PRECEDENCE: Final[dict[SourceKind, int]] = {
    "user": 1,
    "project": 2,
    "local": 3,
    "explicit": 4,
    "managed": 5,
}
"""Who decides an ordinary key: managed > CLI > local > project > user. Plugins' hooks files
are not settings and never decide."""


def discover(
    project_dir: StrPath,
    *,
    home: StrPath | None = None,
    managed_dir: StrPath | None = None,
    plugin_dirs: Iterable[StrPath] = (),
    explicit: Iterable[StrPath] = (),
    include_standard: bool = True,
) -> LoadedSettings:
    """Read every settings source for a session in `project_dir` and merge them.

    Standard locations (managed, user, project, local) are read when present and skipped when
    absent; `explicit` files (CLI `--settings`, the builder) must exist. A plugin folder must
    exist but may have no `hooks/hooks.json`. A file reached twice (a project in the home folder,
    an explicit path to the project's own settings) is read once, at its first place in the
    order. `include_standard=False` reads only `explicit` and `plugin_dirs`.
    """
    reader = _Reader()
    if include_standard:
        for path, kind in standard_locations(project_dir, home=home, managed_dir=managed_dir):
            if path.is_file():
                reader.read(path, kind)
    for file in explicit:
        path = Path(file)
        plugin_root = plugin_root_of(path)
        reader.read(path, "explicit" if plugin_root is None else "plugin", plugin_root=plugin_root)
    for plugin in plugin_dirs:
        root = Path(plugin).absolute()
        if not root.is_dir():
            raise ConfigError("plugin folder not found", file=os.fspath(plugin))
        if (hooks := root / "hooks" / "hooks.json").is_file():
            reader.read(hooks, "plugin", plugin_root=str(root))
    return merge(reader.files)


def plugin_root_of(path: Path) -> str | None:
    """The plugin folder when `path` is a plugin's `hooks/hooks.json` (its folder holds
    `.claude-plugin/plugin.json`): given as a settings file, it is still read as the plugin's,
    with `${CLAUDE_PLUGIN_ROOT}` set."""
    root = path.absolute().parent.parent
    in_plugin = (root / ".claude-plugin" / "plugin.json").is_file()
    if path.name == "hooks.json" and path.parent.name == "hooks" and in_plugin:
        return str(root)
    return None


def load_settings_file(file: StrPath) -> FileSettings:
    """A settings file given by the user (`--settings`): read as a plugin's hooks file when it
    is one (`plugin_root_of`)."""
    path = Path(file)
    root = plugin_root_of(path)
    return load_file(path, "explicit" if root is None else "plugin", plugin_root=root)


def standard_locations(
    project_dir: StrPath, *, home: StrPath | None = None, managed_dir: StrPath | None = None
) -> list[tuple[Path, SourceKind]]:
    """Where Claude Code looks for settings, in merge order, whether or not the files exist."""
    managed = Path(managed_dir) if managed_dir is not None else default_managed_dir()
    drop_in = managed / "managed-settings.d"
    drop_ins = sorted(p for p in drop_in.glob("*.json") if not p.name.startswith("."))
    project = Path(project_dir) / ".claude"
    return [
        (managed / "managed-settings.json", "managed"),
        *((path, "managed") for path in drop_ins),
        (Path(home if home is not None else Path.home()) / ".claude" / "settings.json", "user"),
        (project / "settings.json", "project"),
        (project / "settings.local.json", "local"),
    ]


def default_managed_dir() -> Path:
    """The managed-policy folder of this platform."""
    if sys.platform == "darwin":
        return Path("/Library/Application Support/ClaudeCode")
    if sys.platform == "win32":
        return Path(os.environ.get("PROGRAMFILES", r"C:\Program Files")) / "ClaudeCode"
    return Path("/etc/claude-code")


def merge(files: Sequence[FileSettings]) -> LoadedSettings:
    """One handler list from several files: concatenated in `MERGE_ORDER`, switches applied,
    repeats across settings files removed (a plugin's or skill's copy stays, as in Claude
    Code #76297).

    Files are sorted by level (stably), so callers need not pass them in order.
    """
    ordered = sorted(files, key=lambda f: MERGE_ORDER.index(f.source.kind))
    warnings = [w for f in ordered for w in f.warnings]
    warnings += _ignored_switches(ordered)
    off = _deciding(ordered, lambda f: f.disable_all_hooks)
    managed = [f for f in ordered if f.source.kind == "managed"]
    only = _deciding(managed, lambda f: f.allow_managed_hooks_only)
    handlers: list[HandlerSpec] = []
    seen: set[tuple[object, ...]] = set()
    dropped = 0
    for spec in (spec for f in ordered for spec in f.handlers):
        if not _switched_on(spec.source.kind, off, only):
            dropped += 1
        elif (key := _dedup_key(spec)) is None or key not in seen:
            handlers.append(spec)
            if key is not None:
                seen.add(key)
    handlers, stopped = apply_http_bounds(handlers, ordered)
    warnings += stopped
    if dropped and (decider := off or only):
        switch = "disableAllHooks" if decider is off else "allowManagedHooksOnly"
        warnings.append(f"{decider.source.path}, {switch}: {dropped} handler(s) turned off")
    skipped = (s for f in ordered for s in f.skipped if _switched_on(f.source.kind, off, only))
    return LoadedSettings(
        handlers=tuple(handlers),
        warnings=tuple(warnings),
        skipped=tuple(skipped),
        files=tuple(f.source.path for f in ordered),
    )


def _deciding(
    ordered: Sequence[FileSettings], value: Callable[[FileSettings], bool | None]
) -> FileSettings | None:
    """The file whose setting decides, when that setting is `true`; a later file of the same
    level overrides an earlier one (drop-ins over `managed-settings.json`)."""
    candidates = [
        (_PRECEDENCE[f.source.kind], i, f)
        for i, f in enumerate(ordered)
        if f.source.kind in _PRECEDENCE and value(f) is not None
    ]
    if not candidates:
        return None
    decider = max(candidates, key=lambda c: c[:2])[2]
    return decider if value(decider) else None


def _switched_on(kind: SourceKind, off: FileSettings | None, only: FileSettings | None) -> bool:
    """Whether the switches leave a source's hooks on: below managed level they cannot touch
    managed hooks."""
    if kind == "managed":
        return off is None or off.source.kind != "managed"
    return off is None and only is None


def _ignored_switches(ordered: Sequence[FileSettings]) -> list[str]:
    notes: list[str] = []
    for f in ordered:
        if f.allow_managed_hooks_only is not None and f.source.kind != "managed":
            notes.append(f"{f.source.path}, allowManagedHooksOnly: only managed settings set it")
        if f.disable_all_hooks is not None and f.source.kind == "plugin":
            notes.append(f"{f.source.path}, disableAllHooks: ignored in a plugin's hooks file")
    return notes


def _dedup_key(spec: HandlerSpec) -> tuple[object, ...] | None:
    """What makes two settings-file handlers the same (their `if` rules included: a
    `git commit` guard and a `git push` guard running one script are two handlers); None for
    those never merged."""
    if spec.type not in ("command", "http") or spec.source.kind in SEPARATE_KINDS:
        return None
    matcher = None if spec.matcher in (None, "", "*") else spec.matcher  # all mean "every"
    return (spec.event, matcher, spec.type, spec.command or spec.url, spec.args, spec.if_rule)


class _Reader:
    """Loads files in order, each once."""

    def __init__(self) -> None:
        self.files: list[FileSettings] = []
        self._seen: set[Path] = set()

    def read(self, path: Path, kind: SourceKind, *, plugin_root: str | None = None) -> None:
        real = path.resolve()
        if real not in self._seen:
            self._seen.add(real)
            self.files.append(load_file(path, kind, plugin_root=plugin_root))
