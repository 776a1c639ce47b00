// Draws the board at a step: the table with every seat, the cards, the game's story, scores,
// the result at the end of a game, and for a duplicate match the deal as every game played it.
// A pure function of (replay, timeline, step, labels) into a container; it returns the empty
// inspector box beside the table, which the viewer fills with the decision (inspector.js).
import { cardElement, sortHand, suitSymbol } from "./cards.js";
import { h, s } from "./dom.js";
import { badugiValue, boardAt, endsGame, runningTotals } from "./model.js";

const COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"];

export function seatName(replay, g, seat) {
  return replay.entrants[replay.games[g].seats[seat]];
}

function seatColour(replay, seat) {
  const team = replay.teams ? replay.teams.findIndex((t) => t.includes(seat)) : seat;
  return COLOURS[team % COLOURS.length];
}

function describe(line, board, labels) {
  const a = labels.actions;
  const act = line.action;
  if (line.kind === "card") return `${a.plays} ${act}`;
  if (act === "pass") return a.pass;
  if (act === "take") return a.take;
  if (act.startsWith("trump:")) return `${a.trump}: ${labels.suits[act.slice(6)]}`;
  if (act.startsWith("contract:")) {
    const [, name, param] = act.split(":");
    const extra = param ? (labels.suits[param] || param) : "";
    return `${a.contract}: ${labels.contracts[name] || name}${extra ? ` (${extra})` : ""}`;
  }
  if (act.startsWith("double:")) {
    const who = act.slice(7);
    return who === "none" ? a.no_double : `${a.double}: ${who}`;
  }
  if (line.kind === "draw") return line.count === 0 ? a.pat : `${a.drew} ${line.count}`;
  if (board.korean && (act === "bet" || act === "raise")) return a[`${act}_korean`];
  return a[act] || act;
}

function tableCentre(board, replay, g, labels) {
  const centre = h("div", { class: "centre" });
  if (board.layout) {
    centre.append(h("p", { class: "centre-title", text: labels.layout }));
    for (const suit of ["s", "h", "d", "c"]) {
      const row = h("div", { class: "layout-row", "aria-label": labels.suits[suit] },
        h("span", { class: `suit-label suit-${suit}`, text: suitSymbol(suit) }));
      for (const card of sortHand(board.layout[suit]).reverse()) row.append(cardElement(card, labels, { small: true }));
      centre.append(row);
    }
    return centre;
  }
  if (board.game === "badugi") {
    const pot = board.pot === null ? "–" : String(board.pot);
    centre.append(h("p", { class: "pot", text: `${labels.pot}: ${pot}` }));
    centre.append(h("p", { text: board.drawRound > board.street ? `${labels.draw_round} ${board.drawRound}` : `${labels.street} ${board.street + 1}` }));
    return centre;
  }
  if (board.upcard) {
    centre.append(h("div", { class: "upcard" }, h("span", { text: labels.upcard }), cardElement(board.upcard, labels)));
  }
  const trick = board.trick.length ? board.trick : (board.lastTrick ? board.lastTrick.cards : []);
  if (trick.length) {
    const done = !board.trick.length;
    const box = h("div", { class: `trick${done ? " done" : ""}` });
    for (const play of trick) {
      box.append(h("figure", { class: "played" }, cardElement(play.card, labels),
        h("figcaption", { text: `${play.seat}${done && board.lastTrick.winner === play.seat ? " ★" : ""}` })));
    }
    centre.append(box);
    if (done) centre.append(h("p", { class: "muted", text: `${labels.winner}: ${seatName(replay, g, board.lastTrick.winner)}` }));
  }
  return centre;
}

