#!/bin/sh
# The classic shell hook: one `read -r` of stdin (no trailing newline comes, so read returns
# non-zero but fills the variable), then a JSON answer built with printf.
read -r line
printf '{"payload":%s,"project":"%s","claudecode":"%s","session":"%s","env_file":"%s","plugin_root":"%s","otel":"%s","pwd":"%s"}' \
  "$line" "$CLAUDE_PROJECT_DIR" "$CLAUDECODE" "$CLAUDE_CODE_SESSION_ID" "$CLAUDE_ENV_FILE" \
  "$CLAUDE_PLUGIN_ROOT" "$OTEL_EXPORTER_OTLP_ENDPOINT" "$(pwd)"
