"""The ranking benchmark (benchmarks/ranking.py): the oracle pairing, the yardstick the ladder's
matchmaking is measured against, must put its matches where the verdict is least sure; the
luck-corrected matches take each deal's luck out of the raw scores."""

import pytest

import engine
from benchmarks.ranking import Pool, Trace, ladder_chooser, neighbour_doubt, oracle_chooser
from benchmarks.reference_bots import family
from engine.luck import state_luck


def set_of(winner: int, loser: int, won: int, lost: int) -> list[list[tuple[int, int]]]:
    """One duplicate set of boards between two bots, ``won`` of them by ``winner``."""
    return [[(winner, 1), (loser, 2)]] * won + [[(winner, 2), (loser, 1)]] * lost


def ladder() -> list[list[list[tuple[int, int]]]]:
    """Bots 0 > 1 > 2 > 3 > 4: every neighbour's order plain from eight sets, except 1 and 2,
    who split their boards."""
    clear = [set_of(b, b + 1, 9, 1) for b in (0, 2, 3) for _ in range(8)]
    return clear + [set_of(1, 2, 5, 5) for _ in range(8)]


def test_the_doubt_is_where_the_neighbours_split() -> None:
    doubt = neighbour_doubt(ladder(), 5, seed=0)
    assert doubt[1] > 0.3
    assert max(doubt[0], doubt[2], doubt[3]) < 0.05
    assert doubt[4] == 0.0  # the last bot has no neighbour below
    assert neighbour_doubt([], 5, seed=0) == [0.5, 0.5, 0.5, 0.5, 0.0]


def test_the_oracle_seats_the_neighbours_the_verdict_doubts_most() -> None:
    heads_up = Pool(engine.load_game("bauer"), family("mix"))
    assert oracle_chooser(heads_up, 0)(Trace(results=ladder())) == (1, 2)
    tables = Pool(engine.load_game("barbu", mode="geronimo"), family("mix"))
    table = oracle_chooser(tables, 0)(Trace(results=ladder()))
    assert len(table) == 4 and {1, 2} <= set(table)


def test_the_ladders_queue_plays_its_oldest_table_and_tops_up_within_the_back_pressure() -> None:
    """Five heads-up bots and a queue of eight: two pending matches per bot allow five tables,
    each bot in two; once a table is played only its two bots may join the next, so a queue
    topped up after every result keeps its first five pairs, whatever the fit says (docs/
    ranking.md, Matchmaking against an oracle pairing). Emptied before a top-up, it is planned
    afresh: five tables again, each bot in two."""
    heads_up = Pool(engine.load_game("bauer"), family("mix"))
    results = ladder() * 2

    def tables(depth: int, every: int | None) -> list[tuple[int, ...]]:
        choose = ladder_chooser(heads_up, 0, depth=depth, every=every)
        return [choose(Trace(results=results[:k])) for k in range(15)]

    locked = tables(8, 1)
    assert sorted(b for t in locked[:5] for b in t) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert locked[5:] == locked[:5] * 2
    drained = tables(8, None)
    assert drained[:5] == locked[:5]
    for plan in (drained[5:10], drained[10:]):
        assert sorted(b for t in plan for b in t) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_the_deals_luck_cancels_in_a_duplicate_set() -> None:
    """Bauer's only chance event is the deal, whose luck is the same in both games of a set:
    corrected duplicate sets have the duplicate sets' boards, shared by their margin on the
    corrected scores' scale (``engine.margin_scale``), or deal by deal inside the set, while
    corrected plain games are the raw ones minus their luck."""
    pool = Pool(engine.load_game("bauer", start_points=3), family("mix"))
    for seed in range(3):
        raw = pool.match((0, 1), seed, 0, duplicate=True)
        games = [pool.play((0, 1), seed, r).board_game for r in (0, 1)]
        boards = engine.board_scores(games, teams=pool.game.teams)
        by_margin = pool.board_orders((0, 1), boards, corrected=True)
        assert by_margin != raw[0] and len(by_margin) == 2 * len(boards)  # two weighted orders
        corrected = pool.match((0, 1), seed, 0, duplicate=True, corrected=True)
        assert corrected[:2] == (by_margin, raw[1])
        # scored deal by deal inside the set: every deal of both games, past the shorter's too
        each = pool.match((0, 1), seed, 0, duplicate=True, by_deal=True, corrected=True)
        assert len(each[0]) == 2 * raw[1] and each[1:] == corrected[1:]
        _, deals, totals = pool.match((0, 1), seed, 0, duplicate=False, corrected=True)
        played = pool.play((0, 1), seed, 0)
        luck = [0.0, 0.0]
        for deal in state_luck(played.state):
            for seat, value in enumerate(deal):
                luck[played.positions[seat]] += value
        assert deals == len(played.board_game.deal_scores)
        assert totals == [pytest.approx(s - x) for s, x in zip(played.scores, luck, strict=True)]
        assert luck != [0.0, 0.0]


def test_a_corrected_badugi_game_is_shared_by_its_corrected_total() -> None:
    """Badugi scores a game by its chip total: raw, by its sign (one finishing order); luck
    corrected, shared by the corrected total's margin on Badugi's corrected scale."""
    pool = Pool(engine.load_game("badugi", players=2, hands=10), family("det"))
    scale = engine.margin_scale(pool.game, corrected=True)
    assert scale == 20
    for seed in range(3):
        raw, _, raw_totals = pool.match((0, 1), seed, 0, duplicate=False)
        assert raw == [[(b, p) for b, p in zip((0, 1), engine.placings(raw_totals), strict=True)]]
        shared, _, totals = pool.match((0, 1), seed, 0, duplicate=False, corrected=True)
        assert totals != raw_totals
        assert shared == pool.board_orders((0, 1), [totals], corrected=True)
        won = engine.margin_share(totals[0] - totals[1], scale)
        assert 0 < won < 1 and len(shared) == 2  # two orders, weighted by the shares
