// The replay viewer's shared controls (after Kaggle's player): play/pause, a scrubber, step
// counter, speed (up to instant), jumps by decision, trick or betting round, deal and game (each
// with a key), and the viewpoint (all cards or one seat, whose view the server computes: the
// page fetches the API's replay, /api/matches/<id>/replay/ or ?seat=N, so no hidden card of
// another seat is ever in this page). The URL keeps ?step=&seat= so any moment can be linked.
import { buildTimeline, nextStop, previousStop } from "./model.js";
import { render } from "./render.js";
import { showDecision } from "./inspector.js";

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
  cancel: () => {}, // stops the scheduled step
};

function setUrl() {
  const url = new URL(window.location.href);
  url.searchParams.set("step", String(state.index));
  if (viewpoint.value === "all") url.searchParams.delete("seat");
  else url.searchParams.set("seat", viewpoint.value);
  window.history.replaceState(null, "", url);
}

function last() { return state.timeline.steps.length - 1; }

function show(index) {
  if (!state.timeline) return; // still loading
  state.index = Math.max(0, Math.min(last(), index));
  scrubber.value = String(state.index);
  counter.textContent = `${state.index} / ${last()}`;
  const step = state.timeline.steps[state.index];
  const deal = state.timeline.deals.findIndex((x) => x.g === step.g && x.d === step.d);
  dealJump.value = String(deal);
  const inspector = render(board, state.replay, state.timeline, state.index, labels);
  // the inspector asks the server for the decision only once playback rests on it
  if (!state.playing) {
    setUrl();
    showDecision(inspector, root.dataset.decisionUrl, state.replay, step, labels);
  }
}

function pause() {
  const was = state.playing;
  state.playing = false;
  state.cancel();
  playButton.textContent = "▶";
  playButton.setAttribute("aria-label", labels.play);
  if (was) show(state.index);
}

// "instant" plays as fast as the screen shows frames: several steps per frame, drawing the last
const INSTANT_STEPS_PER_FRAME = 8;

function tick() {
  if (!state.playing) return;
  if (state.index >= last()) { pause(); return; }
  const delay = Number(speed.value);
  show(state.index + (delay === 0 ? INSTANT_STEPS_PER_FRAME : 1));
  schedule(delay);
}

function schedule(delay) {
  if (delay === 0) {
    const frame = requestAnimationFrame(tick);
    state.cancel = () => cancelAnimationFrame(frame);
  } else {
    const timer = setTimeout(tick, delay);
    state.cancel = () => clearTimeout(timer);
  }
}

function play() {
  if (!state.timeline) return;
  if (state.index >= last()) show(0); // play at the end restarts
  state.playing = true;
  playButton.textContent = "❚❚";
  playButton.setAttribute("aria-label", labels.pause);
  schedule(Number(speed.value));
}

function toggle() { if (state.playing) pause(); else play(); }
function go(index) { pause(); show(index); }

/** Where each navigation action leads from the current step. */
const MOVES = {
  first: () => 0,
  last: () => Infinity,
  back: () => state.index - 1,
  forward: () => state.index + 1,
  "prev-round": () => previousStop(state.timeline.rounds, state.index),
  "next-round": () => nextStop(state.timeline.rounds, state.index, last()),
  "prev-deal": () => previousStop(state.timeline.deals.map((x) => x.step), state.index),
  "next-deal": () => nextStop(state.timeline.deals.map((x) => x.step), state.index, last()),
  "prev-game": () => previousStop(state.timeline.games, state.index),
  "next-game": () => nextStop(state.timeline.games, state.index, last()),
};

function move(name) { if (state.timeline) go(MOVES[name]()); }

function load(replay, index) {
  state.replay = replay;
  state.timeline = buildTimeline(replay);
  scrubber.max = String(last());
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

for (const button of root.querySelectorAll(".controls button[data-act]")) {
  const act = button.dataset.act;
  button.addEventListener("click", act === "play" ? toggle : () => move(act));
}
scrubber.addEventListener("input", () => go(Number(scrubber.value)));
dealJump.addEventListener("change", () => go(state.timeline.deals[Number(dealJump.value)].step));
viewpoint.addEventListener("change", switchViewpoint);
board.addEventListener("click", (event) => {
  const link = event.target instanceof Element ? event.target.closest("a[data-step]") : null;
  if (!link) return;
  event.preventDefault(); // the traveller's links: the same page at another step
  go(Number(link.dataset.step));
  root.scrollIntoView({ block: "start" });
});

const KEYS = {
  ArrowRight: (shift) => (shift ? "next-round" : "forward"),
  ArrowLeft: (shift) => (shift ? "prev-round" : "back"),
  "]": () => "next-deal",
  "[": () => "prev-deal",
  "}": () => "next-game",
  "{": () => "prev-game",
  Home: () => "first",
  End: () => "last",
};

document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target instanceof HTMLSelectElement || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === " " && !(target instanceof HTMLButtonElement) && !typing && !(target instanceof HTMLElement && target.closest("summary"))) {
    event.preventDefault();
    toggle();
    return;
  }
  if (typing || !KEYS[event.key]) return;
  event.preventDefault();
  move(KEYS[event.key](event.shiftKey));
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
