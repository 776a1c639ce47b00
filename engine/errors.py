"""Errors the engine raises to its callers."""


class IllegalAction(ValueError):
    """An action that is not in the current legal-action set (the message says why)."""


class InvalidParams(ValueError):
    """A rule option or match parameter that does not exist or has a bad value."""


class InvalidReplay(ValueError):
    """A replay document that is malformed or does not re-simulate to its recorded result."""
