"""Read a shell command line the way the deny rules need it: as simple commands.

This is a guard rail against accidents, not a shell parser or a sandbox. It undoes what
changes a command's spelling but not its meaning (whitespace, quoting, `sudo`/`env`/`command`
prefixes, `/bin/rm` for `rm`, backticks for `$(...)`), splits lists and pipelines (`;`, `&&`,
`||`, `|`, `&`, newlines, subshells) and reads nested commands (`$(...)`, backticks, `<(...)`,
`bash -c "..."`, `eval "..."`) as commands of their own. Text that only looks like a
substitution (inside single quotes, a heredoc body) is read as one too: a false alarm costs a
blocked call, a miss costs a disk. Variables, computed strings and encodings get through.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterator
from typing import Final

from hookagent._record import record

__all__ = ["ParsedCommand", "SimpleCommand", "parse_command"]

_OPERATOR_CHARS: Final = frozenset("();<>|&")
_MAX_DEPTH: Final = 4
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_KEYWORDS: Final = frozenset(
    {
        "{",
        "}",
        "!",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "time",
        "coproc",
    }
)
"""Words that may stand before a command without changing which command runs."""
_PLAIN_PREFIXES: Final = frozenset({"exec", "command", "builtin", "nohup", "busybox"})
_ARG_OPTIONS: Final[dict[str, frozenset[str]]] = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "-k"}),
}
"""Prefix commands, with their options that take a separate argument."""
_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "su"})


@record(kw_only=False)
class SimpleCommand:
    """One command of a command line, as the deny rules see it."""

    argv: tuple[str, ...]
    """Its words with quotes removed and prefixes (`sudo`, `env`, `VAR=x`, ...) dropped;
    `argv[0]` is the program's base name."""
    redirects: tuple[tuple[str, str], ...] = ()
    """`(operator, target)` pairs, e.g. `(">", "/dev/sda")`."""

    @property
    def text(self) -> str:
        """The words and redirections joined by single spaces: what str rules search."""
        parts = [*self.argv, *(f"{op} {target}" for op, target in self.redirects)]
        return " ".join(parts)


@record(kw_only=False)
class ParsedCommand:
    """A command line split into simple commands, nested ones included."""

    commands: tuple[SimpleCommand, ...]
    line: str
    """The top-level line, normalised: each simple command's `text`, joined by its
    operators (`;`, `&&`, `|`, `(`, ...) with single spaces."""


def parse_command(command: str) -> ParsedCommand:
    """Split `command` into the simple commands bash would run."""
    return _parse(command, 0)


def _parse(command: str, depth: int) -> ParsedCommand:
    commands: list[SimpleCommand] = []
    line: list[str] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    tokens = iter(_tokens(_prepare(command)))

    def flush() -> None:
        simple = _simplify(words, redirects)
        if simple.argv or simple.redirects:
            commands.append(simple)
            line.append(simple.text)
        words.clear()
        redirects.clear()

    for token in tokens:
        if not _is_operator(token):
            words.append(token)
        elif "(" not in token and ")" not in token and ("<" in token or ">" in token):
            redirects.append((token, next(tokens, "")))
        else:
            flush()
            line.append(token)
    flush()
    nested = [inner for simple in commands for inner in _nested(simple, depth)]
    return ParsedCommand(commands=(*commands, *nested), line=" ".join(line))


def _prepare(command: str) -> str:
    """Undo what the tokenizer would misread: line continuations, newlines (command
    separators), backticks (read as `$(...)`), ANSI-C quotes (read as plain quotes)."""
    text = command.replace("\\\n", "").replace("\r\n", "\n").replace("\n", " ; ")
    text = text.replace("$'", "'").replace('$"', '"')
    pieces = text.split("`")
    out = [pieces[0]]
    for index, piece in enumerate(pieces[1:]):
        out.append(" $( " if index % 2 == 0 else " ) ")
        out.append(piece)
    return "".join(out)


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # `#` hides nothing from the check: a comment may end at a newline
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: bash would refuse it; read it without quotes
        loose = shlex.shlex(text, posix=True, punctuation_chars=True)
        loose.whitespace_split = True
        loose.commenters = ""
        loose.quotes = ""
        loose.escape = ""
        return [re.sub(r"[\\'\"]", "", token) for token in loose]


def _is_operator(token: str) -> bool:
    return bool(token) and all(char in _OPERATOR_CHARS for char in token)


def _simplify(words: list[str], redirects: list[tuple[str, str]]) -> SimpleCommand:
    argv = _strip_prefixes(words)
    if argv:
        argv[0] = os.path.basename(argv[0]) or argv[0]
    return SimpleCommand(argv=tuple(argv), redirects=tuple(redirects))


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop keywords, assignments and prefix commands, so `argv[0]` is what runs."""
    index = 0
    while index < len(words):
        word = words[index]
        name = os.path.basename(word)
        if word in _KEYWORDS or _ASSIGNMENT.match(word) or name in _PLAIN_PREFIXES:
            index += 1
        elif name in _ARG_OPTIONS:
            index = _skip_options(words, index + 1, _ARG_OPTIONS[name])
            if name == "timeout" and index < len(words):
                index += 1  # the duration
        else:
            break
    return words[index:]


def _skip_options(words: list[str], index: int, with_arg: frozenset[str]) -> int:
    while index < len(words) and words[index].startswith("-"):
        option = words[index]
        index += 1
        if option == "--":
            break
        if option in with_arg:
            index += 1
    return index


def _nested(simple: SimpleCommand, depth: int) -> Iterator[SimpleCommand]:
    """Commands hidden inside words: substitutions, `bash -c` scripts, `eval` strings."""
    if depth >= _MAX_DEPTH:
        return
    bodies = [body for word in simple.argv for body in _substitutions(word)]
    bodies += [body for _, target in simple.redirects for body in _substitutions(target)]
    script = _inline_script(simple.argv)
    if script is not None:
        bodies.append(script)
    for body in bodies:
        yield from _parse(body, depth + 1).commands


def _substitutions(word: str) -> Iterator[str]:
    """The bodies of `$(...)` in a word (quoted substitutions stay inside one token)."""
    start = word.find("$(")
    while start != -1:
        level, end = 0, start + 1
        for end in range(start + 1, len(word)):
            level += {"(": 1, ")": -1}.get(word[end], 0)
            if level == 0:
                break
        yield word[start + 2 : end if level == 0 else len(word)]
        start = word.find("$(", end)


def _inline_script(argv: tuple[str, ...]) -> str | None:
    """The script of `bash -c SCRIPT`, `su -c SCRIPT` or `eval WORDS...`."""
    if not argv:
        return None
    if argv[0] == "eval":
        return " ".join(argv[1:])
    if argv[0] not in _SHELLS:
        return None
    for index, word in enumerate(argv[1:], start=1):
        if word.startswith("-") and not word.startswith("--") and "c" in word:
            return argv[index + 1] if index + 1 < len(argv) else None
        if not word.startswith("-") and argv[0] != "su":  # `su USER -c SCRIPT`
            return None
    return None