function seatPanel(board, replay, g, seat, me, step, faults, labels) {
  const roles = [];
  if (seat === board.dealer) roles.push(board.game === "badugi" ? labels.button : labels.dealer);
  if (board.taker === seat) roles.push(board.game === "belote" ? labels.taker : labels.caller);
  if (board.contract && board.contract.declarer === seat) roles.push(labels.declarer);
  if (board.folded[seat]) roles.push(labels.folded);
  const panel = h("section", {
    class: `seat pos-${(seat - me + board.n) % board.n}${board.folded[seat] ? " folded" : ""}`,
    style: `--team: ${seatColour(replay, seat)}`, "data-seat": seat,
    "aria-label": `${labels.seat} ${seat}: ${seatName(replay, g, seat)}`,
  });
  panel.append(h("h3", {}, h("span", { class: "seat-no", text: `${seat}` }), ` ${seatName(replay, g, seat)}`,
    roles.length ? h("span", { class: "role", text: ` · ${roles.join(" · ")}` }) : null));
  let hand = board.hands[seat];
  if (board.revealed && board.revealed[seat]) hand = board.revealed[seat];
  const handBox = h("div", { class: "hand", "data-seat": seat });
  for (const card of sortHand(hand)) handBox.append(cardElement(card, labels, { small: board.n > 4 }));
  panel.append(handBox);
  const facts = [];
  if (board.game !== "badugi" && !board.layout) facts.push(`${labels.tricks}: ${board.tricks[seat]}`);
  if (board.game === "badugi") facts.push(...badugiFacts(board, hand, seat, labels));
  if (board.over) facts.push(`${labels.deal_score}: ${board.scores[seat]}`);
  if (board.over && board.game === "badugi" && board.info.names && board.info.names[seat]) facts.push(board.info.names[seat]);
  panel.append(h("p", { class: "facts", text: facts.join(" · ") }));
  for (const fault of faults) {
    if (fault.g === g && fault.seat === seat && fault.step <= step) {
      panel.append(h("p", { class: "fault", role: "note", text: `${labels.fault}: ${fault.verdict} — ${fault.message}` }));
    }
  }
  return panel;
}

/** A Badugi seat's money and hand: this round's bet, the hand's total, the stack, the label. */
function badugiFacts(board, hand, seat, labels) {
  const facts = [];
  if (!board.korean && board.put) {
    facts.push(`${labels.bet_round}: ${board.put[seat]}`);
    facts.push(`${labels.committed}: ${board.committed[seat]}`);
    if (board.stack) facts.push(`${labels.stack}: ${board.stack - board.committed[seat]}`);
  }
  const value = board.folded[seat] ? null : badugiValue(hand);
  if (value) facts.push(`${labels.badugi_kinds[value.size]}: ${value.ranks.join("-")}`);
  return facts;
}

/** Seat groups that share a score (the teams), or every seat alone. */
function sides(replay, n) {
  return replay.teams || [...Array(n).keys()].map((seat) => [seat]);
}

/** At the end of a game (and of the match), who won it with what, best first. */
function resultBanner(replay, timeline, index, g, labels) {
  if (!endsGame(timeline, index)) return null;
  const played = replay.games[g];
  const groups = sides(replay, played.seats.length);
  const line = (score, names) => groups
    .map((side) => ({ score: score(side[0]), names: side.map(names).join(" + ") }))
    .sort((a, b) => b.score - a.score)
    .map((row) => `${row.names} ${row.score}`).join(" · ");
  const box = h("div", { class: "result-banner", id: "step-result", role: "status" });
  const title = replay.games.length > 1 ? `${labels.game} ${g + 1}/${replay.games.length} ${labels.over}: ` : `${labels.game_over}: `;
  box.append(h("p", { class: "game-result" }, h("strong", { text: title }), line((seat) => played.returns[seat], (seat) => seatName(replay, g, seat))));
  if (index === timeline.steps.length - 1 && replay.result) {
    // entrant i started in seat i, so the seat groups are also the entrant groups
    const { scores, placings } = replay.result;
    const rows = groups.map((side) => ({ place: placings[side[0]], text: `${side.map((e) => replay.entrants[e]).join(" + ")} ${scores[side[0]]}` }))
      .sort((a, b) => a.place - b.place).map((row) => `${row.place}. ${row.text}`);
    box.append(h("p", { class: "match-result" }, h("strong", { text: `${labels.match_result}: ` }), rows.join(" · ")));
  }
  return box;
}

/** For a duplicate match: one board (deal d) as every game of the set played it, side by side
 * (a bridge traveller): who held each seat, the contract or bids, what each seat scored, each
 * entrant's score on the board, with a link to that deal in each game. */
