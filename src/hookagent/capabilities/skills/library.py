"""Skill files: finding them in a few directories and reading them, once.

A skills directory holds folder skills, `<name>/SKILL.md` plus any resource files beside it
(`scripts/`, `references/`, `assets/`...), and legacy skills, `<name>.md` files. Each file
opens with a front matter block between `---` lines giving `name` (default: the folder name
or the file stem) and `description` (required); the rest is the body.

PyYAML is not a dependency, so the front matter is read by a small strict reader of the
YAML these files use (`_front_matter`): `key: value` lines whose values are plain, quoted
(`'…'`, `"…"`) or block (`|`, `>`) strings. Only `name` and `description` are read; other
keys (`allowed-tools`, `license`, a nested `metadata:` map...) are accepted and ignored.
Anything the reader does not understand is a `ConfigError` naming the file and the line,
never a silent guess.

Precedence: within one directory a folder skill beats a legacy file of the same name;
across directories the first directory given wins, as on a search path. Skills hidden that
way are kept in `SkillLibrary.shadowed`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, final

from hookagent.errors import ConfigError

__all__ = ["DEFAULT_DIRS", "NAME_PATTERN", "Skill", "SkillLibrary", "parse_skill"]

DEFAULT_DIRS: Final = (".claude/skills", "skills")
"""Looked in, under the working directory, when no directory is given; in this order."""
NAME_PATTERN: Final = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SKILL_FILE: Final = "SKILL.md"
_SKIPPED_DIRS: Final = frozenset({"__pycache__"})

_FENCE: Final = "---"
_KEY: Final = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|)$")
_BLOCK: Final = re.compile(r"^([|>])([+-]?)$")
_FLOW: Final = tuple("[{&*!%@`")
_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_READ: Final[tuple[str, ...]] = ("name", "description")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Skill:
    """One skill, read from its file."""

    name: str
    description: str
    """One line: runs of whitespace (a folded or literal block) become single spaces."""
    body: str
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


@final
@dataclass(frozen=True, slots=True)
class SkillLibrary:
    """The skills found in `searched`, by name (sorted)."""

    skills: Mapping[str, Skill]
    searched: tuple[Path, ...] = ()
    """The directories looked in, absolute (defaults included whether or not they exist)."""
    shadowed: tuple[Skill, ...] = field(default=())
    """Skills hidden by a same-named skill: a SKILL.md over a legacy file, or an earlier
    directory's skill over a later one's."""

    @classmethod
    def scan(cls, *dirs: str | os.PathLike[str]) -> SkillLibrary:
        """Read every skill in `dirs` (earlier wins), or in `DEFAULT_DIRS` that exist.

        Raises `ConfigError` for a given directory that does not exist and for any skill
        file that cannot be read, naming the file and the problem.
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
        for where in present:
            own, hidden = _scan_dir(where)
            shadowed.extend(hidden)
            for name, skill in own.items():
                if name in found:
                    shadowed.append(skill)
                else:
                    found[name] = skill
        return cls(dict(sorted(found.items())), searched, tuple(shadowed))

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


def _scan_dir(where: Path) -> tuple[dict[str, Skill], list[Skill]]:
    """(skills by name, legacy files a SKILL.md of the same name hides) in one directory."""
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
        if entry.is_dir():
            if (path / SKILL_FILE).is_file():
                _add(folders, parse_skill(path / SKILL_FILE, folder=path))
        elif entry.name.endswith(".md") and entry.name.lower() != "readme.md" and entry.is_file():
            _add(legacy, parse_skill(path))
    hidden = [skill for name, skill in legacy.items() if name in folders]
    return {**legacy, **folders}, hidden


def _add(skills: dict[str, Skill], skill: Skill) -> None:
    other = skills.get(skill.name)
    if other is not None:
        raise ConfigError(
            f"two skills are named {skill.name!r}; the other is {other.path}",
            file=str(skill.path),
            key="name",
            value=skill.name,
        )
    skills[skill.name] = skill


def parse_skill(path: Path, *, folder: Path | None = None) -> Skill:
    """Read one skill file; `folder` is given for a `<folder>/SKILL.md`."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text ({exc.reason})", file=source) from exc
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror}", file=source) from exc
    fields, body = _front_matter(text, source)
    raw_name = fields.get("name")
    name = raw_name if raw_name is not None else (folder.name if folder else path.stem)
    if not NAME_PATTERN.fullmatch(name):
        origin = ""
        if raw_name is None:
            kind = "folder" if folder else "file"
            origin = f" (taken from the {kind} name; set `name:` in the front matter)"
        raise ConfigError(
            f"{name!r} is not a valid skill name: lowercase letters, digits and hyphens, "
            f"starting with a letter or digit{origin}",
            file=source,
            key="name",
            value=name,
        )
    description = " ".join((fields.get("description") or "").split())
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


# -- front matter ----------------------------------------------------------------------


@dataclass(slots=True)
class _Entry:
    key: str
    value: str
    line: int
    more: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """Indented (or `- item`) lines below the key: a block, a nested map or a list."""


def _front_matter(text: str, source: str) -> tuple[dict[str, str | None], str]:
    """(the fields `name` and `description` if present, the body). A file without a
    front matter block has no fields."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != _FENCE:
        return {}, text.strip()
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE), None)
    if end is None:
        raise ConfigError(
            "the front matter opened with `---` on line 1 is never closed by a `---` line",
            file=source,
        )
    entries: dict[str, _Entry] = {}
    current: _Entry | None = None
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            if current is not None:
                current.more.append((number, ""))
        elif line[0] in " \t" or line == "-" or line.startswith("- "):
            if current is None and not line.lstrip().startswith("#"):
                raise _bad(source, number, f"an indented line with no key above it: {line!r}")
            if current is not None:
                current.more.append((number, line))
        elif not line.startswith("#"):
            found = _KEY.match(line.rstrip())
            if found is None:
                raise _bad(source, number, f"expected `key: value`, got {line!r}")
            key = found.group(1)
            if key in entries:
                first = entries[key].line
                raise _bad(source, number, f"`{key}` is given twice (first on line {first})")
            current = entries[key] = _Entry(key, (found.group(2) or "").strip(), number)
    fields = {key: _string(entries[key], source) for key in _READ if key in entries}
    return fields, "\n".join(lines[end + 1 :]).strip()


