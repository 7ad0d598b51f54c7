"""`Grep{pattern, path?, glob?, type?, output_mode?, -i?, -n?, -A?, -B?, -C?, multiline?,
head_limit?, offset?}`, Claude Code's Grep.

It runs on ripgrep where `rg` is installed (the `hookagent[ripgrep]` extra, or a system
one), as Claude Code's does, and on a pure-Python walk otherwise (`grep_python.py`); the
result data says which (`engine`). Both take the same arguments and report the same shapes
(`grep_report.py`); the pattern syntax is the engine's (Rust `regex` or Python `re`, alike
for the common forms), and only ripgrep reads `.gitignore`.
"""

from __future__ import annotations

import re
from typing import Final, Literal, final

from pydantic import Field

from hookagent._errors import ConfigError, check_choice
from hookagent.capabilities.files import _grep_python as grep_python
from hookagent.capabilities.files import _grep_ripgrep as grep_ripgrep
from hookagent.capabilities.files._grep_report import Mode, Query, report
from hookagent.capabilities.files._paths import Root
from hookagent.capabilities.files._tool import Args, FileTool
from hookagent.tools._base import ToolContext, ToolResult

__all__ = ["DEFAULT_HEAD_LIMIT", "MAX_HEAD_LIMIT", "GrepArgs", "GrepTool", "SearchEngine"]

DEFAULT_HEAD_LIMIT: Final = 250
"""Output lines (or files) shown when no `head_limit` is given."""
MAX_HEAD_LIMIT: Final = 2000

SearchEngine = Literal["auto", "ripgrep", "python"]
"""`auto`: ripgrep where found, else Python; `ripgrep`: refuse to build without it."""


class GrepArgs(Args):
    pattern: str = Field(description="A regular expression.")
    path: str | None = Field(default=None, description="File or directory (default: root).")
    glob: str | None = Field(default=None, description='Only files matching, e.g. "*.py".')
    type: str | None = Field(
        default=None, description='Only files of this type, e.g. "py", "js", "rust".'
    )
    output_mode: Mode = Field(
        default="files_with_matches",
        description="content: matching lines; files_with_matches: paths; count: per file.",
    )
    case_insensitive: bool = Field(default=False, alias="-i", description="Ignore case.")
    line_numbers: bool = Field(default=True, alias="-n", description="Number content lines.")
    after: int | None = Field(default=None, ge=0, alias="-A", description="Lines after each.")
    before: int | None = Field(default=None, ge=0, alias="-B", description="Lines before each.")
    around: int | None = Field(
        default=None, ge=0, alias="-C", description="Lines before and after each match."
    )
    context: int | None = Field(default=None, ge=0, description="Same as -C.")
    multiline: bool = Field(
        default=False, description="Let patterns span lines (`.` matches newlines)."
    )
    head_limit: int | None = Field(
        default=None, ge=1, description=f"Show at most this many (default {DEFAULT_HEAD_LIMIT})."
    )
    offset: int = Field(default=0, ge=0, description="Skip this many lines (or files) first.")


@final
class GrepTool(FileTool[GrepArgs]):
    path_arg = "path"
    name = "Grep"
    args_model = GrepArgs

    def __init__(self, root: Root, engine: SearchEngine = "auto") -> None:
        super().__init__(root)
        check_choice(engine, ("auto", "ripgrep", "python"), key="search")
        rg = grep_ripgrep.find_rg() if engine != "python" else None
        if engine == "ripgrep" and rg is None:
            raise ConfigError(
                "ripgrep (`rg`) was not found next to Python or on PATH; install the "
                "`hookagent[ripgrep]` extra or a system ripgrep, or use search='python'",
                key="search",
                value=engine,
            )
        self.rg: Final = rg
        self.description = (  # type: ignore[misc]  # per engine: the syntax differs
            f"Search file contents with a regular expression ({self.syntax} syntax). "
            "output_mode files_with_matches (default; newest first), content "
            "(path:line:text, with -A/-B/-C context lines) or count; `glob` or `type` filter "
            "files; `-i` ignores case; `multiline` lets matches span lines; `head_limit` and "
            "`offset` page through long results."
            + (" Files ignored by .gitignore in a git repository are skipped." if rg else "")
        )

    @property
    def engine(self) -> str:
        return "ripgrep" if self.rg is not None else "python"

    @property
    def syntax(self) -> str:
        return "ripgrep (Rust regex)" if self.rg is not None else "Python `re`"

    def execute(self, args: GrepArgs, ctx: ToolContext, /) -> ToolResult:
        limit = min(args.head_limit or DEFAULT_HEAD_LIMIT, MAX_HEAD_LIMIT)
        around = args.around if args.around is not None else (args.context or 0)
        query = Query(
            pattern=args.pattern,
            mode=args.output_mode,
            case_insensitive=args.case_insensitive,
            multiline=args.multiline,
            glob=args.glob,
            file_type=args.type,
            before=args.before if args.before is not None else around,
            after=args.after if args.after is not None else around,
            enough=args.offset + limit,
        )
        where = self.root.locate(args.path or ".")
        notes: tuple[str, ...] = ()
        try:
            if self.rg is not None:
                files, cut = grep_ripgrep.search(self.rg, self.root, where, query)
                if cut:
                    notes = ("ripgrep's output was cut at 64 MiB; narrow the search",)
            else:
                files = grep_python.search(self.root, where, query)
        except re.error as exc:
            return ToolResult.error(f"Invalid regular expression {args.pattern!r}: {exc}")
        except grep_ripgrep.RipgrepError as exc:
            detail = str(exc)
            if detail.startswith("regex parse error"):
                return ToolResult.error(f"Invalid regular expression {args.pattern!r}: {detail}")
            return ToolResult.error(f"Grep {args.pattern!r}: {detail}")
        return report(
            query,
            files,
            line_numbers=args.line_numbers,
            limit=limit,
            offset=args.offset,
            engine=self.engine,
            notes=notes,
        )
