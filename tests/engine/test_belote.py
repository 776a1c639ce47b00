"""Belote: the test scenarios of RULES.md §3.8, one test each, the §6 options, the agent.

Deals are fixed with ``decks=[...]`` and ``first_dealer=``; the ten is written T. Scoring
scenarios that need a particular outcome use the decks below with a simple deterministic play
("first" or "last" legal action in text order at every turn) that yields it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence

import pytest

import engine
from engine import IllegalAction, InvalidParams
from engine.cards import cards
from engine.games.belote import (
    DECK,
    BeloteState,
    Params,
    card_points,
    game_over,
    legal_cards,
    score_deal,
    trick_winner,
)

# RULES.md §3.8 scenarios 2 and 13 (dealer 0).
DECK_2 = (
    "Jc 8h Td 9h Qc Qs As Kd 7s Kh 7h Ah Ad 7c Qd Qh "
    "8c Tc Ks 7d 9c 9d Th Ts 8d 9s 8s Ac Jh Js Kc Jd"
)
# With dealer 0 and seat 1 taking in round 1, then the named play, these decks give:
#: last legal card: 81/81 (no belote), a litige
DECK_TIE = (
    "Ah 8d Ks Js Tc 8s 8c Ad Qd Jd 7c 7d Qc Kd 7h 9d "
    "Jh Ts Qs 7s Td Kc 8h 9s Th 9c Jc 9h Ac As Qh Kh"
)
#: first legal card: attackers (team 1) succeed 120 to 42
DECK_SUCCESS = (
    "Tc 9d Js 9h Td 8d 8s Kh 7c Ah 9c As Ks Qc Kd Ad "
    "Qd Qs 8h Jc Qh Jh 9s 7s Jd 7h 7d Ts Ac 8c Th Kc"
)
#: first legal card: seat 1 (the taker) holds K+Q of spades; card points 90 (def) to 72 (att)
DECK_TAKER_BELOTE = (
    "Kc Qh Ad Ts 7s Ac 8c Tc Jc 8s 7c 8d 9h 8h Td Jd "
    "Qc 9d 7d Th Qs 9c Ks 7h Ah Qd Jh As Js 9s Kh Kd"
)
#: first legal card: the attackers fail 53 to 109 although seat 1 (the taker) has the belote
DECK_FAILED_BELOTE = (
    "9c 7d As Td Ad Qd 7c Qh Ah Js 9h Jh Kh 8d Qc Ts "
    "8c Kc 8s Th Ks Qs 8h 9d Jc 9s Jd 7h 7s Tc Kd Ac"
)
#: first legal card: the attackers win all 8 tricks (capot)
DECK_CAPOT = (
    "Ah Jh Kd Qs Qc 7c 7d Ts Ad Kc Td Ac 7h Qd As Jd "
    "Kh 7s 9c 8h Qh Tc 8d 9s Jc Js 9h Th 8s 8c Ks 9d"
)
#: first legal card: the defenders win all 8 tricks
DECK_DEFENDERS_CAPOT = (
    "Ad Qs Ac Qc As Jd Tc Jh 9s 7c Ks 8c Ts 9h Qd Ah "
    "Js Td Th Kd Kc 9d 8h Qh 7d 9c 8d 7s 8s Kh Jc 7h"
)


def new_state(*decks: str, dealer: int = 0, **params: object) -> BeloteState:
    game = engine.load_game("belote", **params)
    state = game.new_initial_state(0, decks=[d.split() for d in decks], first_dealer=dealer)
    assert isinstance(state, BeloteState)
    return state


def play(state: BeloteState, sequence: Sequence[str]) -> None:
    """Apply ``seat:action`` items, checking that the named seat is the one to act."""
    for item in sequence:
        seat, action = item.split(":", 1)
        assert state.current_player() == int(seat), f"{item}: seat {state.current_player()} acts"
        state.apply_action(action)


def finish_deal(state: BeloteState, pick: str = "first") -> dict[str, object]:
    """Play the current deal to its end taking the first (or last) legal card; its record."""
    record = state.deals[-1]
    while record.scores is None:
        legal = state.legal_actions()
        state.apply_action(legal[0] if pick == "first" else legal[-1])
    return {**record.info, "scores": record.scores}


def _taken(state: BeloteState) -> BeloteState:
    """The first bidder takes the upcard."""
    state.apply_action("take")
    return state


def legal(hand: str, trick: str, trump: str = "h", **options: object) -> list[str]:
    return legal_cards(sorted(cards(hand)), cards(trick), trump, Params(**options))  # type: ignore[arg-type]


# -- 1. totals ----------------------------------------------------------------------------------


def test_3_8_1_card_point_totals() -> None:
    points = card_points("h")
    assert sum(points[c] for c in DECK if str(c)[1] == "h") == 62
    for plain in "sdc":
        assert sum(points[c] for c in DECK if str(c)[1] == plain) == 30
    assert sum(points[c] for c in DECK) == 152
    assert sum(points[c] for c in DECK) + 10 == 162


# -- 2. dealing ---------------------------------------------------------------------------------


def test_3_8_2_dealing_packets_upcard_and_completion() -> None:
    state = new_state(DECK_2, dealer=0)
    five = {s: state.observation(s)["hand"] for s in range(4)}
    assert five == {
        1: sorted("Jc 8h Td Ad 7c".split()),
        2: sorted("9h Qc Qs Qd Qh".split()),
        3: sorted("As Kd 7s 8c Tc".split()),
        0: sorted("Kh 7h Ah Ks 7d".split()),
    }
    assert state.observation(0)["upcard"] == "9c"
    play(state, ["1:pass", "2:take"])
    observation = state.observation(2)
    assert observation["trump"] == "c" and observation["taker"] == 2
    assert state.observation(1)["hand"] == sorted("Jc 8h Td Ad 7c 9d Th Ts".split())
    assert state.observation(2)["hand"] == sorted("9h Qc Qs Qd Qh 9c 8d 9s".split())
    assert state.observation(3)["hand"] == sorted("As Kd 7s 8c Tc 8s Ac Jh".split())
    assert state.observation(0)["hand"] == sorted("Kh 7h Ah Ks 7d Js Kc Jd".split())
    assert state.deals[0].info["upcard"] == "9c"


# -- 3. bidding ---------------------------------------------------------------------------------


def test_3_8_3_bidding_rounds_and_the_void_deal() -> None:
    state = new_state(DECK_2, DECK_2, dealer=0)
    assert state.legal_actions() == ["pass", "take"]
    play(state, ["1:pass", "2:pass", "3:pass", "0:pass"])
    assert state.observation(1)["phase"] == "bid2"
    assert state.current_player() == 1
    assert state.legal_actions() == ["pass", "trump:d", "trump:h", "trump:s"]  # not clubs (9♣)
    with pytest.raises(IllegalAction, match="upcard's suit"):
        state.apply_action("trump:c")
    play(state, ["1:trump:s"])
    assert (state.trump, state.taker) == ("s", 1)
    assert "9c" in state.observation(1)["hand"]  # the taker still receives the upcard
    assert len(state.observation(1)["hand"]) == 8


def test_3_8_3_all_pass_twice_voids_the_deal_and_the_next_player_deals() -> None:
    state = new_state(DECK_2, DECK_2, dealer=0)
    play(state, [f"{s}:pass" for s in (1, 2, 3, 0, 1, 2, 3, 0)])
    void = state.deals[0]
    assert void.info == {"upcard": "9c", "outcome": "void"}
    assert void.scores == [0, 0, 0, 0]
    assert state.dealer == 1 and state.current_player() == 2
    assert state.observation(2)["phase"] == "bid1" and state.scores == [0, 0]
    assert len(state.deals) == 2


# -- 4 to 8. legal cards ------------------------------------------------------------------------


def test_3_8_4_follow_suit() -> None:
    assert legal("As 7s Jh 8d", "Ks") == ["7s", "As"]


def test_3_8_5_must_trump_when_void() -> None:
    assert legal("Jh 7h 8d Ac", "Ks") == ["7h", "Jh"]


def test_3_8_6_partner_master_leaves_a_free_choice() -> None:
    assert legal("Jh 7h 8d Ac", "As 7s") == ["7h", "8d", "Ac", "Jh"]  # partner's A♠ wins
    assert legal("Qh Ad", "Ks Jh 9h") == ["Ad", "Qh"]  # partner's J♥ wins


def test_3_8_7_overtrump_and_no_undertrump_duty() -> None:
    assert legal("Jh 7h 8d Ac", "As 9h") == ["Jh"]  # opponent's 9♥ wins: overtrump
    assert legal("Qh 7h 8d Ac", "As 9h") == ["7h", "8d", "Ac", "Qh"]  # cannot: free (seed)
    assert legal("Qh 7h 8d Ac", "As 9h", undertrump=True) == ["7h", "Qh"]
    assert legal("9h Qh Ad", "Ks 7h 8h") == ["9h", "Qh"]  # must beat the opponent's 8♥


def test_3_8_8_trump_lead_must_be_beaten_if_possible() -> None:
    assert legal("Ah 7h Kd", "Th") == ["Ah"]
    assert legal("Ah 7h Kd", "Th", overtrump_on_trump_lead=False) == ["7h", "Ah"]


# -- 9. trick winners ---------------------------------------------------------------------------


def test_3_8_9_trick_winners() -> None:
    assert trick_winner(cards("Ts As 7h Ks"), "h") == 2
    assert trick_winner(cards("9h Ah Jh Th"), "h") == 2
    assert trick_winner(cards("Jd 9d Ad 7d"), "h") == 2


# -- 10. deal scores ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("points", "tricks", "belote", "options", "scores", "outcome"),
    [
        pytest.param([90, 72], [5, 3], None, {}, [90, 72], "success", id="90-72"),
        pytest.param([72, 90], [3, 5], None, {}, [0, 162], "failure", id="72-90-fails"),
        pytest.param([70, 92], [3, 5], 0, {}, [0, 182], "failure", id="belote-moves"),
        pytest.param(
            [70, 92], [3, 5], 0, {"belote_stays_with_holder": True}, [20, 162], "failure",
            id="belote-stays",
        ),
        pytest.param([72, 90], [3, 5], 0, {}, [92, 90], "success", id="saved-by-belote"),
        pytest.param([81, 81], [4, 4], None, {}, [0, 81], "litige", id="81-81"),
        pytest.param([162, 0], [8, 0], None, {}, [252, 0], "capot", id="capot"),
        pytest.param([162, 0], [8, 0], 0, {}, [272, 0], "capot", id="capot-belote"),
        pytest.param([0, 162], [0, 8], None, {}, [0, 252], "defenders_capot", id="def-capot"),
        pytest.param([162, 0], [7, 1], None, {}, [252, 0], "capot", id="capot-by-points"),
        pytest.param(
            [162, 0], [7, 1], None, {"capot_all_tricks": True}, [162, 0], "success",
            id="capot-all-tricks",
        ),
        pytest.param(
            [0, 162], [0, 8], None, {"defender_capot_bonus": False}, [0, 162], "failure",
            id="no-def-capot-bonus",
        ),
    ],
)
def test_3_8_10_deal_scores(
    points: list[int],
    tricks: list[int],
    belote: int | None,
    options: dict[str, bool],
    scores: list[int],
    outcome: str,
) -> None:
    """Attackers are team 0 here; ``points`` include the last trick (sum 162)."""
    got, got_outcome = score_deal(Params(**options), 0, points, tricks, belote)  # type: ignore[arg-type]
    assert (got, got_outcome.value) == (scores, outcome)


def test_3_8_10_capot_in_play_lost_zero_point_trick_and_defenders_capot() -> None:
    info = finish_deal(_taken(new_state(DECK_CAPOT)))
    assert (info["card_points"], info["tricks"], info["outcome"]) == ([0, 162], [0, 8], "capot")
    assert info["scores"] == [0, 252, 0, 252]
    info = finish_deal(_taken(new_state(DECK_DEFENDERS_CAPOT)))
    assert (info["card_points"], info["outcome"]) == ([162, 0], "defenders_capot")
    assert info["scores"] == [252, 0, 252, 0]
    info = finish_deal(_taken(new_state(DECK_DEFENDERS_CAPOT, defender_capot_bonus=False)))
    assert info["scores"] == [162, 0, 162, 0]


# -- 11. litige ---------------------------------------------------------------------------------


def test_3_8_11_litige_pot_goes_to_the_attackers_when_the_next_deal_succeeds() -> None:
    state = new_state(DECK_TIE, DECK_SUCCESS, dealer=0)
    tie = finish_deal(_taken(state), "last")
    assert (tie["card_points"], tie["outcome"]) == ([81, 81], "litige")
    assert tie["scores"] == [81, 0, 81, 0]  # defenders (team 0) keep 81; 81 is set aside
    assert state.litige == 81 and state.observation(0)["litige"] == 81
    # Deal 2 is dealt by seat 1, so seat 2 (team 0) takes and the same cards succeed 120/42.
    success = finish_deal(_taken(state))
    assert (success["taker"], success["card_points"]) == (2, [120, 42])
    assert success["scores"] == [201, 42, 201, 42]
    assert success["litige_awarded"] == 81 and state.litige == 0
    assert state.scores == [81 + 201, 42]


def test_3_8_11_litige_pot_goes_to_the_defenders_when_the_next_deal_fails() -> None:
    state = new_state(DECK_TIE, DECK_FAILED_BELOTE, dealer=0)
    finish_deal(_taken(state), "last")
    failure = finish_deal(_taken(state))  # taker seat 2 (team 0) fails with the belote
    assert (failure["outcome"], failure["belote"]) == ("failure", 2)
    assert failure["scores"] == [0, 182 + 81, 0, 182 + 81]


def test_3_8_11_chained_litige_and_void_deals_do_not_count() -> None:
    state = new_state(DECK_TIE, DECK_TIE, DECK_2, DECK_SUCCESS, dealer=0)
    finish_deal(_taken(state), "last")
    second = finish_deal(_taken(state), "last")  # dealer 1: another 81/81 tie
    assert second["outcome"] == "litige" and state.litige == 162
    play(state, [f"{s}:pass" for s in (3, 0, 1, 2) * 2])  # dealer 2: a void deal
    assert state.litige == 162
    third = finish_deal(_taken(state))  # dealer 3: seat 0 takes and succeeds
    assert (third["taker"], third["card_points"]) == (0, [120, 42])
    assert third["scores"] == [120 + 162, 42, 120 + 162, 42]


def test_3_8_11_a_litige_pot_pending_at_the_game_end_is_discarded() -> None:
    """RULES.md §3.5.4: the tie deal itself is scored (the defenders' 81 ends the game here)."""
    state = new_state(DECK_TIE, target=80)
    tie = finish_deal(_taken(state), "last")
    assert tie["outcome"] == "litige" and tie["litige_pot"] == 81
    assert state.is_terminal()
    assert state.returns() == [81.0, 0.0, 81.0, 0.0], "the attackers' 81 is never awarded"


# -- 12. game end -------------------------------------------------------------------------------


def test_3_8_12_game_end_rule() -> None:
    default, inclusive = Params(), Params(target_inclusive=True)
    assert game_over([1005, 700], default)
    assert not game_over([1000, 700], default)
    assert game_over([1000, 700], inclusive)
    assert not game_over([1062, 1062], default)  # equal totals: play on
    assert game_over([1062, 1063], default)


def test_3_8_12_the_game_ends_after_the_deal_that_passes_the_target() -> None:
    state = new_state(DECK_2, target=161)  # the full deal of scenario 13 gives team 1 162
    _play_full_deal_13(state)
    assert state.is_terminal() and state.legal_actions() == []
    assert state.returns() == [0.0, 162.0, 0.0, 162.0]
    state = new_state(DECK_2, target=162)  # exactly at the target: not over
    _play_full_deal_13(state)
    assert not state.is_terminal() and state.observation(0)["phase"] == "bid1"
    state = new_state(DECK_2, target=162, target_inclusive=True)
    _play_full_deal_13(state)
    assert state.is_terminal()


# -- 13. full deal ------------------------------------------------------------------------------


def _play_full_deal_13(state: BeloteState) -> None:
    play(state, ["1:pass", "2:take"])
    play(state, ["0:7d", "1:9d", "2:8d", "3:Kd"])  # T1 → 3
    play(state, ["3:7s", "0:Js", "1:Ts", "2:9s"])  # T2 → 1
    play(state, ["1:8h", "2:9h", "3:Jh", "0:7h"])  # T3 → 3
    play(state, ["3:8s", "0:Ks"])
    assert state.legal_actions() == ["7c", "Jc"]  # s1 void in ♠, opponent winning: trump
    play(state, ["1:7c", "2:Qs"])  # T4 → 1
    play(state, ["1:Td", "2:Qd"])
    assert state.legal_actions() == ["8c", "Ac", "As", "Tc"]  # partner s1 winning: free
    play(state, ["3:8c", "0:Jd"])  # T5 → 3
    play(state, ["3:Tc", "0:Kc"])
    assert state.legal_actions() == ["Jc"]  # trump lead: J♣ beats 10♣
    play(state, ["1:Jc", "2:Qc"])  # T6 → 1
    play(state, ["1:Th", "2:Qh"])
    assert state.legal_actions() == ["Ac", "As"]  # partner winning: free
    play(state, ["3:As", "0:Kh"])  # T7 → 1
    play(state, ["1:Ad"])
    assert state.legal_actions() == ["9c"]  # s2 void in ♦ must trump
    play(state, ["2:9c", "3:Ac", "0:Ah"])  # T8 → 2


def test_3_8_13_full_deal() -> None:
    state = new_state(DECK_2, dealer=0)
    play(state, ["1:pass", "2:take"])
    assert state.current_player() == 0  # the dealer leads
    state = new_state(DECK_2, dealer=0)
    _play_full_deal_13(state)
    record = state.deals[0]
    assert record.info == {
        "upcard": "9c",
        "trump": "c",
        "taker": 2,
        "card_points": [57, 105],
        "tricks": [1, 7],
        "belote": None,  # K♣ with s0, Q♣ with s2
        "outcome": "failure",
        "litige_awarded": 0,
        "litige_pot": 0,
    }
    assert record.scores == [0, 162, 0, 162]
    assert state.scores == [0, 162]
    assert state.dealer == 1 and state.current_player() == 2  # next deal


def test_3_8_13_trick_points_are_public_as_the_deal_goes() -> None:
    state = new_state(DECK_2, dealer=0)
    play(state, ["1:pass", "2:take", "0:7d", "1:9d", "2:8d", "3:Kd"])
    observation = state.observation(0)
    assert observation["points"] == [0, 4]
    assert observation["tricks"] == [{"leader": 0, "cards": ["7d", "9d", "8d", "Kd"], "winner": 3}]


# -- belote / rebelote --------------------------------------------------------------------------


def test_belote_and_rebelote_are_announced_when_the_holder_plays_them() -> None:
    state = _taken(new_state(DECK_TAKER_BELOTE))
    assert state.trump == "s" and "Qs" in state.observation(1)["hand"]
    assert "Ks" in state.observation(1)["hand"]
    announced = []
    while state.deals[0].scores is None:
        seat = state.current_player()
        action = state.legal_actions()[0]
        state.apply_action(action)
        if action in ("Ks", "Qs"):
            announced.append((seat, action, [b["call"] for b in state.observation(3)["belote"]]))
    first, second = announced
    assert first[0] == second[0] == 1
    assert first[2] == ["belote"] and second[2] == ["belote", "rebelote"]
    info = state.deals[0].info
    assert info["belote"] == 1 and info["card_points"] == [90, 72]
    # RULES.md §3.8-10: 72 + belote 20 = 92 beats 90, a success thanks to the belote.
    assert (info["outcome"], state.deals[0].scores) == ("success", [90, 92, 90, 92])


def test_belote_stays_with_holder_option_on_a_failure() -> None:
    default = finish_deal(_taken(new_state(DECK_FAILED_BELOTE)))
    assert (default["card_points"], default["belote"]) == ([109, 53], 1)
    assert default["scores"] == [182, 0, 182, 0]
    kept = finish_deal(_taken(new_state(DECK_FAILED_BELOTE, belote_stays_with_holder=True)))
    assert kept["scores"] == [162, 20, 162, 20]


# -- options ------------------------------------------------------------------------------------


def test_first_lead_option_eldest_hand_leads() -> None:
    state = new_state(DECK_2, dealer=0, first_lead="eldest")
    play(state, ["1:pass", "2:take"])
    assert state.current_player() == 1


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"target": 0}, "target"),
        ({"target": "1000"}, "target"),
        ({"first_lead": "left"}, "first_lead"),
        ({"undertrump": 1}, "undertrump"),
    ],
)
def test_bad_options_name_the_parameter(params: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidParams, match=name):
        engine.load_game("belote", **params)