function traveller(replay, timeline, d, labels) {
  if (!replay.duplicate || replay.games.length < 2) return null;
  if (replay.games.some((game) => !game.deals[d] || !game.deals[d].events.length)) return null;
  const n = replay.games[0].seats.length;
  const table = h("table", { class: "traveller" },
    h("caption", { text: `${labels.board} ${d + 1}: ${labels.traveller}` }));
  const head = h("tr", {}, h("th", { scope: "col", text: labels.game }));
  for (let seat = 0; seat < n; seat++) head.append(h("th", { scope: "col", text: `${labels.seat} ${seat}` }));
  head.append(h("th", { scope: "col", text: labels.contract_or_bids }), h("th", { scope: "col", text: labels.view }));
  table.append(h("thead", {}, head));
  const body = h("tbody");
  const totals = new Array(replay.entrants.length).fill(0);
  replay.games.forEach((game, g) => {
    const deal = game.deals[d];
    const row = h("tr", { "data-game": g }, h("th", { scope: "row", text: `${g + 1}` }));
    for (let seat = 0; seat < n; seat++) {
      totals[game.seats[seat]] += deal.scores[seat] || 0;
      row.append(h("td", {},
        h("span", { class: "holder", text: replay.entrants[game.seats[seat]] }),
        h("span", { class: "held", text: ` ${handText(deal.hands[seat])}` }),
        h("span", { class: "points", text: ` (${deal.scores[seat]})` })));
    }
    const step = timeline.deals.find((x) => x.g === g && x.d === d).step;
    const dealWord = replay.game === "badugi" ? labels.hand : labels.deal;
    const link = h("a", { href: `?step=${step}`, "data-step": step, class: "jump", text: `${dealWord} ${d + 1}, ${labels.game} ${g + 1}` });
    row.append(h("td", { text: bidsText(replay, deal, labels) }), h("td", {}, link));
    body.append(row);
  });
  table.append(body);
  const groups = sides(replay, replay.entrants.length);
  // as the ratings count a board (engine/boards.py): a side's seats summed, over its size
  const sideTotals = groups.map((side) => side.reduce((sum, e) => sum + totals[e], 0) / side.length);
  const summary = groups.map((side, k) => `${side.map((e) => replay.entrants[e]).join(" + ")}: ${sideTotals[k]}`).join(" · ");
  const parts = [`${labels.board_score}: ${summary}`];
  if (groups.length === 2) parts.push(`${labels.difference}: ${Math.abs(sideTotals[0] - sideTotals[1])}`);
  return h("section", { class: "traveller-box scroll", "aria-label": labels.traveller }, table, h("p", { class: "board-total", text: parts.join(" · ") }));
}

function handText(cards) {
  if (!cards || cards.every((c) => c === "??")) return "";
  return sortHand(cards).map((c) => `${c[0] === "T" ? "10" : c[0]}${suitSymbol(c[1])}`).join(" ");
}

function bidsText(replay, deal, labels) {
  const info = deal.info || {};
  const bits = [];
  if (info.contract) bits.push(labels.contracts[info.contract] || info.contract);
  if (info.trump) bits.push(`${labels.trump} ${suitSymbol(info.trump)}`);
  for (const key of ["taker", "caller", "declarer"]) if (info[key] !== undefined && info[key] !== null) bits.push(`${labels[key]} ${info[key]}`);
  if (info.tricks) bits.push(`${labels.tricks} ${info.tricks.join("/")}`);
  if (info.team_tricks) bits.push(`${labels.tricks} ${info.team_tricks.join("/")}`);
  if (info.card_points) bits.push(`${labels.card_points} ${info.card_points.join("/")}`);
  if (info.pot !== undefined && info.pot !== null) bits.push(`${labels.pot} ${info.pot}`);
  return bits.join(" · ");
}

function scoreChart(replay, g, d, labels) {
  const totals = runningTotals(replay, g);
  const n = replay.games[g].seats.length;
  const width = 320, height = 120, pad = 6;
  const values = totals.flat().concat([0]);
  const low = Math.min(...values), high = Math.max(...values, low + 1);
  const x = (i) => pad + (totals.length < 2 ? 0 : i * (width - 2 * pad) / (totals.length - 1));
  const y = (v) => height - pad - (v - low) * (height - 2 * pad) / (high - low);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "score-chart", role: "img", "aria-label": labels.chart });
  svg.append(s("line", { x1: x(d), x2: x(d), y1: 0, y2: height, class: "now" }));
  const shown = replay.teams ? replay.teams.map((t) => t[0]) : [...Array(n).keys()];
  for (const seat of shown) {
    const points = totals.map((row, i) => `${x(i).toFixed(1)},${y(row[seat]).toFixed(1)}`).join(" ");
    svg.append(s("polyline", { points, fill: "none", stroke: seatColour(replay, seat), "stroke-width": 2 }));
  }
  return h("figure", { class: "chart" }, h("figcaption", { text: labels.chart }), svg);
}

function scoreTable(replay, g, d, board, labels) {
  const totals = runningTotals(replay, g);
  const before = d > 0 ? totals[d - 1] : totals[0].map(() => 0);
  const n = replay.games[g].seats.length;
  const table = h("table", { class: "scores" },
    h("caption", { text: labels.scores }),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: labels.seat }), h("th", { scope: "col", text: labels.deal_score }),
      h("th", { scope: "col", text: labels.total }))));
  const body = h("tbody");
  for (let seat = 0; seat < n; seat++) {
    const now = board.over ? totals[d][seat] : before[seat];
    let total = String(now);
    if (replay.game === "bauer") total = `${replay.params.start_points - now} ${labels.points_left}`;
    body.append(h("tr", { style: `--team: ${seatColour(replay, seat)}` },
      h("th", { scope: "row" }, h("span", { class: "seat-no", text: String(seat) }), ` ${seatName(replay, g, seat)}`),
      h("td", { class: "num", text: board.over ? String(board.scores[seat]) : "–" }),
      h("td", { class: "num", text: total })));
  }
  table.append(body);
  return table;
}

