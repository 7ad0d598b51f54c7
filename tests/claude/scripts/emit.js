// A generic Node hook: reads the event, prints argv[2] to stdout, argv[4] to stderr,
// and exits with argv[3].
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  JSON.parse(input);
  process.stdout.write(process.argv[2] || "");
  process.stderr.write(process.argv[4] || "");
  process.exitCode = Number(process.argv[3] || 0);
});
