"""Skill files: finding them in a few directories and reading them, once.

A skills directory holds folder skills, `<name>/SKILL.md` plus any resource files beside it
(`scripts/`, `references/`, `assets/`...), and legacy skills, `<name>.md` files. Each file
opens with a front matter block between `---` lines giving `name` and `description`
(required); the rest is the body.

A skill's name is its `name:` when that is an id (lowercase letters, digits and hyphens);
otherwise, as Claude Code calls a skill by its folder, `name:` is a display name (`Hook
Development`, kept as `Skill.title`) and the name is the folder's (or the legacy file's
stem), lowercased with other characters made hyphens. A file that cannot be read (bad YAML
in a value read, no description, a name taken twice) is left out with a warning naming the
file and line, in `SkillLibrary.warnings`; the other skills load.

The front matter is YAML, read by `hookagent._frontmatter` with Claude Code's leniency (an
unquoted `: ` in a description is text). Only `name` and `description` are read, and must be
text; other keys (`allowed-tools`, `license`, a nested `metadata:` map...) are accepted and
ignored. A value that cannot be read is a `ConfigError` naming the file and the line.

Precedence: within one directory a folder skill beats a legacy file of the same name;
across directories the first directory given wins, as on a search path. Skills hidden that
way are kept in `SkillLibrary.shadowed`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Final

from hookagent._errors import ConfigError
from hookagent._frontmatter import read_front_matter
from hookagent._record import record

__all__ = ["DEFAULT_DIRS", "NAME_PATTERN", "Skill", "SkillLibrary", "parse_skill"]

DEFAULT_DIRS: Final = (".claude/skills", "skills")
"""Looked in, under the working directory, when no directory is given; in this order."""
NAME_PATTERN: Final = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_NOT_NAME: Final = re.compile(r"[^a-z0-9]+")
SKILL_FILE: Final = "SKILL.md"
_SKIPPED_DIRS: Final = frozenset({"__pycache__"})


@record
class Skill:
    """One skill, read from its file."""

    name: str
    description: str
    """One line: runs of whitespace (a folded or literal block) become single spaces."""
    body: str
    title: str | None = None
    """`name:` as written when it is a display name rather than the skill's name."""
    path: Path
    """The SKILL.md (or legacy `.md`) file, absolute."""
    folder: Path | None = None
    """A folder skill's directory, absolute; None for a legacy file."""
    resources: tuple[str, ...] = ()
    """Files under `folder` other than its SKILL.md, relative, `/`-separated, sorted."""

    @property
    def resource_paths(self) -> tuple[Path, ...]:
        """The resources as absolute paths, as file tools take them."""
        if self.folder is None:
            return ()
        return tuple(self.folder / rel for rel in self.resources)


@record(kw_only=False)
class SkillLibrary:
    """The skills found in `searched`, by name (sorted)."""

    skills: Mapping[str, Skill]
    searched: tuple[Path, ...] = ()
    """The directories looked in, absolute (defaults included whether or not they exist)."""
    shadowed: tuple[Skill, ...] = field(default=())
    """Skills hidden by a same-named skill: a SKILL.md over a legacy file, or an earlier
    directory's skill over a later one's."""
    warnings: tuple[str, ...] = ()
    """Skill files left out, each naming the file (and line) and why."""

    @classmethod
    def scan(cls, *dirs: str | os.PathLike[str]) -> SkillLibrary:
        """Read every skill in `dirs` (earlier wins), or in `DEFAULT_DIRS` that exist.

        Raises `ConfigError` for a given directory that does not exist; a skill file that
        cannot be read is left out with a warning (`warnings`).
        """
        if dirs:
            searched = tuple(_absolute(d) for d in dirs)
            for where in searched:
                if not where.is_dir():
                    problem = "is not a directory" if where.exists() else "does not exist"
                    raise ConfigError(f"skills directory {problem}", file=str(where))
            present = searched
        else:
            searched = tuple(_absolute(d) for d in DEFAULT_DIRS)
            present = tuple(where for where in searched if where.is_dir())
        found: dict[str, Skill] = {}
        shadowed: list[Skill] = []
        warnings: list[str] = []
        for where in present:
            own, hidden = _scan_dir(where, warnings)
            shadowed.extend(hidden)
            for name, skill in own.items():
                if name in found:
                    shadowed.append(skill)
                else:
                    found[name] = skill
        return cls(dict(sorted(found.items())), searched, tuple(shadowed), tuple(warnings))

    def __len__(self) -> int:
        return len(self.skills)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills.values())

    def __contains__(self, name: object) -> bool:
        return name in self.skills

    def get(self, name: str) -> Skill | None:
        return self.skills.get(name)

    def listing(self) -> str:
        """`- name: description`, one line per skill."""
        return "\n".join(f"- {s.name}: {s.description}" for s in self.skills.values())

    def where(self) -> str:
        """The directories looked in, for messages."""
        return ", ".join(str(d) for d in self.searched) or "(no directories)"


