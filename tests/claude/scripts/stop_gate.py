"""Stop: keep Claude working once, then let it stop (stop_hook_active breaks the loop)."""

import json
import sys

event = json.load(sys.stdin)
if event.get("stop_hook_active"):
    print("{}")
else:
    print(json.dumps({"decision": "block", "reason": "Run the test suite before stopping."}))
