"""Bot faults: how an agent failed to produce a legal action, and whose fault it was.

Sandboxed agents raise :class:`AgentFault`; the match runner records it, replaces the agent with a
fallback for the rest of the game and places the faulted entrant last. ``INTERNAL_ERROR`` is the
platform's fault, never the bot's: the runner aborts the match so it can be retried.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Verdict(StrEnum):
    TIMEOUT = "timeout"
    CRASH = "crash"
    MEMORY = "memory"
    OUTPUT_LIMIT = "output_limit"
    PROTOCOL_ERROR = "protocol_error"
    ILLEGAL_ACTION = "illegal_action"
    INTERNAL_ERROR = "internal_error"


class AgentFault(Exception):
    """An agent failed; ``verdict`` classifies it, ``detail`` holds facts (exit code, action...)."""

    def __init__(self, verdict: Verdict | str, message: str, **detail: Any) -> None:
        super().__init__(f"{verdict}: {message}")
        self.verdict = Verdict(verdict)
        self.message = message
        self.detail = detail


class MatchAborted(RuntimeError):
    """The platform (not a bot) failed during a match; the match must be retried, not scored."""
