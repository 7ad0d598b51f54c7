"""The instruction files of a Claude Code project, read as Claude Code reads them.

At session start Claude Code loads, in this order: the managed `CLAUDE.md`, the user's
`~/.claude/CLAUDE.md` and `~/.claude/rules/**/*.md`, then for each folder from the one
nearest the file system's root down to the project (the root itself excluded) its
`CLAUDE.md` and `.claude/CLAUDE.md`, the project's `.claude/rules/**/*.md`, and each
folder's `CLAUDE.local.md`. `@path` in a file imports another one (relative to the importing
file, `~/` from the home folder, absolute as written), up to five hops deep, never inside a
code span or block; each file is read once. An import naming no file is a warning (Claude
Code leaves the text as it is, so a mistyped path goes unnoticed there).

A rule file whose front matter has `paths:` (a glob or a list of globs) is not loaded at
start: it joins the conversation when a file tool touches a matching path
(`PathRules`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Literal

from hookagent._errors import ConfigError
from hookagent._frontmatter import split_front_matter
from hookagent._record import record

__all__ = [
    "MAX_IMPORT_DEPTH",
    "InstructionFile",
    "Instructions",
    "load_instructions",
    "render_instructions",
]

MAX_IMPORT_DEPTH: Final = 5
"""Hops of `@path` imports Claude Code follows."""

MemoryType = Literal["Managed", "User", "Project", "Local"]
LoadReason = Literal["session_start", "include", "path_glob_match"]

_IMPORT: Final = re.compile(r"(?:(?<=\s)|^)@((?:~/|/|\.{1,2}/|[\w.-])(?:\\ |[^\s`])*)")
_FENCE: Final = re.compile(r"^\s*(```|~~~)")
_SPAN: Final = re.compile(r"`+[^`]*`+")
_DESCRIPTIONS: Final[dict[str, str]] = {
    "Managed": "managed policy instructions",
    "User": "user's private global instructions for all projects",
    "Project": "project instructions, checked into the codebase",
    "Local": "user's private project instructions, not checked in",
}


@record
class InstructionFile:
    """One file loaded, with what InstructionsLoaded hooks are told about it."""

    path: str
    memory_type: MemoryType
    text: str
    load_reason: LoadReason = "session_start"
    parent: str | None = None
    """The file that imported this one (`load_reason="include"`)."""
    globs: tuple[str, ...] = ()
    """A path-scoped rule's `paths:`; such a rule is loaded when a matching file is used."""


@record(kw_only=False)
class Instructions:
    """Everything found: the files loaded at start, path-scoped rules, warnings."""

    files: tuple[InstructionFile, ...] = ()
    path_rules: tuple[InstructionFile, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def prompt(self) -> str | None:
        return render_instructions(self.files) if self.files else None


def render_instructions(files: tuple[InstructionFile, ...]) -> str:
    """The files as Claude Code shows them to the model: each under a line naming it."""
    parts = [
        "Codebase and user instructions are shown below. Be sure to adhere to these "
        "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you "
        "MUST follow them exactly as written."
    ]
    for f in files:
        what = _DESCRIPTIONS[f.memory_type]
        parts.append(f"Contents of {f.path} ({what}):\n\n{f.text.strip()}")
    return "\n\n".join(parts)


def load_instructions(
    project_dir: str | os.PathLike[str],
    *,
    home: str | os.PathLike[str] | None = None,
    managed_dir: str | os.PathLike[str] | None = None,
) -> Instructions:
    """Read the instruction files of a session in `project_dir`, in Claude Code's order."""
    from hookagent.claude._sources import default_managed_dir

    project = Path(project_dir).absolute()
    user = Path(home if home is not None else Path.home()) / ".claude"
    managed = Path(managed_dir) if managed_dir is not None else default_managed_dir()
    loader = _Loader(Path(home if home is not None else Path.home()))
    loader.file(managed / "CLAUDE.md", "Managed")
    loader.file(user / "CLAUDE.md", "User")
    loader.rules(user / "rules", "User")
    folders = [*reversed(project.parents[:-1]), project]  # the root itself is not read
    for folder in folders:
        loader.file(folder / "CLAUDE.md", "Project")
        loader.file(folder / ".claude" / "CLAUDE.md", "Project")
    loader.rules(project / ".claude" / "rules", "Project")
    for folder in folders:
        loader.file(folder / "CLAUDE.local.md", "Local")
    return Instructions(tuple(loader.files), tuple(loader.path_rules), tuple(loader.warnings))


class _Loader:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.files: list[InstructionFile] = []
        self.path_rules: list[InstructionFile] = []
        self.warnings: list[str] = []
        self._seen: set[Path] = set()

    def file(
        self,
        path: Path,
        memory_type: MemoryType,
        *,
        parent: InstructionFile | None = None,
        depth: int = 0,
    ) -> None:
        real = path.resolve()
        if real in self._seen or not path.is_file():
            return
        self._seen.add(real)
        loaded = InstructionFile(
            path=os.path.normpath(path.absolute()),
            memory_type=memory_type,
            text=_read(path),
            load_reason="include" if parent is not None else "session_start",
            parent=parent.path if parent is not None else None,
        )
        self.files.append(loaded)
        self._imports(loaded, depth)

    def rules(self, folder: Path, memory_type: MemoryType) -> None:
        if not folder.is_dir():
            return
        for path in sorted(folder.rglob("*.md")):
            if not path.is_file() or path.resolve() in self._seen:
                continue
            matter, body = split_front_matter(_read(path), str(path))
            globs = matter.text_or_list("paths") if "paths" in matter else None
            if globs is None:
                self._seen.add(path.resolve())
                rule = InstructionFile(
                    path=str(path.absolute()), memory_type=memory_type, text=body
                )
                self.files.append(rule)
                self._imports(rule, 0)
                continue
            patterns = (globs,) if isinstance(globs, str) else tuple(globs)
            self._seen.add(path.resolve())
            self.path_rules.append(
                InstructionFile(
                    path=str(path.absolute()),
                    memory_type=memory_type,
                    text=body,
                    load_reason="path_glob_match",
                    globs=tuple(p.strip() for p in patterns if p.strip()),
                )
            )

    def _imports(self, importer: InstructionFile, depth: int) -> None:
        for target in imports_of(importer.text):
            path = self._resolve(target, Path(importer.path).parent)
            if not path.is_file():
                self.warnings.append(f"{importer.path}: @{target} names no file ({path})")
            elif depth + 1 > MAX_IMPORT_DEPTH:
                self.warnings.append(
                    f"{importer.path}: @{target} not imported: imports go "
                    f"{MAX_IMPORT_DEPTH} levels deep at most"
                )
            else:
                self.file(path, importer.memory_type, parent=importer, depth=depth + 1)

    def _resolve(self, target: str, base: Path) -> Path:
        target = target.replace("\\ ", " ")
        if target.startswith("~/"):
            return self.home / target[2:]
        return Path(target) if os.path.isabs(target) else base / target


def imports_of(text: str) -> Iterator[str]:
    """The `@path` imports of `text`, in order, skipping code blocks and code spans."""
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _IMPORT.finditer(_SPAN.sub(" ", line)):
            target = match.group(1).rstrip(".,;:!?)")
            if target:
                yield target


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(f"cannot read: {reason}", file=str(path)) from None
