#!/bin/sh
# Trap §10.1: exits 1 believing it blocks (after Roberdan/MyConvergio enforce-line-limit.sh).
cat > /dev/null
echo "BLOCKED: file exceeds 250 lines" >&2
echo "split it first" >&2
exit 1
