"""PermissionRequest: allow Bash with a safer input and a session rule, deny everything else."""

import json
import sys

event = json.load(sys.stdin)
if event["tool_name"] == "Bash":
    choice = {
        "behavior": "allow",
        "updatedInput": {"command": event["tool_input"]["command"] + " --dry-run"},
        "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}]}],
    }
else:
    choice = {"behavior": "deny", "message": "only Bash is pre-approved", "interrupt": True}
output = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": choice}}
print(json.dumps(output))
