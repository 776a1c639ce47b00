"""Rating-history plots drawn on the server as SVG geometry (the template writes the markup).

A pure function of the numbers: no database, so a test can call it directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: distinguishable on white and for common colour blindness (Okabe-Ito)
PALETTE = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")
WIDTH, HEIGHT = 640, 240
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_Y = 48, 12, 14


@dataclass(frozen=True)
class Line:
    label: str
    colour: str
    points: str  # "x,y x,y ..." for a <polyline>
    last: float


@dataclass(frozen=True)
class Tick:
    y: float
    value: int


@dataclass(frozen=True)
class Plot:
    width: int
    height: int
    left: int
    right: int
    lines: list[Line]
    ticks: list[Tick]


def rating_plot(series: Sequence[tuple[str, Sequence[float]]]) -> Plot | None:
    """One line per (label, ratings oldest first); x is each bot's own match count, so bots
    with different numbers of games share the width. None if no series has two points."""
    drawn = [(label, values) for label, values in series if len(values) >= 2]
    if not drawn:
        return None
    low = min(min(v) for _, v in drawn)
    high = max(max(v) for _, v in drawn)
    if high - low < 20:
        low, high = low - 10, high + 10
    right = WIDTH - MARGIN_RIGHT
    span_x = right - MARGIN_LEFT
    span_y = HEIGHT - 2 * MARGIN_Y

    def y_of(value: float) -> float:
        return MARGIN_Y + (high - value) / (high - low) * span_y

    lines = []
    for index, (label, values) in enumerate(drawn):
        step = span_x / (len(values) - 1)
        points = " ".join(
            f"{MARGIN_LEFT + i * step:.1f},{y_of(v):.1f}" for i, v in enumerate(values)
        )
        lines.append(Line(label, PALETTE[index % len(PALETTE)], points, values[-1]))
    ticks = [Tick(round(y_of(v), 1), round(v)) for v in _tick_values(low, high)]
    return Plot(WIDTH, HEIGHT, MARGIN_LEFT, right, lines, ticks)


def _tick_values(low: float, high: float) -> list[float]:
    """Round values every 10, 25, 50, 100... points, four to eight of them."""
    for step in (10, 25, 50, 100, 250, 500, 1000):
        if (high - low) / step <= 6:
            break
    first = -(-low // step) * step
    values = []
    value = first
    while value <= high:
        values.append(value)
        value += step
    return values
