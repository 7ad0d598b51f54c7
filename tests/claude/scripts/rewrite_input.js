// PreToolUse: replace the Bash command with argv[2]; argv[3] is the decision ("none": omit it).
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const event = JSON.parse(input);
  const out = {
    hookEventName: "PreToolUse",
    updatedInput: { ...event.tool_input, command: process.argv[2] },
  };
  if (process.argv[3] && process.argv[3] !== "none") {
    out.permissionDecision = process.argv[3];
    out.permissionDecisionReason = `rewritten (${process.argv[3]})`;
  }
  console.log(JSON.stringify({ hookSpecificOutput: out }));
});