def test_every_section_6_option_exists_with_its_default() -> None:
    assert engine.load_game("belote").params_dict() == {
        "first_lead": "dealer",
        "overtrump_on_trump_lead": True,
        "undertrump": False,
        "belote_stays_with_holder": False,
        "capot_all_tricks": False,
        "defender_capot_bonus": True,
        "target_inclusive": False,
        "target": 1000,
        "max_deals": 200,
    }


# -- hidden information -------------------------------------------------------------------------


def test_observation_shows_the_upcard_but_not_the_stock() -> None:
    state = new_state(DECK_2, dealer=0)
    observation = state.observation(1)
    assert observation["upcard"] == "9c"
    shown = set(re.findall(r'"([2-9TJQKA][shdc])"', json.dumps(observation)))
    assert shown == {"9c", "Jc", "8h", "Td", "Ad", "7c"}  # upcard and own hand only
    redealt = state.redeal_hidden(1, random.Random(1))
    assert redealt.stock != state.stock  # the undealt cards are hidden too
    assert redealt.observation(1) == observation


def test_redeal_keeps_the_upcard_with_the_taker() -> None:
    state = new_state(DECK_2, dealer=0)
    play(state, ["1:pass", "2:take"])
    for n in range(20):
        other = state.redeal_hidden(0, random.Random(n))
        assert "9c" in other.observation(2)["hand"]
        assert other.observation(0) == state.observation(0)


