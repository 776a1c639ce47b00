"""Card Arena's games for OpenSpiel (optional extra: ``pip install card-arena[openspiel]``).

Importing this package registers ``arena_belote``, ``arena_bauer``, ``arena_barbu`` and
``arena_badugi`` with ``pyspiel``, each one deal of the engine's game (see
:mod:`arena_openspiel.games`)::

    import arena_openspiel, pyspiel
    game = pyspiel.load_game("arena_barbu(mode=geronimo)")
"""

from .games import ArenaGame, ArenaObserver, ArenaState, register

GAMES = register()

__all__ = ["GAMES", "ArenaGame", "ArenaObserver", "ArenaState", "register"]
