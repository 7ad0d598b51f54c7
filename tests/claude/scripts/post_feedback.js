// PostToolUse: flag the result, add context and replace the tool's output.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const event = JSON.parse(input);
  const name = process.argv[2] || "updatedToolOutput";
  console.log(
    JSON.stringify(
      {
        decision: "block",
        reason: `lint failed on ${event.tool_input.file_path}`,
        hookSpecificOutput: {
          hookEventName: "PostToolUse",
          additionalContext: "run the formatter",
          [name]: { filePath: event.tool_input.file_path, success: true, note: "redacted" },
        },
      },
      null,
      2,
    ),
  );
});