def _absolute(where: str | os.PathLike[str]) -> Path:
    """Absolute without resolving symlinks, as `FileTools` also accepts paths."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(where))))


def _scan_dir(where: Path, warnings: list[str]) -> tuple[dict[str, Skill], list[Skill]]:
    """(skills by name, legacy files a SKILL.md of the same name hides) in one directory;
    files that cannot be read are added to `warnings`."""
    try:
        with os.scandir(where) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        raise ConfigError(
            f"cannot list the skills directory: {exc.strerror}", file=str(where)
        ) from exc
    folders: dict[str, Skill] = {}
    legacy: dict[str, Skill] = {}
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = where / entry.name
        try:
            if entry.is_dir():
                if (path / SKILL_FILE).is_file():
                    _add(folders, parse_skill(path / SKILL_FILE, folder=path))
            elif _is_legacy(entry.name) and entry.is_file():
                _add(legacy, parse_skill(path))
        except ConfigError as exc:
            warnings.append(f"{exc}; the skill is left out")
    hidden = [skill for name, skill in legacy.items() if name in folders]
    return {**legacy, **folders}, hidden


def _is_legacy(name: str) -> bool:
    return name.endswith(".md") and name.lower() != "readme.md"


def _add(skills: dict[str, Skill], skill: Skill) -> None:
    other = skills.get(skill.name)
    if other is not None:
        raise ConfigError(
            f"two skills are named {skill.name!r}; the first is {other.path}",
            file=str(skill.path),
            key="name",
            value=skill.name,
        )
    skills[skill.name] = skill


def parse_skill(path: Path, *, folder: Path | None = None) -> Skill:
    """Read one skill file; `folder` is given for a `<folder>/SKILL.md`."""
    source = str(path)
    fields, body = read_front_matter(path)
    raw_name = fields.text("name")
    title = raw_name.strip() if raw_name is not None else None
    if title is not None and NAME_PATTERN.fullmatch(title):
        name, title = title, None
    else:
        name = _NOT_NAME.sub("-", (folder.name if folder else path.stem).lower()).strip("-")
    if not name:
        kind = "folder" if folder else "file"
        raise ConfigError(
            f"no skill name: `name:` is not an id and the {kind} name has no letter or digit",
            file=source,
            key="name",
        )
    description = " ".join((fields.text("description") or "").split())
    if not description:
        problem = "is missing" if "description" not in fields else "is empty"
        raise ConfigError(
            f"{problem}; a skill needs `description: <what it does and when to use it>` in "
            "its front matter",
            file=source,
            key="description",
        )
    resources = _resources(folder) if folder is not None else ()
    return Skill(
        name=name,
        description=description,
        body=body,
        title=title or None,
        path=path,
        folder=folder,
        resources=resources,
    )


def _resources(folder: Path) -> tuple[str, ...]:
    """Every file under `folder` but its SKILL.md; hidden files and folders, `__pycache__`
    and symlinked folders are skipped."""
    found: list[str] = []
    for top, subdirs, files in os.walk(folder, onerror=_walk_error):
        subdirs[:] = [d for d in subdirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
        rel_top = os.path.relpath(top, folder)
        for name in files:
            if name.startswith(".") or (rel_top == "." and name == SKILL_FILE):
                continue
            found.append(name if rel_top == "." else f"{rel_top}/{name}".replace(os.sep, "/"))
    return tuple(sorted(found))


def _walk_error(exc: OSError) -> None:
    raise ConfigError(f"cannot list the skill's files: {exc.strerror}", file=exc.filename)
