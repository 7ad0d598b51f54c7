#!/bin/sh
# Plain text on stdout: context on UserPromptSubmit and SessionStart, ignored elsewhere.
cat > /dev/null
echo "Current branch: main"
echo "Open issues: 3"
