// The viewer's state model: a timeline of steps over the replay, and the board at a step as a
// pure function of the replay's events (a deal start is a natural snapshot, so seeking costs at
// most one deal's events). Works on the full replay and on a seat view (hidden cards "??").
import { HIDDEN, rankOf, suitOf } from "./cards.js";

/** Steps: for every deal, its start (cards dealt) and then one step per event. Beside them the
 * stops the navigation keys jump between: each deal's start, each game's start, and each
 * "round" (the step that completes a trick, ends the bidding, or ends a Badugi betting round or
 * draw). A step's `decision` counts the game's events before it (the faults' numbering). */
export function buildTimeline(replay) {
  const steps = [];
  const deals = [];
  const games = [];
  const rounds = [];
  replay.games.forEach((game, g) => {
    let decision = 0;
    games.push(steps.length);
    const n = game.seats.length;
    game.deals.forEach((deal, d) => {
      deals.push({ g, d, step: steps.length });
      steps.push({ g, d, e: -1, decision });
      let cards = 0;
      deal.events.forEach((event, e) => {
        steps.push({ g, d, e, decision: decision + e });
        const next = deal.events[e + 1];
        if (isCard(event.action)) cards += 1;
        const roundOver = !next
          || (replay.game === "badugi" ? actionKind(next.action) !== actionKind(event.action)
            : isCard(event.action) ? cards % n === 0 : isCard(next.action));
        if (roundOver) rounds.push(steps.length - 1);
      });
      decision += deal.events.length;
    });
  });
  const faults = [];
  replay.games.forEach((game, g) => {
    for (const fault of game.faults) {
      const at = fault.decision < 0
        ? steps.findIndex((st) => st.g === g)
        : steps.findIndex((st) => st.g === g && st.e >= 0 && st.decision === fault.decision);
      faults.push({ ...fault, step: at < 0 ? steps.findIndex((st) => st.g === g) : at });
    }
  });
  return { steps, deals, faults, games, rounds };
}

/** The first of `stops` after `index` (else the last step), or the last before it (else 0). */
export function nextStop(stops, index, last) {
  const found = stops.find((s) => s > index);
  return found === undefined ? last : found;
}

export function previousStop(stops, index) {
  const before = stops.filter((s) => s < index);
  return before.length ? before[before.length - 1] : 0;
}

/** Whether step `index` is the last of its game (its last deal is over). */
export function endsGame(timeline, index) {
  const next = timeline.steps[index + 1];
  return !next || next.g !== timeline.steps[index].g;
}

function actionKind(action) {
  if (isCard(action)) return "card";
  return action.startsWith("draw:") || action.startsWith("drew:") ? "draw" : "bet";
}

// -- trick strength per game -------------------------------------------------------------

const BELOTE_TRUMP = "78QKTA9J";
const BELOTE_PLAIN = "789JQKTA";
const SAME_COLOUR = { h: "d", d: "h", s: "c", c: "s" };

function effectiveSuit(game, card, trump) {
  if (game === "bauer" && trump && card[0] === "J" && card[1] === SAME_COLOUR[trump]) return trump;
  return suitOf(card);
}

function power(game, card, trump, led) {
  const suit = effectiveSuit(game, card, trump);
  if (trump && suit === trump) {
    if (game === "belote") return 100 + BELOTE_TRUMP.indexOf(card[0]);
    if (game === "bauer" && card[0] === "J") return card[1] === trump ? 120 : 119;
    return 100 + rankOf(card);
  }
  if (suit !== led) return 0;
  return game === "belote" ? 1 + BELOTE_PLAIN.indexOf(card[0]) : rankOf(card);
}

function trickWinner(game, trick, trump) {
  const led = effectiveSuit(game, trick[0].card, trump);
  let best = trick[0];
  for (const play of trick.slice(1)) {
    if (power(game, play.card, trump, led) > power(game, best.card, trump, led)) best = play;
  }
  return best.seat;
}

// -- the board at a step ---------------------------------------------------------------------

function isCard(action) { return /^[2-9TJQKA][shdc]$/.test(action); }

function removeCard(hand, card) {
  const i = hand.indexOf(card);
  if (i >= 0) hand.splice(i, 1);
  else if (hand.includes(HIDDEN)) hand.splice(hand.indexOf(HIDDEN), 1);
}

