#!/bin/sh
# Trap §10.2: permissionDecision JSON on stderr with exit 2 (after plugin-dev validate-bash.sh).
cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check this command"}}' >&2
exit 2
