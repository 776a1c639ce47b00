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

from .i18n import _

CARD = re.compile(r"[2-9TJQKA][shdc]")
HIDDEN = "??"


def render_replay(replay: dict[str, Any], game_numbers: list[int] | None = None) -> Iterator[str]:
    """Lines describing ``replay``; ``game_numbers`` (1-based) limits the games shown."""
    entrants = replay["entrants"]
    viewpoint = replay.get("viewpoint")
    seed = (
        _("seed not shown, as seat {seat} saw it").format(seat=viewpoint["seat"])
        if viewpoint
        else _("seed {seed}").format(seed=replay["seed"])
    )
    yield (
        f"{replay['game']} {json.dumps(replay['params'], separators=(',', ':'))}"
        f"{' ' + _('duplicate') if replay['duplicate'] else ''}, {seed}"
    )
    result = replay["result"]
    for e, name in enumerate(entrants):
        yield "  " + _("entrant {number} {name}: score {score}, place {place}").format(
            number=e, name=name, score=f"{result['scores'][e]:g}", place=result["placings"][e]
        )
    for g, played in enumerate(replay["games"]):
        if game_numbers and g + 1 not in game_numbers:
            continue
        names = [entrants[e] for e in played["seats"]]
        yield ""
        seats = ", ".join(
            _("seat {seat} {name}").format(seat=s, name=n) for s, n in enumerate(names)
        )
        yield "== " + _("game {number} of {total}: {seats}").format(
            number=g + 1, total=len(replay["games"]), seats=seats
        )
        for fault in played["faults"]:
            where = (
                _("start-up")
                if fault["decision"] < 0
                else _("decision {n}").format(n=fault["decision"])
            )
            faulted = _("FAULT seat {seat} ({name}) at {where}").format(
                seat=fault["seat"], name=names[fault["seat"]], where=where
            )
            yield f"  {faulted}: {fault['verdict']}: {fault['message']}"
        for deal in played["deals"]:
            yield from _deal(replay["game"], deal, names)
        returns = " ".join(f"{r:g}" for r in played["returns"])
        yield "  " + _("game {number} returns per seat: {returns}").format(
            number=g + 1, returns=returns
        )


def _deal(game: str, deal: dict[str, Any], names: list[str]) -> Iterator[str]:
    yield ""
    yield "  -- " + _("deal {number}, dealer seat {seat} ({name})").format(
        number=deal["index"] + 1, seat=deal["dealer"], name=names[deal["dealer"]]
    )
    for seat, hand in enumerate(deal["hands"]):
        shown = (
            _("{count} hidden cards").format(count=len(hand))
            if hand and set(hand) == {HIDDEN}
            else " ".join(hand)
        )
        yield "     " + _("hand {seat}: {cards}").format(seat=seat, cards=shown)
    if game == "badugi":
        yield from _betting(deal["events"])
    else:
        yield from _tricks(deal["events"], len(names))
    yield "     " + _("summary: {info}").format(info=summary_text(deal["info"]))
    yield "     " + _("scores: {scores}").format(scores=" ".join(str(s) for s in deal["scores"]))


def summary_text(info: dict[str, Any]) -> str:
    """A deal's public summary (docs/replay-format.md) as words: ``trump h · taker 0 · card
    points 86 76``; empty entries (null, empty lists) are left out, per-seat lists read in
    seat order and lists of lists (Badugi's final hands) are grouped by seat with ``|``."""
    parts = []
    for key, value in info.items():
        if value is None or value == [] or value == {}:
            continue
        parts.append(f"{key.replace('_', ' ')} {_value_text(value)}")
    return " · ".join(parts)


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        if any(isinstance(item, list) for item in value):
            return " | ".join(_value_text(item) if item else "-" for item in value)
        return " ".join("-" if item is None else _value_text(item) for item in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value_text(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _tricks(events: list[dict[str, Any]], seats: int) -> Iterator[str]:
    """Calls as they come; each run of card plays cut into tricks of one card per seat (Barbu's
    domino, where a player may pass, as one line of plays)."""
    calls: list[str] = []
    run: list[dict[str, Any]] = []

    def flush_run() -> Iterator[str]:
        if not run:
            return
        if any(not _is_card(e) for e in run):  # the domino layout: cards and passes
            yield "     " + _("plays: {events}").format(events=" ".join(_event(e) for e in run))
        else:
            for t in range(0, len(run), seats):
                trick = " ".join(_event(e) for e in run[t : t + seats])
                yield "     " + _("trick {number}: {events}").format(
                    number=f"{t // seats + 1:>2}", events=trick
                )
        run.clear()

    for event in events:
        if _is_card(event) or (run and event["action"] == "pass"):
            if calls:
                yield _calls(calls)
                calls.clear()
            run.append(event)
        else:
            yield from flush_run()
            calls.append(_event(event))
    if calls:
        yield _calls(calls)
    yield from flush_run()


def _calls(calls: list[str]) -> str:
    return "     " + _("calls: {events}").format(events=" ".join(calls))


def _betting(events: list[dict[str, Any]]) -> Iterator[str]:
    """Badugi: one line per betting round, one per draw."""
    line: list[str] = []
    drawing = False
    for event in events:
        is_draw = event["action"].startswith(("draw:", "drew:"))
        if line and is_draw != drawing:
            yield _round(line, drawing)
            line = []
        drawing = is_draw
        line.append(_event(event))
    if line:
        yield _round(line, drawing)


def _round(events: list[str], drawing: bool) -> str:
    label = _("draw:  {events}") if drawing else _("bets:  {events}")
    return "     " + label.format(events=" ".join(events))


def _is_card(event: dict[str, Any]) -> bool:
    return CARD.fullmatch(event["action"]) is not None


def _event(event: dict[str, Any]) -> str:
    text = f"{event['seat']}:{event['action']}"
    if "received" in event:  # a seat view: the viewing seat's hand gained these cards
        text += " " + _("(+{cards} to your hand)").format(cards=",".join(event["received"]))
    return text
