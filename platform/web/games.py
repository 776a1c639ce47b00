"""The four games as the pages present them: names as players say them and a short summary."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _


@dataclass(frozen=True)
class GameInfo:
    key: str  # the engine's name, also in URLs
    name: Promise
    players: Promise
    summary: Promise
    score_unit: Promise  # what a match score counts, for column headings


GAMES: tuple[GameInfo, ...] = (
    GameInfo(
        "belote",
        _("Belote"),
        _("4 players, two teams"),
        _("Thirty-two cards, a turned card proposes the trump, the jack and nine of trumps rank "
          "highest; the takers' team must score more card points than the defenders. The first "
          "team past 1000 points wins."),
        _("game points"),
    ),
    GameInfo(
        "bauer",
        _("Bauer"),
        _("4 players, two teams"),
        _("A Euchre cousin with thirty-two cards: the jack of trumps (right bauer) and the other "
          "jack of its colour (left bauer) are the top trumps. Each team counts down from 8; "
          "taking five of the eight tricks scores a point."),
        _("points struck off"),
    ),
    GameInfo(
        "barbu",
        _("Barbu"),
        _("4 players, each for themselves"),
        _("Each declarer in turn picks a contract: five negative ones (no tricks, no hearts, no "
          "queens, no king of hearts, no last two tricks) and two positive ones (trumps and "
          "domino). Players may double one another."),
        _("points"),
    ),
    GameInfo(
        "badugi",
        _("Badugi"),
        _("2 to 6 players"),
        _("Korean lowball triple draw: four cards, three draws and four betting rounds. The best "
          "hand has four low cards of four different suits and four different ranks."),
        _("chips won"),
    ),
)
GAME_KEYS = tuple(g.key for g in GAMES)


def game_info(key: str) -> GameInfo:
    """The game named in a URL, or a 404."""
    for game in GAMES:
        if game.key == key:
            return game
    raise Http404(_("There is no game of that name."))
