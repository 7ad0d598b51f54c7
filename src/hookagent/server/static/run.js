// A run's timeline, from /runs/{id}/events: each step, tool call, decision and status as
// it is recorded, shown as text (never as markup).
"use strict";
(function () {
  const timeline = document.getElementById("timeline");
  const status = document.getElementById("status");
  const events = new EventSource("/runs/" + encodeURIComponent(timeline.dataset.run) + "/events");
  const add = (kind, text) => {
    const item = document.createElement("li");
    const label = document.createElement("span");
    label.className = "kind";
    label.textContent = kind;
    item.append(label, document.createTextNode(text));
    timeline.append(item);
  };
  const describe = {
    step: (d) => "step " + d.index,
    tool_call: (d) => d.name + " " + JSON.stringify(d.args) + ": " + d.state,
    decision: (d) => [d.point, d.hook, d.outcome, d.reason, d.answer].filter(Boolean).join(" · "),
    status: (d) => d.status + (d.stop_reason ? " (" + d.stop_reason + ")" : ""),
  };
  for (const kind of Object.keys(describe)) {
    events.addEventListener(kind, (e) => {
      const data = JSON.parse(e.data);
      if (kind === "status") status.textContent = data.status;
      add(kind, describe[kind](data));
    });
  }
  events.addEventListener("end", () => events.close());
})();