def _bad(source: str, number: int, problem: str) -> ConfigError:
    return ConfigError(f"front matter line {number}: {problem}", file=source)


def _string(entry: _Entry, source: str) -> str | None:
    """The entry's value as a string (None for a YAML null); anything else is an error."""
    key, value, more = entry.key, entry.value, list(entry.more)
    while more and not more[-1][1]:
        more.pop()
    for number, line in more:
        if "\t" in line[: len(line) - len(line.lstrip())]:
            raise _bad(source, number, "tabs cannot indent YAML; use spaces")
    block = _BLOCK.match(value)
    if block is not None:
        return _block(block.group(1), [line for _, line in more])
    if value[:1] in ("'", '"'):
        if more:
            raise _bad(
                source,
                more[0][0],
                f"a quoted `{key}` must end on its own line; for text over several lines "
                "use a block (`|` or `>`)",
            )
        if value[0] == "'":
            return _single_quoted(value, source, entry.line)
        return _double_quoted(value, source, entry.line)
    if value.startswith(_FLOW) or value[:1] in ("|", ">") or value == "-" or value.startswith("- "):
        quoted = json.dumps(value, ensure_ascii=False)
        raise _bad(source, entry.line, f"`{key}` must be a string; quote it: {key}: {quoted}")
    lines = [(n, line.strip()) for n, line in more if not line.lstrip().startswith("#")]
    first = lines[0][1] if lines else ""
    listed = value not in _NULLS and any(line[:1] == "-" for _, line in more)
    if listed or (value in _NULLS and (first[:2] == "- " or first == "-" or _KEY.match(first))):
        raise _bad(source, entry.line, f"`{key}` must be a string, not a list or a map")
    parts = [(entry.line, _plain(value))] if value else []
    parts += [(n, _plain(line)) for n, line in lines]
    for number, part in parts:
        if ": " in part or part.endswith(":"):
            raise _bad(
                source,
                number,
                f"`: ` cannot appear in an unquoted value; put the {key} in quotes",
            )
    text = _fold([part for _, part in parts])
    return None if text in _NULLS else text


def _plain(text: str) -> str:
    """A plain scalar without its trailing comment."""
    if text.startswith("#"):
        return ""
    cut = text.find(" #")
    return (text if cut < 0 else text[:cut]).strip()


def _fold(lines: Sequence[str]) -> str:
    """Lines joined with spaces; an empty line makes a line break, as YAML folds."""
    out: list[str] = []
    for line in lines:
        if not line:
            out.append("\n")
        elif out and out[-1] != "\n":
            out.append(" " + line)
        else:
            out.append(line)
    return "".join(out).strip()


def _block(style: str, lines: Sequence[str]) -> str:
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    cut = min(indents, default=0)
    body = [line[cut:] for line in lines]
    return "\n".join(body).strip() if style == "|" else _fold([line.strip() for line in body])


def _double_quoted(value: str, source: str, number: int) -> str:
    end, escaped = 1, False
    while end < len(value):
        char = value[end]
        if char == '"' and not escaped:
            break
        escaped = char == "\\" and not escaped
        end += 1
    else:
        raise _bad(source, number, f"the quoted string is never closed: {value}")
    _nothing_after(value[end + 1 :], source, number)
    try:
        text: str = json.loads(value[: end + 1])
    except json.JSONDecodeError as exc:
        raise _bad(source, number, f"cannot read the quoted string {value}: {exc.msg}") from exc
    return text


def _single_quoted(value: str, source: str, number: int) -> str:
    found = re.match(r"'((?:[^']|'')*)'", value)
    if found is None:
        raise _bad(source, number, f"the quoted string is never closed: {value}")
    _nothing_after(value[found.end() :], source, number)
    return found.group(1).replace("''", "'")


def _nothing_after(rest: str, source: str, number: int) -> None:
    if rest.strip() and not rest.lstrip().startswith("#"):
        raise _bad(source, number, f"unexpected text after the closing quote: {rest.strip()!r}")