function storyPanel(board, replay, g, labels) {
  const list = h("ol", { class: "story-list", tabindex: "0", "aria-label": labels.story });
  list.append(h("li", { class: "muted", text: labels.start }));
  board.story.forEach((line, i) => {
    const li = h("li", { class: i === board.story.length - 1 ? "latest" : null },
      h("span", { class: "seat-no", style: `--team: ${seatColour(replay, line.seat)}`, text: String(line.seat) }),
      ` ${seatName(replay, g, line.seat)}: ${describe(line, board, labels)}`);
    if (line.winner !== undefined) li.append(h("span", { class: "muted", text: ` → ${labels.trick} ${labels.winner}: ${line.winner}` }));
    if (line.out && line.out.length) li.append(drawCards(line, labels));
    list.append(li);
  });
  if (board.over) list.append(h("li", { class: "muted", text: labels.end }));
  return h("section", { class: "story", "aria-label": labels.story }, h("h3", { text: labels.story }), list);
}

/** A draw's cards in the story: thrown → taken (the taken ones as the viewer may know them). */
function drawCards(line, labels) {
  const box = h("span", { class: "draw-cards" });
  box.append(h("span", { class: "visually-hidden", text: `${labels.discards}: ` }));
  for (const card of line.out) box.append(cardElement(card, labels, { small: true }));
  box.append(h("span", { "aria-hidden": "true", text: " → " }));
  box.append(h("span", { class: "visually-hidden", text: `${labels.receives}: ` }));
  for (const card of line.got) box.append(cardElement(card, labels, { small: true }));
  return box;
}

function infoLine(board, replay, g, d, labels) {
  const played = replay.games[g];
  const bits = [];
  if (replay.games.length > 1) bits.push(`${labels.game} ${g + 1}/${replay.games.length}`);
  bits.push(`${board.game === "badugi" ? labels.hand : labels.deal} ${d + 1}/${played.deals.length}`);
  if (board.trump) bits.push(`${labels.trump}: ${suitSymbol(board.trump)} ${labels.suits[board.trump]}`);
  else if (board.phase === "play" && board.game !== "badugi" && !board.layout) bits.push(labels.no_trump);
  if (board.contract) {
    const c = board.contract;
    bits.push(`${labels.contract}: ${labels.contracts[c.name] || c.name}${c.name === "domino" && c.param ? ` (${c.param})` : ""}`);
  }
  if (board.doubles.length) bits.push(`${labels.doubles}: ${board.doubles.map((x) => `${x.seat}→${x.targets}`).join(", ")}`);
  if (board.over && board.game === "belote" && board.info.card_points) bits.push(`${labels.card_points}: ${board.info.card_points.join(" / ")}`);
  if (board.over && board.game === "badugi" && board.info.winners) bits.push(`${labels.winner}: ${board.info.winners.map((w) => seatName(replay, g, w)).join(", ")}`);
  return h("p", { class: "info-line", text: bits.join(" · ") });
}

export function render(container, replay, timeline, index, labels) {
  const step = timeline.steps[index];
  const { g, d } = step;
  const board = boardAt(replay, g, d, step.e + 1);
  const me = replay.viewpoint ? replay.viewpoint.seat : 0;
  const faults = timeline.faults.map((f) => ({ ...f, g: f.game_index }));
  const table = h("div", { class: `table seats-${board.n}` });
  for (let seat = 0; seat < board.n; seat++) table.append(seatPanel(board, replay, g, seat, me, index, faults, labels));
  table.append(tableCentre(board, replay, g, labels));
  const inspector = h("section", { class: "inspector", id: "inspector", "aria-label": labels.inspector });
  const side = h("div", { class: "side" }, inspector, scoreTable(replay, g, d, board, labels), scoreChart(replay, g, d, labels));
  container.replaceChildren(...[resultBanner(replay, timeline, index, g, labels), infoLine(board, replay, g, d, labels),
    h("div", { class: "board-grid" }, table, side), storyPanel(board, replay, g, labels),
    traveller(replay, timeline, d, labels)].filter(Boolean));
  const story = container.querySelector(".story-list");
  story.scrollTop = story.scrollHeight; // the latest lines in sight
  return inspector;
}
