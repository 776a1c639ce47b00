"""Fit the value estimates of ``engine.luck`` (issue 34): ``engine/luck_weights.json``.

For Belote, Bauer and Barbu (Geronimo), ``--games`` games are played in-process between two
reference bots (``benchmarks/reference_bots.py``) drawn at random per game from the mixtures
and the deterministic variants at every level, seats alternating between them. At every chance
event of every finished deal (``engine.luck.chance_events``), each seat's row of features
(``engine.luck_features.seat_rows``) is paired with the seat's deal score; per game, position
key (the deal, Belote's completing deal) and role (seat from the dealer or taker), the weights
are the ridge least-squares fit of the scores on the rows (the intercept not shrunk). The
value is then the reference bots' expected deal score given what the event shows, as far as a
linear function of the features can say. The seeds are apart from the benchmarks' (those of
``benchmarks/luck.py`` and ``benchmarks/ranking.py`` start below 1,000,000), so the fit is
judged on deals it has not seen; the same ``--seed`` writes the same file.

Run: ``python benchmarks/fit_luck.py`` (under a minute of CPU) or ``--games N``; ``--check``
fits and prints the in-sample share of the score variance explained without writing.
"""

from __future__ import annotations

import argparse
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
from benchmarks.reference_bots import BotSpec, make_agent  # noqa: E402
from engine.luck import WEIGHTS_FILE, chance_events  # noqa: E402
from engine.luck_features import FEATURES, seat_rows  # noqa: E402

GAMES: list[tuple[str, dict[str, Any], int]] = [  # game, params, games to fit on
    ("belote", {}, 1500),
    ("bauer", {}, 1000),
    ("barbu", {"mode": "geronimo"}, 200),
]
LEVELS = (1.0, 0.75, 0.5, 0.25, 0.0)
FIRST_SEED = 1_000_000
#: the ridge penalty per row of data: enough to pin down features a role rarely sees
RIDGE = 0.01
DIGITS = 4  # significant digits kept in the file: far below the fit's own error

Rows = dict[tuple[str, int], tuple[list[list[float]], list[float]]]


def collect(name: str, params: dict[str, Any], games: int, seed: int) -> Rows:
    """Per (position key, role): the feature rows and deal scores of ``games`` games."""
    game = engine.load_game(name, **params)
    features = FEATURES[name]
    rng = random.Random(seed)
    rows: Rows = defaultdict(lambda: ([], []))
    for g in range(games):
        bots = [BotSpec(rng.choice(("mix", "det")), rng.choice(LEVELS)) for _ in range(2)]
        agents = [make_agent(name, bots[seat % 2], FIRST_SEED + 10 * g + seat)
                  for seat in range(game.num_players)]  # fmt: skip
        state = engine.play_game(game, agents, FIRST_SEED + seed + g).state
        for record in state.deals:
            if record.scores is None:
                continue
            actions = [a for _, a in state.history[record.start : record.end]]
            for event in chance_events(game, record.deck, record.dealer, actions):
                position = features.position(event.state)
                realised = event.arrangements[0]
                for seat, (role, row) in enumerate(seat_rows(features, position, realised)):
                    xs, ys = rows[position.key, role]
                    xs.append(row)
                    ys.append(float(record.scores[seat]))
    return rows


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
        rows = collect(name, params, games, args.seed)
        fitted: dict[str, list[list[float]]] = {}
        for key in sorted({k for k, _ in rows}):
            roles = sorted(r for k, r in rows if k == key)
            fitted[key] = []
            for role in roles:
                w, explained = fit(*rows[key, role])
                fitted[key].append(w)
                print(f"{name} {key} role {role}: {len(rows[key, role][1]):,} rows, "
                      f"{explained:.3f} of the variance explained")  # fmt: skip
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