/** The public and visible state of deal (g, d) after its first `upto` events. */
export function boardAt(replay, g, d, upto) {
  const game = replay.game;
  const played = replay.games[g];
  const deal = played.deals[d];
  const n = played.seats.length;
  const seatView = replay.viewpoint ? replay.viewpoint.seat : null;
  const board = {
    game, n, dealer: deal.dealer, hands: startHands(replay, deal, n), trick: [], lastTrick: null,
    tricks: new Array(n).fill(0), story: [], trump: null, upcard: null, contract: null,
    doubles: [], layout: null, folded: new Array(n).fill(false), pot: null, street: 0,
    drawRound: 0, phase: "bid", over: upto >= deal.events.length, info: deal.info,
    scores: deal.scores, revealed: null,
  };
  if (game === "belote") board.upcard = deal.info.upcard || null;
  if (game === "badugi") startBetting(board, replay.params, deal.dealer);
  const deckState = {
    stub: game === "badugi" && deal.deck ? deal.deck.slice(4 * n) : [],
    discards: Array.from({ length: n }, () => []),
  };
  let drawing = false;
  for (let i = 0; i < upto; i++) {
    const event = deal.events[i];
    const seat = event.seat;
    const action = event.action;
    const line = { seat, action, kind: "other" };
    if (isCard(action)) {
      line.kind = "card";
      if (game === "barbu" && board.contract && board.contract.name === "domino") {
        board.layout[suitOf(action)].push(action);
      } else {
        board.trick.push({ seat, card: action });
        if (board.trick.length === n) {
          const winner = trickWinner(game, board.trick, board.trump);
          board.tricks[winner] += 1;
          line.winner = winner;
          board.lastTrick = { cards: board.trick, winner };
          board.trick = [];
        }
      }
      removeCard(board.hands[seat], action);
      board.phase = "play";
    } else if (game === "belote" || game === "bauer") {
      if (action === "take") board.trump = suitOf(board.upcard);
      else if (action.startsWith("trump:")) board.trump = action.slice(6);
      if (action === "take" || action.startsWith("trump:")) { line.kind = "bid"; board.taker = seat; }
      if (game === "belote") completeBelote(board, replay, deal, event);
    } else if (game === "barbu") {
      if (action.startsWith("contract:")) {
        const [, name, param] = action.split(":");
        board.contract = { name, param: param || null, declarer: seat };
        if (name === "trumps") board.trump = param;
        if (name === "domino") board.layout = { s: [], h: [], d: [], c: [] };
        line.kind = "contract";
      } else if (action.startsWith("double:")) {
        board.doubles.push({ seat, targets: action.slice(7) });
        line.kind = "double";
      }
    } else if (game === "badugi") {
      if (action.startsWith("draw:") || action.startsWith("drew:")) {
        if (!drawing) { drawing = true; board.drawRound += 1; }
        const drawn = applyDraw(board, replay, deal, event, deckState);
        line.kind = "draw";
        if (drawn) { line.out = drawn.out; line.got = drawn.got; }
        line.count = action.startsWith("drew:") ? Number(action.slice(5)) : (action.length > 5 ? action.slice(5).split(",").length : 0);
      } else {
        if (drawing) { drawing = false; board.street += 1; newBettingRound(board); }
        applyBet(board, replay.params, seat, action);
        line.kind = "bet";
      }
    }
    if (event.hand_sizes && seatView !== null) resizeHidden(board, event.hand_sizes, seatView);
    board.story.push(line);
  }
  if (game === "badugi" && board.over) {
    board.revealed = deal.info.revealed;
    board.pot = deal.info.pot;
  }
  return board;
}

function startHands(replay, deal, n) {
  if (replay.game === "belote" && deal.deck) {
    // before the completing deal a seat holds only its first five cards
    const later = new Set(deal.deck.slice(20));
    return deal.hands.map((hand) => hand.filter((c) => !later.has(c)));
  }
  return deal.hands.map((hand) => [...hand]);
}

function completeBelote(board, replay, deal, event) {
  // the completing deal happens right after the bidding ends (a take or a named trump)
  if (board.completed || !(event.action === "take" || event.action.startsWith("trump:"))) return;
  board.completed = true;
  board.upcard = null;
  if (deal.deck) {
    board.hands = deal.hands.map((hand) => [...hand]);
  } else if (event.received) {
    const me = replay.viewpoint.seat;
    board.hands[me].push(...event.received);
  }
}

function resizeHidden(board, sizes, me) {
  sizes.forEach((size, seat) => {
    if (seat === me) return;
    board.hands[seat] = new Array(size).fill(HIDDEN);
  });
}

// -- Badugi ----------------------------------------------------------------------------------

