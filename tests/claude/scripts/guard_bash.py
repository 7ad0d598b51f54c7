"""A PreToolUse guard for Bash, in the style of Claude Code's bash_command_validator example.

Each rule answers in a different form a real script uses.
"""

import json
import re
import sys

event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")


def answer(decision: str, reason: str, **more: object) -> None:
    output = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
            **more,
        }
    }
    print(json.dumps(output))
    sys.exit(0)


if re.search(r"\brm\s+-rf\b", command):
    answer("deny", "rm -rf is not allowed here")
if command.startswith("sudo "):
    answer("ask", "sudo needs a human")
if command.startswith("deploy"):
    answer("defer", "deploys wait for the release manager")
if re.search(r"\bcurl\b", command):
    print("Network access is blocked: use the fetch tool", file=sys.stderr)
    sys.exit(2)
if command.startswith("git push --force"):
    print(json.dumps({"decision": "block", "reason": "no force pushes"}))  # legacy form
    sys.exit(0)
if command.startswith("ls"):
    print(json.dumps({"decision": "approve", "reason": "read-only"}))  # legacy form
    sys.exit(0)
if command.startswith("grep "):
    rewritten = {"command": "rg " + command[len("grep ") :]}
    answer("allow", "rg is faster", updatedInput=rewritten, additionalContext="grep became rg")
answer("allow", "looks fine")
