"""The replay viewer's words, translated on the server and handed to the script as JSON.

Action strings in the replay stay data (``take``, ``trump:s``); the viewer shows these labels
beside them.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext


def viewer_labels() -> dict[str, object]:
    return {
        "play": _("Play"),
        "pause": _("Pause"),
        "deal": _("Deal"),
        "hand": _("Hand"),
        "game": _("Game"),
        "dealer": _("dealer"),
        "button": _("button"),
        "trick": _("Trick"),
        "tricks": _("tricks"),
        "trump": _("Trump"),
        "no_trump": _("no trump"),
        "upcard": _("Turned card"),
        "taker": _("taker"),
        "caller": _("caller"),
        "declarer": _("declarer"),
        "contract": _("Contract"),
        "doubles": _("Doubles"),
        "layout": _("Domino layout"),
        "story": _("What happened"),
        "scores": _("Scores"),
        "deal_score": _("this deal"),
        "total": _("total"),
        "points_left": _("points left"),
        "chart": _("Score over the deals"),
        "pot": _("Pot"),
        "street": _("Betting round"),
        "draw_round": _("Draw"),
        "winner": _("winner"),
        "fault": _("Fault"),
        "folded": _("folded"),
        "hidden": _("hidden card"),
        "seat": _("Seat"),
        "card_points": _("card points"),
        "start": _("The cards are dealt."),
        "end": _("Deal over."),
        "load_failed": _("The replay could not be loaded:"),
        "suits": {"s": _("spades"), "h": _("hearts"), "d": _("diamonds"), "c": _("clubs")},
        "actions": {
            "pass": _("passes"),
            "take": _("takes"),
            "fold": pgettext("badugi", "folds"),
            "check": pgettext("badugi", "checks"),
            "call": pgettext("badugi", "calls"),
            "bet": pgettext("badugi", "bets"),
            "raise": pgettext("badugi", "raises"),
            "bet_korean": pgettext("korean betting", "bets one ante (bbing)"),
            "raise_korean": pgettext("korean betting", "doubles the bet (ttadang)"),
            "half": pgettext("korean betting", "bets half the pot (half)"),
            "drew": _("draws"),
            "pat": _("stands pat"),
            "plays": _("plays"),
            "trump": _("names trump"),
            "contract": _("chooses"),
            "double": _("doubles"),
            "no_double": _("doubles nobody"),
        },
        "contracts": {
            "no_tricks": _("No tricks"),
            "no_hearts": _("No hearts"),
            "no_queens": _("No queens"),
            "no_king_of_hearts": _("No king of hearts"),
            "no_last_two": _("No last two tricks"),
            "no_last_trick": _("No last trick"),
            "trumps": _("Trumps"),
            "domino": _("Domino"),
            "salad": _("Salad"),
        },
    }
