// The inbox follows /inbox/events: a question asked, answered or expired that the page
// does not show as it is reloads the page (the server renders every question).
"use strict";
(function () {
  const shown = new Set(
    Array.from(document.querySelectorAll("[data-question]"), (el) => el.dataset.question)
  );
  const events = new EventSource("/inbox/events");
  const reload = () => { events.close(); window.location.replace("/ui"); };
  events.addEventListener("asked", (e) => {
    if (!shown.has(JSON.parse(e.data).id)) reload();
  });
  for (const kind of ["answered", "expired"]) {
    events.addEventListener(kind, (e) => {
      if (shown.has(JSON.parse(e.data).id)) reload();
    });
  }
})();
