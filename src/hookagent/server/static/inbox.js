// The inbox follows /inbox/events: a question asked that the page does not show, or one it
// shows answered or gone, reloads the page (the server renders every question). A question
// past its expiry waits for a worker to resume its run with the default, and the stream
// tells every client that connects of it: its card is marked where it is, since reloading
// for it would reload without end.
"use strict";
(function () {
  const cards = new Map(
    Array.from(document.querySelectorAll("[data-question]"), (el) => [el.dataset.question, el])
  );
  const events = new EventSource("/inbox/events");
  const reload = () => { events.close(); window.location.replace("/ui"); };
  const on = (kind, act) => events.addEventListener(kind, (e) => act(JSON.parse(e.data)));
  const expired = (card, question) => {
    if (card.classList.contains("expired")) return;
    card.classList.add("expired");
    const note = document.createElement("p");
    note.className = "message";
    note.textContent =
      "Expired: its run takes the default (" + question.default + ") when it resumes.";
    card.querySelector("h2").after(note);
  };
  on("asked", (q) => { if (!cards.has(q.id)) reload(); });
  on("answered", (q) => { if (cards.has(q.id)) reload(); });
  on("expired", (q) => {
    const card = cards.get(q.id);
    if (!card) return;
    if (q.expires_at === null) reload(); // one with no expiry its run went past: gone
    else expired(card, q);
  });
})();
