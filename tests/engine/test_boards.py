"""Boards: a duplicate set scored deal by deal (engine/boards.py)."""

from __future__ import annotations

import math

import pytest

import engine
from engine.boards import (
    BoardGame,
    board_places,
    board_points,
    board_scores,
    deal_boards,
    margin_share,
    pairwise_shares,
)


def places(
    games: list[BoardGame], teams: list[list[int]] | None, faulted: list[int] | None = None
) -> list[list[int]]:
    return board_places(board_scores(games, teams=teams), teams=teams, faulted=faulted or [])


def test_heads_up_boards_sum_each_entrants_seats_over_the_set() -> None:
    # two games, entrants swapped; deal scores per seat
    first = BoardGame([0, 1], [[5, -5], [-2, 2], [0, 0]])
    second = BoardGame([1, 0], [[3, -3], [-2, 2], [1, -1]])
    # board 0: entrant 0 = 5 + -3 = 2, entrant 1 = -5 + 3 = -2
    # board 1: entrant 0 = -2 + 2 = 0, entrant 1 = 2 + -2 = 0 (a tie)
    # board 2: entrant 0 = 0 + -1, entrant 1 = 0 + 1
    assert board_scores([first, second], teams=None) == [[2, -2], [0, 0], [-1, 1]]
    assert places([first, second], None) == [[1, 2], [1, 1], [2, 1]]


def test_deals_beyond_the_shortest_game_or_unfinished_are_not_boards() -> None:
    long = BoardGame([0, 1], [[1, 0], [1, 0], [1, 0], [1, 0]])
    short = BoardGame([1, 0], [[0, 0], [0, 0], None])  # its third deal never finished
    assert places([long, short], None) == [[1, 2], [1, 2]]


def test_deal_boards_make_every_finished_deal_of_every_game_a_board() -> None:
    """Bauer's corrected boards (``Game.corrected_boards_each_deal``): no pairing across the
    set, so the deals past the shortest game count too; an unfinished deal does not."""
    first = BoardGame([0, 1], [[5, -5], [-2, 2], [0, 0]])
    second = BoardGame([1, 0], [[3, -3], None])  # its second deal never finished
    assert deal_boards([first, second], teams=None) == [[5, -5], [-2, 2], [0, 0], [-3, 3]]
    assert engine.game_class("bauer").corrected_boards_each_deal
    assert not engine.game_class("belote").corrected_boards_each_deal


def test_team_games_rank_sides_and_partners_share_the_place() -> None:
    teams = [[0, 2], [1, 3]]
    # seat scores repeat the team score, as Belote and Bauer record them
    first = BoardGame([0, 1, 2, 3], [[10, 0, 10, 0], [0, 4, 0, 4]])
    second = BoardGame([1, 0, 3, 2], [[0, 7, 0, 7], [0, 4, 0, 4]])
    # board 0: side 0 holds seats 0, 2 then 1, 3: 10 + 7 against 0 (partners' seats repeat the
    # team score, counted once); board 1: 4 each
    assert board_scores([first, second], teams=teams) == [[17, 0, 17, 0], [4, 4, 4, 4]]
    assert places([first, second], teams) == [[1, 2, 1, 2], [1, 1, 1, 1]]


def test_a_faulted_entrant_loses_every_board_and_so_does_its_side() -> None:
    games = [BoardGame([0, 1, 2], [[9, 0, 0], [0, 0, 9]])]
    assert places(games, None, faulted=[0]) == [[3, 1, 1], [3, 2, 1]]
    teams = [[0, 2], [1, 3]]
    four = [BoardGame([0, 1, 2, 3], [[5, 0, 5, 0]])]
    assert places(four, teams, faulted=[2]) == [[2, 1, 2, 1]]


def test_ties_share_the_better_place_at_a_table() -> None:
    games = [BoardGame([0, 1, 2, 3], [[3, 3, 1, 3]])]
    assert places(games, None) == [[1, 1, 4, 1]]


def test_a_board_is_shared_by_its_margin_on_the_games_scale_or_won_outright() -> None:
    assert [margin_share(m, None) for m in (30, 0, -1)] == [1.0, 0.5, 0.0]
    assert margin_share(0, 81) == 0.5
    assert margin_share(81, 81) == pytest.approx(1 / (1 + math.exp(-1)))  # about three quarters
    assert margin_share(81, 81) + margin_share(-81, 81) == pytest.approx(1.0)
    assert margin_share(1e6, 81) == 1.0 and margin_share(-1e6, 81) == 0.0  # no overflow
    assert engine.game_class("belote").board_margin_scale == 81
    assert all(
        engine.game_class(g).board_margin_scale is None for g in ("bauer", "barbu", "badugi")
    )