function startBetting(board, params, button) {
  const n = board.n;
  board.put = new Array(n).fill(0);
  board.committed = new Array(n).fill(0);
  board.level = 0;
  // chips at the start of every hand; unbounded (null) unless the limits are capped (engine)
  board.stack = params.korean_betting || params.unlimited_heads_up ? null : (params.stack || 100 * params.big_blind);
  if (params.korean_betting) {
    board.pot = null; // Korean betting: the pot is shown at the end of the hand
    board.korean = true;
    return;
  }
  const [small, big] = n === 2 ? [button, (button + 1) % 2] : [(button + 1) % n, (button + 2) % n];
  board.put[small] = params.small_blind;
  board.put[big] = params.big_blind;
  board.committed[small] = params.small_blind;
  board.committed[big] = params.big_blind;
  board.level = params.big_blind;
  board.pot = params.small_blind + params.big_blind;
  board.blinds = { small, big };
}

function newBettingRound(board) {
  board.put = new Array(board.n).fill(0);
  board.level = 0;
}

function applyBet(board, params, seat, action) {
  if (action === "fold") { board.folded[seat] = true; return; }
  if (board.korean) return;
  const size = board.street < 2 ? params.big_blind : params.big_bet;
  if (action === "bet" || action === "raise") board.level += size;
  if (action === "bet" || action === "raise" || action === "call") {
    board.pot += board.level - board.put[seat];
    board.committed[seat] += board.level - board.put[seat];
    board.put[seat] = board.level;
  }
}

/** Apply a draw to the board; the cards thrown and taken when they are known ({out, got}). */
function applyDraw(board, replay, deal, event, deckState) {
  const seat = event.seat;
  const action = event.action;
  if (action.startsWith("drew:")) return null; // another seat's draw in a seat view: count only
  const out = action.length > 5 ? action.slice(5).split(",") : [];
  const hand = board.hands[seat];
  for (const card of out) removeCard(hand, card);
  deckState.discards[seat].push(...out);
  let got;
  if (event.received) got = [...event.received];
  else if (!deal.deck) got = new Array(out.length).fill(HIDDEN);
  else {
    // the full replay: replacements come off the stub (the deck after the dealt cards) in order;
    // with never_return_own_discards a seat passes over its own discards (engine/games/badugi.py)
    const own = new Set(deckState.discards[seat]);
    got = [];
    for (let k = 0; k < out.length; k++) {
      const index = deckState.stub.findIndex((card) => !own.has(card));
      // past a reshuffle the replay does not hold the new order: the card shows as unknown
      got.push(index < 0 ? HIDDEN : deckState.stub.splice(index, 1)[0]);
    }
  }
  hand.push(...got);
  return { out, got };
}

/** A Badugi hand's value: how many cards play (4: made, a badugi; 3: base; 2: two-base) and
 * their ranks, highest first (ace low), keeping the largest and then lowest set of cards of
 * different suits and ranks (docs/rules/badugi.md). */
export function badugiValue(cards) {
  if (!cards.length || cards.includes(HIDDEN)) return null;
  const low = (c) => (c[0] === "A" ? 1 : rankOf(c));
  let best = [];
  const pick = (i, chosen) => {
    if (i === cards.length) {
      if (chosen.length > best.length || (chosen.length === best.length && lowerHand(chosen, best, low))) best = chosen;
      return;
    }
    const c = cards[i];
    if (!chosen.some((x) => x[1] === c[1] || low(x) === low(c))) pick(i + 1, [...chosen, c]);
    pick(i + 1, chosen);
  };
  pick(0, []);
  const ranks = best.map(low).sort((p, q) => q - p).map((r) => (r === 1 ? "A" : RANK_TEXT[r]));
  return { size: best.length, ranks };
}

function lowerHand(a, b, low) {
  const x = a.map(low).sort((p, q) => q - p);
  const y = b.map(low).sort((p, q) => q - p);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i];
  return false;
}

const RANK_TEXT = { 10: "T", 11: "J", 12: "Q", 13: "K" };
for (let r = 2; r <= 9; r++) RANK_TEXT[r] = String(r);

// -- scores over the deals -------------------------------------------------------------------

/** Running totals per seat after each deal of game g. */
export function runningTotals(replay, g) {
  const played = replay.games[g];
  const n = played.seats.length;
  const totals = [];
  let sum = new Array(n).fill(0);
  for (const deal of played.deals) {
    sum = sum.map((v, s) => v + (deal.scores[s] || 0));
    totals.push(sum);
  }
  return totals;
}
