"""The grouped shuffle decoding deals exactly the decks of the plain mixed-radix decoding, and
the deck generator is ``random.Random`` of the same text seed, so a seed keeps giving the decks
every stored replay holds."""

from __future__ import annotations

import random

import pytest

from engine.cards import CARDS, Card
from engine.game import _permutation_bits, deck_generator, shuffled


def one_radix_at_a_time(items: list[Card], rng: random.Random) -> list[Card]:
    deck = list(items)
    x = rng.getrandbits(_permutation_bits(len(deck)))
    for i in range(len(deck) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("size", [1, 2, 3, 20, 24, 32, 52])
def test_grouped_decoding_gives_the_same_decks(size: int) -> None:
    items = list(CARDS[:size])
    for seed in range(200):
        assert shuffled(items, random.Random(seed)) == one_radix_at_a_time(
            items, random.Random(seed)
        )


@pytest.mark.parametrize("seed", ["0:0:deck", "12345:27:deck", "-3:1:deck", "x", "", "é:0:deck"])
def test_deck_generator_is_random_random_of_the_same_seed(seed: str) -> None:
    fast, plain = deck_generator(seed), random.Random(seed)
    for bits in (1, 64, 122, 290, 32, 7):
        assert fast.getrandbits(bits) == plain.getrandbits(bits)
    assert shuffled(list(CARDS), deck_generator(seed)) == shuffled(list(CARDS), random.Random(seed))
