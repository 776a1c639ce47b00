"""Barbu's rule tables and pure rule functions (docs/rules/barbu.md), shared by the state and tests.

Every trick contract is one :class:`ContractRules` row: a per-card value table plus per-trick,
second-last-trick and last-trick values, so scoring a trick is a few table look-ups whatever the
contract (Salad's S6 is just the sum of the other rows). Domino and doubling helpers are pure
functions of ints so that the state stays small and the tests can call them directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from engine.cards import RANK_OF, RANK_VALUE, RANKS, SUIT_OF, SUITS, TEXT_OF, card, make_deck
from engine.tricks import power_table

DECK_52: Final = tuple(make_deck(2))
DECK_32: Final = tuple(make_deck(7))
KING_OF_HEARTS: Final = card("Kh")
ACE_OF_HEARTS: Final = card("Ah")
QUEENS: Final = frozenset(c for c in DECK_52 if RANK_OF[c] == 12)
HEARTS: Final = frozenset(c for c in DECK_52 if SUIT_OF[c] == "h")
SUIT_POSITION: Final = {s: i for i, s in enumerate(SUITS)}
RANK_TEXT: Final = {value: RANKS[value - 2] for value in range(2, 15)}  # 14 -> "A"

STANDARD_CONTRACTS: Final = (
    "no_tricks",
    "no_hearts",
    "no_queens",
    "no_king_of_hearts",
    "no_last_two",
    "trumps",
    "domino",
)
SALAD_CONTRACTS: Final = (
    "no_tricks",
    "no_hearts",
    "no_queens",
    "no_king_of_hearts",
    "no_last_trick",
    "salad",
)
POSITIVE: Final = frozenset({"trumps", "domino"})
# by finishing order; the last player scores -5 whatever is left
DOMINO_POINTS: Final = (45, 20, 5, -5)


@dataclass(frozen=True, slots=True)
class ContractRules:
    """How one contract is played and scored.

    ``card_values[c]`` is what card ``c`` costs (or gives) the player who takes it in a trick;
    a trick is worth ``per_trick`` plus its cards, plus ``second_last`` / ``last`` when it is the
    second-last / last trick. The deal ends early once every card of ``end_cards`` is taken.
    """

    name: str
    card_values: tuple[int, ...]
    per_trick: int = 0
    second_last: int = 0
    last: int = 0
    no_heart_lead: bool = False
    end_cards: frozenset[int] = frozenset()
    king_of_hearts_scores: bool = False  # the contracts where force_kh_discard applies
    trumps: bool = False
    domino: bool = False

    def __deepcopy__(self, memo: object) -> ContractRules:
        return self  # immutable module constant: clones share it


def _values(**cost: int) -> tuple[int, ...]:
    """Per-card value table from ``heart``, ``ace_of_hearts``, ``queen``, ``king_of_hearts``."""
    table = [0] * 52
    for c in DECK_52:
        if c in HEARTS:
            table[c] += cost.get("ace_of_hearts" if c == ACE_OF_HEARTS else "heart", 0)
        if c in QUEENS:
            table[c] += cost.get("queen", 0)
        if c == KING_OF_HEARTS:
            table[c] += cost.get("king_of_hearts", 0)
    return tuple(table)


_NONE: Final = (0,) * 52
_KH: Final = frozenset({KING_OF_HEARTS})

STANDARD_RULES: Final = {
    "no_tricks": ContractRules("no_tricks", _NONE, per_trick=-2),
    "no_hearts": ContractRules(
        "no_hearts", _values(heart=-2, ace_of_hearts=-6), no_heart_lead=True
    ),
    "no_queens": ContractRules("no_queens", _values(queen=-6), end_cards=QUEENS),
    "no_king_of_hearts": ContractRules(
        "no_king_of_hearts",
        _values(king_of_hearts=-20),
        no_heart_lead=True,
        end_cards=_KH,
        king_of_hearts_scores=True,
    ),
    "no_last_two": ContractRules("no_last_two", _NONE, second_last=-10, last=-20),
    "trumps": ContractRules("trumps", _NONE, per_trick=5, trumps=True),
    "domino": ContractRules("domino", _NONE, domino=True),
}

SALAD_RULES: Final = {
    "no_tricks": ContractRules("no_tricks", _NONE, per_trick=-5),
    # [RES BAR-13] the ace of hearts costs -10 like every other heart
    "no_hearts": ContractRules(
        "no_hearts", _values(heart=-10, ace_of_hearts=-10), no_heart_lead=True
    ),
    "no_queens": ContractRules("no_queens", _values(queen=-20), end_cards=QUEENS),
    "no_king_of_hearts": ContractRules(
        "no_king_of_hearts",
        _values(king_of_hearts=-50),
        no_heart_lead=True,
        end_cards=_KH,
        king_of_hearts_scores=True,
    ),
    "no_last_trick": ContractRules("no_last_trick", _NONE, last=-30),  # [RES BAR-15]
    # [RES BAR-14] S1..S5 at once: heart-lead restriction, all tricks played (no early end)
    "salad": ContractRules(
        "salad",
        _values(heart=-10, ace_of_hearts=-10, queen=-20, king_of_hearts=-50),
        per_trick=-5,
        last=-30,
        no_heart_lead=True,
        king_of_hearts_scores=True,
    ),
}


def trick_value(rules: ContractRules, trick: Iterable[int], number: int, total: int) -> int:
    """What the winner of trick ``number`` (1-based, of ``total``) scores for it."""
    values = rules.card_values
    value = rules.per_trick + sum(values[c] for c in trick)
    if number == total:
        value += rules.last
    elif number == total - 1:
        value += rules.second_last
    return value


# built once: a lookup costs a fraction of a cached call
_TRICK_POWER: Final = {
    trump: {
        led: power_table(trump, led, SUIT_OF, RANK_OF.__getitem__, RANK_OF.__getitem__)
        for led in SUITS
    }
    for trump in (*SUITS, None)
}


def trick_power(trump: str | None, led: str) -> tuple[int, ...]:
    """Card strengths in a trick: aces high, trumps (Trumps contract only) above the suit led."""
    return _TRICK_POWER[trump][led]


def contract_actions(names: Iterable[str], low_rank: int) -> list[str]:
    """Declaration actions for ``names``, sorted: trump suit and domino rank are spelled out."""
    actions: list[str] = []
    for name in names:
        if name == "trumps":
            actions.extend(f"contract:trumps:{s}" for s in SUITS)
        elif name == "domino":
            actions.extend(f"contract:domino:{RANK_TEXT[r]}" for r in range(low_rank, 15))
        else:
            actions.append(f"contract:{name}")
    return sorted(actions)


# -- domino ---------------------------------------------------------------------------------------


def domino_playable(hand: list[str], rank: int, lo: list[int], hi: list[int]) -> list[str]:
    """Cards of ``hand`` that fit the layout (``lo[s] == 0``: suit ``s`` not opened yet).

    A suit opens only with the declared ``rank``; an open suit's run ``lo..hi`` grows by one
    step at either end; aces are high and nothing wraps (BAR-21). (Lists, not sequences: the
    compiled engine loops over and indexes a list directly.)
    """
    out = []
    for x in hand:
        s = SUIT_POSITION[x[1]]
        low = lo[s]
        r = RANK_VALUE[x[0]]
        if r == rank if low == 0 else r == low - 1 or r == hi[s] + 1:
            out.append(x)
    return out


#: ``_CARD_AT[s][r]``: the card (its int) of suit position ``s`` and rank ``r`` (2..14); -1 for
#: the ranks 0, 1 and 15, past either end of a run
_CARD_AT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(int(card(RANK_TEXT[r] + suit)) if 2 <= r <= 14 else -1 for r in range(16))
    for suit in SUITS
)


def domino_fits(hand: int, rank: int, lo: list[int], hi: list[int]) -> list[str]:
    """:func:`domino_playable` from the hand as a bit mask (:data:`~engine.cards.BIT`): at most
    two cards of a suit can fit (one while it is closed), so those are looked up in the mask
    instead of testing every card of the hand. Sorted, as the hand is."""
    fits: list[int] = []
    for s in range(4):
        low = lo[s]
        at = _CARD_AT[s]
        if low == 0:
            c = at[rank]
            if hand >> c & 1:
                fits.append(c)
        else:
            c = at[low - 1]
            if c >= 0 and hand >> c & 1:
                fits.append(c)
            c = at[hi[s] + 1]
            if c >= 0 and hand >> c & 1:
                fits.append(c)
    fits.sort()
    return [TEXT_OF[c] for c in fits]


# -- doubling -------------------------------------------------------------------------------------


def designation_choices(
    eligible: Sequence[int], *, any_subset: bool
) -> list[tuple[str, tuple[int, ...]]]:
    """(action, targets) pairs: nobody, each eligible player, and ALL or every subset.

    Seed-literal choices are {nobody, one, ALL-eligible} [RES BAR-6]. "double:all" names every
    eligible player and is offered whenever at least one remains (docs/rules/barbu.md,
    "Doubling"), even if that is a single player (then it has the same effect as naming that
    player). With ``any_subset`` every non-empty subset is spelled out (``double:0,2``) and there
    is no "all".
    """
    choices: list[tuple[str, tuple[int, ...]]] = [("double:none", ())]
    if any_subset:
        for size in range(1, len(eligible) + 1):
            for subset in combinations(eligible, size):
                choices.append(("double:" + ",".join(map(str, subset)), subset))
    else:
        choices.extend((f"double:{t}", (t,)) for t in eligible)
        if eligible:
            choices.append(("double:all", tuple(eligible)))
    return choices


def settle_bets(
    scores: Sequence[int], bets: Iterable[tuple[int, int]], *, symmetric: bool
) -> list[int]:
    """Doubling adjustments per seat: each bet (p, t) compares ``d = scores[p] - scores[t]``.

    Symmetric [RES BAR-4]: p gains d and t loses d (either sign). Proposer-gain-only (the seed's
    literal sentence): p gains d when d > 0, nobody loses.
    """
    adjust = [0] * len(scores)
    for p, t in bets:
        d = scores[p] - scores[t]
        if symmetric:
            adjust[p] += d
            adjust[t] -= d
        elif d > 0:
            adjust[p] += d
    return adjust


def duties_feasible(
    needs: dict[int, int], later: Sequence[int], slots: int, future_deals: int, cap: int
) -> bool:
    """Can every non-declarer still double the declarer as often as pagat's duty requires?

    ``needs[q]``: designations of the declarer that ``q`` still owes; ``later``: designators
    still to speak in this deal, who may use the ``slots`` left under the per-deal cap;
    ``future_deals``: the declarer's deals after this one. Greedily let the later designators
    with the largest needs double now; the rest is feasible iff nobody owes more than one per
    future deal and the total fits ``min(cap, 3)`` per deal (a complete bipartite b-matching).
    """
    left = dict(needs)
    for q in sorted(later, key=lambda q: -left[q])[: max(slots, 0)]:
        if left[q] > 0:
            left[q] -= 1
    owed = [n for n in left.values() if n > 0]
    return all(n <= future_deals for n in owed) and sum(owed) <= min(cap, 3) * future_deals
