"""Fit the value estimates of ``engine.luck`` (issue 34): ``engine/luck_weights.json``.

For Belote, Bauer and Barbu (Geronimo), ``--games`` games are played in-process between two
reference bots (``benchmarks/reference_bots.py``) drawn at random per game from the mixtures
and the deterministic variants at every level, seats alternating between them. At every chance
event of every finished deal (``engine.luck.chance_events``), each seat's row of features
(``engine.luck_features.seat_rows``) is paired with the seat's deal score; per game, position
key (the deal, Belote's completing deal) and role (seat from the dealer or taker), the weights
are the ridge least-squares fit of the scores on the rows (the intercept not shrunk). The
value is then the reference bots' expected deal score given what the event shows, as far as a
linear function of the features can say. Barbu's dealer declares after the deal, so its rows
are keyed by the contract he declared (the features of that contract), and per role the share
of the heuristic's pick against the mean over the declarations he had is fitted after them
(:func:`fit_choice`). Badugi (heads-up, ten hands) has one row per seat of three terms
(``engine.luck.badugi_terms``), keyed by the draws the live seats have left, fitted by least
squares without an intercept (the terms are centred over the seats); the hands' strength they
read is computed from the rules first (:func:`badugi_strength`). The seeds are apart from the
benchmarks' (those of ``benchmarks/luck.py`` and ``benchmarks/ranking.py`` start below
1,000,000), so the fit is judged on deals it has not seen; the same ``--seed`` writes the same
file.

Run: ``python benchmarks/fit_luck.py`` (about a minute of CPU) or ``--games N``; ``--check``
fits and prints the in-sample share of the score variance explained without writing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402

import engine  # noqa: E402
from benchmarks.reference_bots import FAMILIES, BotSpec, make_agent  # noqa: E402
from engine.cards import SUIT_OF, TEXT_OF  # noqa: E402
from engine.games.badugi_agent import discards  # noqa: E402
from engine.games.badugi_hands import (  # noqa: E402
    CLASSES,
    LOW_RANK,
    all_hand_values,
    hand_value,
)
from engine.luck import (  # noqa: E402
    DRAWS,
    WEIGHTS_FILE,
    badugi_terms,
    chance_events,
    option_groups,
)
from engine.luck_features import FEATURES, GameFeatures, Position, seat_rows  # noqa: E402

GAMES: list[tuple[str, dict[str, Any], int]] = [  # game, params, games to fit on
    ("belote", {}, 1500),
    ("bauer", {}, 1000),
    ("barbu", {"mode": "geronimo"}, 1000),
    ("badugi", {"players": 2, "hands": 10}, 2000),
]
LEVELS = (1.0, 0.75, 0.5, 0.25, 0.0)
FIRST_SEED = 1_000_000
#: the ridge penalty per row of data: enough to pin down features a role rarely sees
RIDGE = 0.01
DIGITS = 4  # significant digits kept in the file: far below the fit's own error

Rows = dict[tuple[str, int], tuple[list[list[float]], list[float]]]
#: per deal whose declarer chooses (Barbu) and seat: its role, its deal score, the chance that
#: the declarer picks as the heuristic does (from his earlier picks), and its rows of
#: regressors with the picked option's position key and the mean over the options' (per
#: contract: its key, its options' share, its row)
Choice = tuple[int, float, float, tuple[str, list[float]], list[tuple[str, float, list[float]]]]


def collect(name: str, params: dict[str, Any], games: int, seed: int) -> tuple[Rows, list[Choice]]:
    """Per (position key, role): the feature rows and deal scores of ``games`` games; and
    where the declarer chooses an option after the deal, the position is the option he
    declared (the deal's first action), and every seat's rows for the choice's fit."""
    game = engine.load_game(name, **params)
    features = FEATURES[name]
    rng = random.Random(seed)
    rows: Rows = defaultdict(lambda: ([], []))
    choices: list[Choice] = []
    for g in range(games):
        bots = [BotSpec(rng.choice(("mix", "det")), rng.choice(LEVELS)) for _ in range(2)]
        agents = [make_agent(name, bots[seat % 2], FIRST_SEED + 10 * g + seat)
                  for seat in range(game.num_players)]  # fmt: skip
        state = engine.play_game(game, agents, FIRST_SEED + seed + g).state
        for index, record in enumerate(state.deals):
            if record.scores is None:
                continue
            actions = [a for _, a in state.history[record.start : record.end]]
            earlier = [r.to_dict() for r in state.deals[:index]]
            for event in chance_events(game, record.deck, record.dealer, actions):
                position = features.position(event.state, earlier)
                realised = event.arrangements[0]
                if position.options:
                    assert features.declared is not None
                    choices.extend(_choice_rows(features, position, realised, record.scores))
                    position = features.declared(position, actions[:1])
                for seat, (role, row) in enumerate(seat_rows(features, position, realised)):
                    xs, ys = rows[position.key, role]
                    xs.append(row)
                    ys.append(float(record.scores[seat]))
    return rows, choices


def badugi_strength() -> list[list[float]]:
    """``strength[r][v]`` of ``engine.luck.badugi_terms``: per draws left ``r`` and hand value
    ``v``, the chance that the hand, drawing as the heuristic does (it keeps a set of cards of
    different ranks and suits that depends only on ``v`` and ``r``), ends better than a hand
    dealt and drawn three times so, ties counting half. Exact but for card removal: a kept set
    draws from the 52 cards less its own, whatever the others hold or threw."""
    count = len(CLASSES)
    ranks_value = {ranks: v for v, ranks in enumerate(CLASSES)}
    hands: dict[int, tuple[int, ...]] = {}  # a four-card hand of every value
    for hand in itertools.combinations(range(52), 4):
        hands.setdefault(hand_value(hand), hand)
    draw = np.zeros((count, count))  # kept set (as its value) -> value after drawing to it
    for kept, ranks in enumerate(CLASSES):
        held = [next(c for c in range(52) if LOW_RANK[c] == rank and SUIT_OF[c]
                     == "shdc"[i]) for i, rank in enumerate(ranks)]  # fmt: skip
        rest = [c for c in range(52) if c not in held]
        for new in itertools.combinations(rest, 4 - len(held)):
            draw[kept, hand_value([*held, *new])] += 1
        draw[kept] /= draw[kept].sum()
    final = [np.eye(count)]  # per draws left: value now -> final value
    for left in range(1, DRAWS + 1):
        keep = np.zeros((count, count))
        for v, hand in hands.items():
            thrown = set(discards([TEXT_OF[c] for c in hand], left))
            ranks = sorted((LOW_RANK[c] for c in hand if TEXT_OF[c] not in thrown), reverse=True)
            keep[v, ranks_value[tuple(ranks)]] = 1
        final.append(keep @ draw @ final[-1])
    dealt = np.bincount(all_hand_values(), minlength=count) / len(all_hand_values())
    showdown = dealt @ final[DRAWS]
    beats = np.cumsum(showdown) - showdown / 2
    return [[float(f"{x:.{DIGITS}g}") for x in f @ beats] for f in final]


def collect_badugi(
    params: dict[str, Any], games: int, seed: int, strength: list[list[float]]
) -> Rows:
    """Per position key: every seat's row of ``engine.luck.badugi_terms`` at every chance
    event of ``games`` games, with its deal score (role 0: the terms are per seat). The bots
    are drawn from all three families (Badugi's passive variants too), at every level."""
    game = engine.load_game("badugi", **params)
    rng = random.Random(seed)
    rows: Rows = defaultdict(lambda: ([], []))
    for g in range(games):
        bots = [BotSpec(rng.choice(list(FAMILIES)), rng.choice(LEVELS)) for _ in range(2)]
        agents = [make_agent("badugi", bots[seat % 2], FIRST_SEED + 10 * g + seat)
                  for seat in range(game.num_players)]  # fmt: skip
        state = engine.play_game(game, agents, FIRST_SEED + seed + g).state
        for record in state.deals:
            if record.scores is None:
                continue
            actions = [a for _, a in state.history[record.start : record.end]][:-1]
            for event in chance_events(game, record.deck, record.dealer, actions):
                key, terms = badugi_terms(event.state, event.arrangements[0], strength)
                for seat, row in enumerate(terms):
                    if any(row):
                        rows[key, 0][0].append(row)
                        rows[key, 0][1].append(float(record.scores[seat]))
    return rows


def fit_through_zero(
    xs: Sequence[Sequence[float]], ys: Sequence[float]
) -> tuple[list[float], float]:
    """Least squares of ``ys`` on ``xs`` without an intercept: the weights and the share of
    the variance of ``ys`` they explain."""
    x, y = np.asarray(xs), np.asarray(ys)
    w = np.linalg.lstsq(x, y, rcond=None)[0]
    explained = 1.0 - float(np.var(y - x @ w) / np.var(y))
    return [float(f"{v:.{DIGITS}g}") for v in w], explained


def _choice_rows(
    features: GameFeatures, position: Position, hands: list[list[str]], scores: Sequence[int]
) -> list[Choice]:
    """Every seat's rows for the fit of the declarer's choice (see :data:`Choice`)."""
    assert features.choice is not None and features.declared is not None
    picked = features.declared(position, [features.choice(position, hands[position.anchor])])
    groups = [features.declared(position, group) for group in option_groups(position.options)]
    shares = [len(p.suit or " ") / len(position.options) for p in groups]
    per_group = [seat_rows(features, p, hands) for p in groups]
    agreed, chosen = position.agreed
    rate = (agreed + 1) / (chosen + 2)
    return [
        (role, float(scores[seat]), rate, (picked.key, row),
         [(p.key, share, rows[seat][1]) for p, share, rows in zip(groups, shares, per_group,
                                                                  strict=True)])
        for seat, (role, row) in enumerate(seat_rows(features, picked, hands))
    ]  # fmt: skip


def fit_choice(
    choices: Sequence[Choice], weights: dict[str, list[list[float]]]
) -> tuple[list[list[float]], float]:
    """Per role, the share ``a + b * rate`` of the picked option's value in the declarer's
    choice (the rest is the mean over the options; ``rate`` the chance he picks as the
    heuristic does): the least-squares fit of the deal score less the mean's value on the
    picked option's value less the mean's, with the options' weights just fitted. Also the
    share of the deal scores' variance the whole value explains."""

    def value(key: str, role: int, row: list[float]) -> float:
        return float(np.dot(weights[key][role], row)) if key in weights else 0.0

    xs: dict[int, list[list[float]]] = defaultdict(list)
    ys: dict[int, list[float]] = defaultdict(list)
    for role, score, rate, (key, row), groups in choices:
        mean = sum(share * value(k, role, r) for k, share, r in groups)
        gain = value(key, role, row) - mean
        xs[role].append([gain, gain * rate])
        ys[role].append(score - mean)
    shares = [[float(f"{v:.{DIGITS}g}") for v in np.linalg.lstsq(np.asarray(xs[role]),
               np.asarray(ys[role]), rcond=None)[0]] for role in sorted(xs)]  # fmt: skip
    left = [y - float(np.dot(x, shares[role])) for role in xs for x, y in zip(xs[role], ys[role],
            strict=True)]  # fmt: skip
    scores = [score for _, score, *_ in choices]
    return shares, 1.0 - float(np.var(left) / np.var(scores))


def fit(xs: Sequence[Sequence[float]], ys: Sequence[float]) -> tuple[list[float], float]:
    """Ridge least squares of ``ys`` on ``xs`` (the first column, the intercept, unshrunk):
    the weights and the share of the variance of ``ys`` they explain."""
    x, y = np.asarray(xs), np.asarray(ys)
    penalty = RIDGE * len(y) * np.eye(x.shape[1])
    penalty[0, 0] = 0.0
    w = np.linalg.solve(x.T @ x + penalty, x.T @ y)
    explained = 1.0 - float(np.var(y - x @ w) / np.var(y))
    return [float(f"{v:.{DIGITS}g}") for v in w], explained


def dump(document: dict[str, Any]) -> str:
    """``document`` as JSON with one line per role's weights, to read and to diff."""
    text = json.dumps(document, indent=1)
    return re.sub(r"\[\s+([-\d.e,\s]+?)\s+\]", lambda m: "[" + " ".join(m[1].split()) + "]",
                  text) + "\n"  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, help="games per game (default: per game)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", help="only games whose name contains this text")
    parser.add_argument("--check", action="store_true", help="fit and report, write nothing")
    args = parser.parse_args(argv)
    document = json.loads(WEIGHTS_FILE.read_text()) if WEIGHTS_FILE.exists() else {}
    weights: dict[str, dict[str, list[list[float]]]] = document.get("weights", {})
    about: dict[str, Any] = document.get("fit", {})
    for name, params, games in GAMES:
        if args.only and args.only not in name:
            continue
        games = args.games or games
        fitted: dict[str, list[list[float]]] = {}
        if name == "badugi":
            fitted["strength"] = badugi_strength()
            rows, choices = collect_badugi(params, games, args.seed, fitted["strength"]), []
            solve = fit_through_zero
        else:
            rows, choices = collect(name, params, games, args.seed)
            solve = fit
        for key in sorted({k for k, _ in rows}):
            roles = sorted(r for k, r in rows if k == key)
            fitted[key] = []
            for role in roles:
                w, explained = solve(*rows[key, role])
                fitted[key].append(w)
                print(f"{name} {key} role {role}: {len(rows[key, role][1]):,} rows, "
                      f"{explained:.3f} of the variance explained")  # fmt: skip
        if choices:
            fitted["choice"], explained = fit_choice(choices, fitted)
            print(f"{name} choice: the picked option's share per role {fitted['choice']}; "
                  f"the value explains {explained:.3f} of the deal scores' variance")  # fmt: skip
        weights[name] = fitted
        about[name] = {"params": params, "games": games, "seed": args.seed}
    if not args.check:
        document = {
            "about": "engine.luck's fitted values: written by benchmarks/fit_luck.py",
            "fit": about,
            "weights": weights,
        }
        WEIGHTS_FILE.write_text(dump(document))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
