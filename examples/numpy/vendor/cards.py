"""A pure-Python helper vendored inside the bot's package (found through bot.toml's
``pythonpath = ["vendor"]``): the same way any pure-Python dependency can be shipped."""

RANKS = "23456789TJQKA"
SUITS = "shdc"


def card_rank(action: str) -> int:
    """0 (a two) .. 12 (an ace) for a single card such as ``"Td"``; -1 for any other action."""
    if len(action) == 2 and action[0] in RANKS and action[1] in SUITS:
        return RANKS.index(action[0])
    return -1
