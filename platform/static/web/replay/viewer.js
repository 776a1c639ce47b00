// The replay viewer's shared controls (after Kaggle's player): play/pause, a scrubber, step
// counter, speed, jump to a deal, Space/←/→/Home/End, and the viewpoint (all cards or one seat,
// whose view the server computes: the page fetches the API's replay, /api/matches/<id>/replay/ or
// ?seat=N, so no hidden card of another seat is ever in this page). The URL keeps ?step=&seat= so
// any moment can be linked.
import { buildTimeline } from "./model.js";
import { render } from "./render.js";

const root = document.getElementById("viewer");
const labels = JSON.parse(document.getElementById("viewer-labels").textContent);
const board = document.getElementById("board");
const scrubber = document.getElementById("scrubber");
const counter = document.getElementById("counter");
const playButton = root.querySelector('[data-act="play"]');
const speed = document.getElementById("speed");
const dealJump = document.getElementById("deal-jump");
const viewpoint = document.getElementById("viewpoint");

const state = {
  replay: null,
  timeline: null,
  index: 0,
  playing: false,
  timer: null,
};

function setUrl() {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(state.index));
  if (viewpoint.value === "all") url.searchParams.delete("seat");
  else url.searchParams.set("seat", viewpoint.value);
  window.history.replaceState(null, "", url);
}

function show(index) {
  if (!state.timeline) return; // still loading
  const last = state.timeline.steps.length - 1;
  state.index = Math.max(0, Math.min(last, index));
  scrubber.value = String(state.index);
  counter.textContent = `${state.index} / ${last}`;
  const step = state.timeline.steps[state.index];
  const deal = state.timeline.deals.findIndex((x) => x.g === step.g && x.d === step.d);
  dealJump.value = String(deal);
  render(board, state.replay, state.timeline, state.index, labels);
  if (!state.playing) setUrl();
}

function pause() {
  state.playing = false;
  clearTimeout(state.timer);
  playButton.textContent = "▶";
  playButton.setAttribute("aria-label", labels.play);
  setUrl();
}

function tick() {
  if (!state.playing) return;
  if (state.index >= state.timeline.steps.length - 1) { pause(); return; }
  show(state.index + 1);
  state.timer = setTimeout(tick, Number(speed.value));
}

function play() {
  if (!state.timeline) return;
  if (state.index >= state.timeline.steps.length - 1) show(0); // play at the end restarts
  state.playing = true;
  playButton.textContent = "❚❚";
  playButton.setAttribute("aria-label", labels.pause);
  state.timer = setTimeout(tick, Number(speed.value));
}

function toggle() { if (state.playing) pause(); else play(); }
function stepBy(delta) { pause(); show(state.index + delta); }

function load(replay, index) {
  state.replay = replay;
  state.timeline = buildTimeline(replay);
  scrubber.max = String(state.timeline.steps.length - 1);
  dealJump.replaceChildren(...state.timeline.deals.map((x, i) => {
    const option = document.createElement("option");
    option.value = String(i);
    const games = replay.games.length > 1 ? `${labels.game} ${x.g + 1}, ` : "";
    option.textContent = `${games}${replay.game === "badugi" ? labels.hand : labels.deal} ${x.d + 1}`;
    return option;
  }));
  show(index);
}

function switchViewpoint() {
  // a new page: the server embeds that seat's view, so no hidden card is ever in this page
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(state.index));
  if (viewpoint.value === "all") url.searchParams.delete("seat");
  else url.searchParams.set("seat", viewpoint.value);
  window.location.assign(url);
}

root.querySelector('[data-act="first"]').addEventListener("click", () => { pause(); show(0); });
root.querySelector('[data-act="back"]').addEventListener("click", () => stepBy(-1));
root.querySelector('[data-act="forward"]').addEventListener("click", () => stepBy(1));
root.querySelector('[data-act="last"]').addEventListener("click", () => { pause(); show(Infinity); });
playButton.addEventListener("click", toggle);
scrubber.addEventListener("input", () => { pause(); show(Number(scrubber.value)); });
dealJump.addEventListener("change", () => { pause(); show(state.timeline.deals[Number(dealJump.value)].step); });
viewpoint.addEventListener("change", switchViewpoint);
document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target instanceof HTMLSelectElement || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === " " && !(target instanceof HTMLButtonElement) && !typing) { event.preventDefault(); toggle(); }
  else if (typing) return;
  else if (event.key === "ArrowRight") { event.preventDefault(); stepBy(1); }
  else if (event.key === "ArrowLeft") { event.preventDefault(); stepBy(-1); }
  else if (event.key === "Home") { event.preventDefault(); pause(); show(0); }
  else if (event.key === "End") { event.preventDefault(); pause(); show(Infinity); }
});

async function fetchReplay() {
  const response = await fetch(root.dataset.replayUrl, { headers: { Accept: "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ? body.error.message : response.statusText);
  return body;
}

const params = new URLSearchParams(window.location.search);
fetchReplay().then(
  (replay) => { board.removeAttribute("aria-busy"); load(replay, Number(params.get("step")) || 0); },
  (error) => {
    board.removeAttribute("aria-busy");
    const message = document.createElement("p");
    message.setAttribute("role", "alert");
    message.textContent = `${labels.load_failed} ${error.message}`;
    board.replaceChildren(message);
  },
);
