// SessionStart: context, a first message, a title, watch paths, and an env var for Bash.
const fs = require("fs");
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const event = JSON.parse(input);
  if (process.env.CLAUDE_ENV_FILE) {
    fs.appendFileSync(process.env.CLAUDE_ENV_FILE, "export HOOKED=1\n");
  }
  console.log(
    JSON.stringify({
      systemMessage: `session ${event.source}`,
      hookSpecificOutput: {
        hookEventName: "SessionStart",
        additionalContext: "This repo uses uv.",
        initialUserMessage: "Summarise open TODOs",
        sessionTitle: "triage",
        watchPaths: ["pyproject.toml"],
      },
    }),
  );
});
