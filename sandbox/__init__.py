"""Run untrusted bot programs isolated (bubblewrap, rlimits, a control group per bot) and speak
the bot protocol.

``SandboxedAgent(bot, limits)`` is an engine agent; ``load_bot(path)`` stages a bot package.
This package may import ``engine`` (for the agent types) but never Django.
"""

from .agent import SandboxedAgent
from .bwrap import SandboxUnavailable
from .limits import DEFAULT_LIMITS, Limits
from .package import BotPackage, BotPackageError, PackageCaps, load_bot, single_file_suffixes
from .protocol import PROTOCOL_VERSION
from .runtimes import RUNTIMES

__all__ = [
    "DEFAULT_LIMITS",
    "PROTOCOL_VERSION",
    "RUNTIMES",
    "BotPackage",
    "BotPackageError",
    "Limits",
    "PackageCaps",
    "SandboxUnavailable",
    "SandboxedAgent",
    "load_bot",
    "single_file_suffixes",
]