# -- invariants over random games ---------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"belote_stays_with_holder": True, "target": 400}])
def test_every_scored_deal_adds_up(options: dict[str, object]) -> None:
    """Card points sum to 162 and 8 tricks; the deal scores distribute exactly what was won."""
    game = engine.load_game("belote", **options)
    for seed in range(30):
        state = game.new_initial_state(seed)
        assert isinstance(state, BeloteState)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        totals = [0, 0]
        pot = 0
        for record in state.deals:
            info, scores = record.info, record.scores
            assert scores is not None
            totals[0] += scores[0]
            totals[1] += scores[1]
            if info["outcome"] == "void":
                assert scores == [0, 0, 0, 0]
                continue
            assert sum(info["card_points"]) == 162 and sum(info["tricks"]) == 8
            won = 162 + (20 if info["belote"] is not None else 0)
            if info["outcome"] == "litige":
                assert info["litige_pot"] - pot + scores[0] + scores[1] == won
            else:
                bonus = 90 if info["outcome"] in ("capot", "defenders_capot") else 0
                assert scores[0] + scores[1] == won + bonus + info["litige_awarded"]
                assert info["litige_awarded"] == pot
            pot = info["litige_pot"]
        assert totals == state.scores
        assert max(totals) > game.params.target and totals[0] != totals[1]


def test_bots_that_never_take_cannot_stall_the_game() -> None:
    """Every deal thrown in: the max_deals safety net ends the game with no score."""
    state = engine.load_game("belote", max_deals=12).new_initial_state(3)
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action("pass" if "pass" in legal else legal[0])
    assert len(state.deals) == 12
    assert all(d.info["outcome"] == "void" for d in state.deals)
    assert state.returns() == [0, 0, 0, 0]
