"""``arena view``: a replay as text, deal by deal, for reading a match without the site.

Each deal shows the dealer, the hands (with a seat view only the seat's own hand and the number
of cards the others hold), the bidding or betting, the tricks (Belote, Bauer and Barbu: the
cards in play order, led by the winner of the trick before), the deal's public summary and its
scores. A seat view (``engine.seat_view``) is rendered the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

CARD = re.compile(r"[2-9TJQKA][shdc]")
HIDDEN = "??"


def render_replay(replay: dict[str, Any], game_numbers: list[int] | None = None) -> Iterator[str]:
    """Lines describing ``replay``; ``game_numbers`` (1-based) limits the games shown."""
    entrants = replay["entrants"]
    viewpoint = replay.get("viewpoint")
    seed = (
        f"seed not shown, as seat {viewpoint['seat']} saw it"
        if viewpoint
        else f"seed {replay['seed']}"
    )
    yield (
        f"{replay['game']} {json.dumps(replay['params'], separators=(',', ':'))}"
        f"{' duplicate' if replay['duplicate'] else ''}, {seed}"
    )
    result = replay["result"]
    for e, name in enumerate(entrants):
        yield (
            f"  entrant {e} {name}: score {result['scores'][e]:g}, place {result['placings'][e]}"
        )
    for g, played in enumerate(replay["games"]):
        if game_numbers and g + 1 not in game_numbers:
            continue
        names = [entrants[e] for e in played["seats"]]
        yield ""
        yield f"== game {g + 1} of {len(replay['games'])}: " + ", ".join(
            f"seat {s} {n}" for s, n in enumerate(names)
        )
        for fault in played["faults"]:
            where = "start-up" if fault["decision"] < 0 else f"decision {fault['decision']}"
            yield (
                f"  FAULT seat {fault['seat']} ({names[fault['seat']]}) at {where}: "
                f"{fault['verdict']}: {fault['message']}"
            )
        for deal in played["deals"]:
            yield from _deal(replay["game"], deal, names)
        returns = " ".join(f"{r:g}" for r in played["returns"])
        yield f"  game {g + 1} returns per seat: {returns}"


def _deal(game: str, deal: dict[str, Any], names: list[str]) -> Iterator[str]:
    yield ""
    yield f"  -- deal {deal['index'] + 1}, dealer seat {deal['dealer']} ({names[deal['dealer']]})"
    for seat, hand in enumerate(deal["hands"]):
        shown = f"{len(hand)} hidden cards" if hand and set(hand) == {HIDDEN} else " ".join(hand)
        yield f"     hand {seat}: {shown}"
    if game == "badugi":
        yield from _betting(deal["events"])
    else:
        yield from _tricks(deal["events"], len(names))
    public = {k: v for k, v in deal["info"].items() if v is not None}
    yield f"     summary: {json.dumps(public, separators=(', ', ': '))}"
    yield f"     scores: {' '.join(str(s) for s in deal['scores'])}"


def _tricks(events: list[dict[str, Any]], seats: int) -> Iterator[str]:
    """Calls as they come; each run of card plays cut into tricks of one card per seat (Barbu's
    domino, where a player may pass, as one line of plays)."""
    calls: list[str] = []
    run: list[dict[str, Any]] = []

    def flush_run() -> Iterator[str]:
        if not run:
            return
        if any(not _is_card(e) for e in run):  # the domino layout: cards and passes
            yield "     plays: " + " ".join(_event(e) for e in run)
        else:
            for t in range(0, len(run), seats):
                trick = run[t : t + seats]
                yield f"     trick {t // seats + 1:>2}: " + " ".join(_event(e) for e in trick)
        run.clear()

    for event in events:
        if _is_card(event) or (run and event["action"] == "pass"):
            if calls:
                yield "     calls: " + " ".join(calls)
                calls.clear()
            run.append(event)
        else:
            yield from flush_run()
            calls.append(_event(event))
    if calls:
        yield "     calls: " + " ".join(calls)
    yield from flush_run()


def _betting(events: list[dict[str, Any]]) -> Iterator[str]:
    """Badugi: one line per betting round, one per draw."""
    line: list[str] = []
    drawing = False
    for event in events:
        is_draw = event["action"].startswith(("draw:", "drew:"))
        if line and is_draw != drawing:
            yield ("     draw:  " if drawing else "     bets:  ") + " ".join(line)
            line = []
        drawing = is_draw
        line.append(_event(event))
    if line:
        yield ("     draw:  " if drawing else "     bets:  ") + " ".join(line)


def _is_card(event: dict[str, Any]) -> bool:
    return CARD.fullmatch(event["action"]) is not None


def _event(event: dict[str, Any]) -> str:
    text = f"{event['seat']}:{event['action']}"
    if "received" in event:  # a seat view: the viewing seat's hand gained these cards
        text += f" (+{','.join(event['received'])} to your hand)"
    return text
