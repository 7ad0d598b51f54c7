"""Claude Code command hooks: settings files, the stdin/stdout protocol, and the bridge that
runs them at hookagent's points."""
