"""Deny rules: what `Bash` refuses to run, and the default list.

A rule tests each simple command of a parsed command line (see `parse.py`): either with a
predicate over its words (the built-in rules, so `rm -r -f /`, `rm -fr /`, `"rm" -rf /*` and
`sudo rm --recursive --force /` all read as one thing) or with a regular expression searched
in each command's normalised text and in the normalised line. The defaults follow
REFERENCE §9.1 (`rm -rf /`, `mkfs`, `shutdown`, `reboot`, `dd if=/dev/zero`, the fork bomb),
made precise: `rm -rf build/` and `dd if=/dev/zero of=blank.img` are not refused.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities.bash._parse import ParsedCommand, SimpleCommand

__all__ = ["DEFAULT_DENY", "DenyRule", "Violation", "find_violation"]


@record
class DenyRule:
    """A command `Bash` refuses. Give it a `pattern` or a `test`, not both."""

    name: str
    """Named in the block message the model reads."""
    pattern: str | None = None
    """A regular expression searched in each simple command's normalised text
    (`SimpleCommand.text`) and in the whole normalised line (`ParsedCommand.line`)."""
    test: Callable[[SimpleCommand], bool] | None = field(default=None, compare=False)
    """A predicate over each simple command."""
    reason: str = ""
    regex: re.Pattern[str] | None = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        where = f"DenyRule({self.name!r})"
        if not self.name:
            raise ConfigError("a deny rule needs a name", key="DenyRule(name)")
        if (self.pattern is None) == (self.test is None):
            raise ConfigError("give a pattern or a test, not both or neither", key=where)
        if self.pattern is not None:
            try:
                object.__setattr__(self, "regex", re.compile(self.pattern))
            except re.error as exc:
                raise ConfigError(
                    f"{self.pattern!r} is not a valid regex: {exc}", key=where, value=self.pattern
                ) from None

    @classmethod
    def of(cls, spec: DenyRule | str) -> DenyRule:
        """A rule as given, or a regex rule named after its pattern."""
        if isinstance(spec, DenyRule):
            return spec
        return cls(name=f"/{spec}/", pattern=spec)

    def hits(self, command: SimpleCommand) -> bool:
        if self.test is not None:
            return self.test(command)
        return self.regex is not None and self.regex.search(command.text) is not None


@record(kw_only=False)
class Violation:
    rule: DenyRule
    where: str
    """The normalised command (or line) the rule matched."""

    @property
    def message(self) -> str:
        because = f" ({self.rule.reason})" if self.rule.reason else ""
        return f"command blocked by rule {self.rule.name}{because}: {self.where}"


def find_violation(
    parsed: ParsedCommand, rules: Sequence[DenyRule], allow: Sequence[re.Pattern[str]]
) -> Violation | None:
    """The first rule the command breaks. A simple command that an `allow` pattern matches in
    full is exempt; the whole line is exempt only when all its commands are."""
    exempt = [any(a.fullmatch(c.text) for a in allow) for c in parsed.commands]
    for rule in rules:
        for command, allowed in zip(parsed.commands, exempt, strict=True):
            if not allowed and rule.hits(command):
                return Violation(rule, command.text)
        if rule.regex is not None and not all(exempt) and rule.regex.search(parsed.line):
            return Violation(rule, parsed.line)
    return None


# -- the built-in rules ------------------------------------------------------------------

_BLOCK_DEVICE: Final = re.compile(
    r"/dev/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|sr\d"
    r"|disk/|mapper/|root$|mem$|kmem$|port$)"
)
_HOME: Final = re.compile(r"^(?:\$HOME|\$\{HOME\})(?=/|$)")


def _rm_root(command: SimpleCommand) -> bool:
    """`rm` recursive on /, a top-level directory or a home directory."""
    if not command.argv or command.argv[0] != "rm":
        return False
    recursive = no_preserve = False
    operands: list[str] = []
    options_done = False
    for arg in command.argv[1:]:
        if options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg.startswith("--"):
            recursive |= len(arg) > 2 and "--recursive".startswith(arg)
            no_preserve |= len(arg) > 3 and "--no-preserve-root".startswith(arg)
        else:
            recursive |= "r" in arg or "R" in arg
    return recursive and (no_preserve or any(_precious(path) for path in operands))


def _precious(path: str) -> bool:
    """/, a top-level directory (`/usr`, `/*`), or a home directory (`~`, `$HOME`, `~bob`)."""
    path = _HOME.sub("~", path)
    if path.startswith("~"):
        _, _, rest = path.partition("/")
        return _glob_tail_stripped("/" + rest) == "/"
    if not path.startswith("/"):
        return False
    return _glob_tail_stripped(path).count("/") == 1


def _glob_tail_stripped(path: str) -> str:
    """`path` normalised, without trailing components that are only globs or dots."""
    path = posixpath.normpath(re.sub("/+", "/", path))
    while path != "/" and set(posixpath.basename(path)) <= set("*?."):
        path = posixpath.dirname(path)
    return path


def _block_device(path: str) -> bool:
    return _BLOCK_DEVICE.match(posixpath.normpath(re.sub("/+", "/", path))) is not None


def _mkfs(command: SimpleCommand) -> bool:
    return bool(command.argv) and re.fullmatch(r"mkfs(\..+)?|mke2fs", command.argv[0]) is not None


def _power(words: frozenset[str], levels: frozenset[str]) -> Callable[[SimpleCommand], bool]:
    def test(command: SimpleCommand) -> bool:
        argv = command.argv
        if not argv:
            return False
        if argv[0] in words:
            return True
        if argv[0] in ("init", "telinit"):
            return len(argv) > 1 and argv[1] in levels
        return argv[0] == "systemctl" and any(arg in words for arg in argv[1:])

    return test


def _dd_to_device(command: SimpleCommand) -> bool:
    if not command.argv or command.argv[0] != "dd":
        return False
    return any(arg.startswith("of=") and _block_device(arg[3:]) for arg in command.argv[1:])


def _write_to_device(command: SimpleCommand) -> bool:
    """A redirection or `tee` onto a disk or memory device."""
    if any(">" in op and _block_device(target) for op, target in command.redirects):
        return True
    argv = command.argv
    return bool(argv) and argv[0] == "tee" and any(_block_device(arg) for arg in argv[1:])


DEFAULT_DENY: Final[tuple[DenyRule, ...]] = (
    DenyRule(
        name="rm-root",
        test=_rm_root,
        reason="recursive delete of /, a top-level directory or a home directory",
    ),
    DenyRule(name="mkfs", test=_mkfs, reason="formats a file system"),
    DenyRule(
        name="shutdown",
        test=_power(frozenset({"shutdown", "poweroff", "halt"}), frozenset({"0"})),
        reason="powers the machine off",
    ),
    DenyRule(
        name="reboot",
        test=_power(frozenset({"reboot", "kexec"}), frozenset({"6"})),
        reason="reboots the machine",
    ),
    DenyRule(name="dd-device", test=_dd_to_device, reason="dd onto a disk device"),
    DenyRule(name="device-write", test=_write_to_device, reason="writes onto a disk device"),
    DenyRule(
        name="fork-bomb",
        pattern=r"(?:^|[\s;&|])(\S+) \( ?\) (?:\S+ )*?\1 \| \1 &",
        reason="a function that spawns copies of itself",
    ),
)
"""The rules every `BashPolicy` starts with (REFERENCE §9.1, made precise)."""