def test_corrected_scores_are_shared_by_margin_where_the_luck_makes_one() -> None:
    """A game's own scale serves raw and corrected scores alike (Belote); Bauer's won, lost or
    tied deals are shared by their corrected margin on a scale of their own, and by their sign
    raw; so are Badugi's corrected totals (ten big blinds per ten hands, growing as the root of
    the hands: a game by name has its default hundred); Barbu's tables have none."""
    assert engine.margin_scale("belote", corrected=False) == 81
    assert engine.margin_scale("belote", corrected=True) == 81
    assert engine.margin_scale("bauer", corrected=False) is None
    assert engine.margin_scale("bauer", corrected=True) == 0.5
    assert engine.margin_scale("barbu", corrected=True) is None
    assert engine.margin_scale("badugi", corrected=False) is None
    ten_hands = engine.load_game("badugi", hands=10)
    assert engine.margin_scale(ten_hands, corrected=True) == 20  # ten big blinds
    assert engine.margin_scale(engine.load_game("badugi", hands=40), corrected=True) == 40
    assert engine.margin_scale(engine.load_game("badugi", hands=10, big_blind=4, big_bet=8),
                               corrected=True) == 40  # fmt: skip
    assert engine.margin_scale("badugi", corrected=True) == pytest.approx(20 * math.sqrt(10))


def test_a_corrected_share_is_the_raw_one_without_luck_and_keeps_a_tie_on_average() -> None:
    """Without luck a corrected Bauer deal takes the share its raw margin gives (a tie stays
    exactly a tie, ½ each), and the share is odd about ½, so a luck as likely to fall either
    way leaves a tied deal's expected share at ½ exactly and the two sides' shares at 1."""
    scale = engine.margin_scale("bauer", corrected=True)
    assert margin_share(0.0, scale) == 0.5
    assert margin_share(1.0, scale) == pytest.approx(1 / (1 + math.exp(-2)))  # 0.88
    for luck in (0.03125, 0.2, 0.75):
        for raw in (-1.0, 0.0, 1.0):
            assert margin_share(raw - luck, scale) + margin_share(luck - raw, scale) == 1.0
        assert margin_share(-luck, scale) + margin_share(luck, scale) == 1.0  # the mean: ½


def test_pairwise_shares_count_ties_half() -> None:
    places = [[1, 2], [1, 1], [2, 1], [1, 2]]
    shares = pairwise_shares(places)
    assert shares[0][1] == pytest.approx(2.5 / 4)
    assert shares[1][0] == pytest.approx(1.5 / 4)
    assert pairwise_shares([]) == []


def test_board_points_heads_up_add_up_to_the_boards() -> None:
    places = [[1, 2]] * 6 + [[2, 1]] * 3 + [[1, 1]]
    assert board_points(places) == [6.5, 3.5]


def test_board_points_at_a_table_share_each_board_pro_rata() -> None:
    # a beats both (1); b and c tie with each other and lose to a: (0 + ½) / 2 each
    assert board_points([[1, 2, 2]]) == [1.0, 0.25, 0.25]


@pytest.mark.parametrize("game", ["belote", "bauer", "barbu"])
def test_a_played_match_and_its_replay_give_the_same_boards(game: str) -> None:
    rules = engine.load_game(game, **({"start_points": 2} if game == "bauer" else {}))
    agents = [engine.make_agent(game, "random", seed) for seed in range(rules.num_players)]
    result = engine.run_match(rules, None, agents, seed=11, duplicate=True)
    boards = engine.boards_of_result(result)
    assert boards is not None and boards
    assert boards == engine.boards_of_replay(result.replay)
    shortest = min(len(g.state.deals) for g in result.games)
    assert len(boards) == shortest


def test_a_badugi_set_is_scored_by_its_chip_total_not_by_boards() -> None:
    rules = engine.load_game("badugi", hands=4, players=2)
    agents = [engine.make_agent("badugi", "random", seed) for seed in range(2)]
    result = engine.run_match(rules, None, agents, seed=11, duplicate=True)
    assert engine.boards_of_result(result) is None
    assert engine.boards_of_replay(result.replay) is None


def test_plain_matches_have_no_boards() -> None:
    agents = [engine.make_agent("belote", "random", seed) for seed in range(4)]
    result = engine.run_match("belote", {}, agents, seed=2)
    assert engine.boards_of_result(result) is None
    assert engine.boards_of_replay(result.replay) is None
