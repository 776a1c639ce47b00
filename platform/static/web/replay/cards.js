// Playing cards drawn as small SVGs: four-colour suits so they stay readable at small sizes.
import { s } from "./dom.js";

export const HIDDEN = "??";
const SYMBOL = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANK_TEXT = { T: "10" };
const RANKS = "23456789TJQKA";

export function rankOf(card) { return RANKS.indexOf(card[0]) + 2; }
export function suitOf(card) { return card[1]; }
export function suitSymbol(suit) { return SYMBOL[suit] || "?"; }

/** An <svg> card; "??" (or anything unknown) draws the back. */
export function cardElement(card, labels, { small = false } = {}) {
  const known = card && card.length === 2 && SYMBOL[card[1]] && RANKS.includes(card[0]);
  const svg = s("svg", {
    viewBox: "0 0 40 56", class: `card${small ? " small" : ""}${known ? ` suit-${card[1]}` : " back"}`,
    role: "img", "data-card": known ? card : HIDDEN,
    "aria-label": known ? `${RANK_TEXT[card[0]] || card[0]} ${labels.suits[card[1]]}` : labels.hidden,
  });
  svg.append(s("rect", { x: 1, y: 1, width: 38, height: 54, rx: 4, class: "card-face" }));
  if (!known) {
    svg.append(s("rect", { x: 5, y: 5, width: 30, height: 46, rx: 3, class: "card-pattern" }));
    return svg;
  }
  svg.append(s("text", { x: 4, y: 17, class: "card-rank", text: RANK_TEXT[card[0]] || card[0] }));
  svg.append(s("text", { x: 4, y: 29, class: "card-suit-small", text: SYMBOL[card[1]] }));
  svg.append(s("text", { x: 24, y: 48, class: "card-suit", "text-anchor": "middle", text: SYMBOL[card[1]] }));
  return svg;
}

/** Hands displayed suit by suit, high cards first. */
export function sortHand(cards) {
  const order = "shdc";
  return [...cards].sort((a, b) => {
    if (a === HIDDEN || b === HIDDEN) return a === HIDDEN ? 1 : -1;
    return order.indexOf(a[1]) - order.indexOf(b[1]) || rankOf(b) - rankOf(a);
  });
}
