// The inspector beside the board: at a decision, what the acting seat's bot was sent (its
// observation and legal list), what it answered and how long it took; for the bot's owner, what
// it wrote to stderr meanwhile. The replay has the answer and the time; the rest comes from the
// server (/matches/<id>/decision/), which re-plays the match to that point and checks who may
// read the stderr.
import { h } from "./dom.js";
import { seatName } from "./render.js";

const cache = new Map();
let latest = 0;

async function fetchDecision(url) {
  if (!cache.has(url)) {
    cache.set(url, fetch(url, { headers: { Accept: "application/json" } }).then(async (response) => {
      const body = await response.json();
      if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
      return body;
    }));
  }
  try {
    return await cache.get(url);
  } catch (error) {
    cache.delete(url); // a failure is not kept: the next visit asks again
    throw error;
  }
}

export function showDecision(container, baseUrl, replay, step, labels) {
  const ticket = ++latest;
  container.replaceChildren(h("h3", { text: labels.inspector }));
  if (step.e < 0) {
    container.append(h("p", { class: "muted", text: labels.no_decision }));
    return;
  }
  const event = replay.games[step.g].deals[step.d].events[step.e];
  const ms = event.ms === null || event.ms === undefined ? "–" : `${event.ms} ms`;
  container.append(h("dl", { class: "decision" },
    h("dt", { text: labels.seat }), h("dd", { text: `${event.seat} · ${seatName(replay, step.g, event.seat)}` }),
    h("dt", { text: labels.answer }), h("dd", {}, h("code", { class: "answer", text: event.action })),
    h("dt", { text: labels.time }), h("dd", { class: "decision-time", text: ms })));
  if (replay.viewpoint && replay.viewpoint.seat !== event.seat) {
    // a seat's view: another seat's observation would show its hand, so it is not asked for
    container.append(h("p", { class: "muted other-seat", text: labels.other_seat }));
    return;
  }
  const details = h("div", { class: "decision-details", "aria-busy": "true" });
  container.append(details);
  const url = `${baseUrl}?game=${step.g}&deal=${step.d}&event=${step.e}`;
  fetchDecision(url).then(
    (body) => { if (ticket === latest) fillDetails(details, body, labels); },
    (error) => {
      if (ticket !== latest) return;
      details.removeAttribute("aria-busy");
      details.replaceChildren(h("p", { role: "alert", text: `${labels.decision_failed} ${error.message}` }));
    },
  );
}

function fillDetails(details, body, labels) {
  details.removeAttribute("aria-busy");
  const legal = h("ol", { class: "legal", "aria-label": labels.legal });
  for (const action of body.legal) {
    legal.append(h("li", { class: action === body.action ? "chosen" : null }, h("code", { text: action })));
  }
  const observation = h("pre", { class: "observation", tabindex: "0", text: JSON.stringify(body.observation, null, 1) });
  details.replaceChildren(
    h("h4", { text: `${labels.legal} (${body.legal.length})` }), legal,
    h("details", { class: "observation-box" }, h("summary", { text: labels.observation }), observation),
  );
  if (body.stderr !== undefined) {
    details.append(h("h4", { text: labels.stderr }));
    details.append(body.stderr
      ? h("pre", { class: "stderr", tabindex: "0", text: body.stderr })
      : h("p", { class: "muted", text: body.stderr_note || labels.stderr_none }));
  }
}
