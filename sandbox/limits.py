"""Resource and time limits for one sandboxed bot: one frozen dataclass, units in every name."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

KiB = 1024
MiB = 1024 * KiB


@dataclass(frozen=True, kw_only=True)
class Limits:
    """What one bot may use. Time limits are wall clock (monotonic); the rest are kernel limits.

    The per-decision timeout and the per-match time bank both apply: a decision must finish within
    ``min(decision_timeout_ms, time left in the bank)``. The bank belongs to one
    :class:`~sandbox.agent.SandboxedAgent`, i.e. to one match (all games of a duplicate match).
    """

    decision_timeout_ms: int = 1_000
    match_time_bank_ms: int = 60_000
    startup_timeout_ms: int = 2_000  # spawn -> "ready" (process start + the bot's own set-up)
    address_space_bytes: int = 512 * MiB  # RLIMIT_AS; a runtime may demand more (Node.js)
    #: all of the bot's processes together: their memory, their tmpfs files and the kernel
    #: memory they cause (inodes...), in the bot's control group (where there is one)
    memory_bytes: int = 512 * MiB
    cpu_seconds: int = 120  # RLIMIT_CPU per process: also catches spinning between decisions
    max_processes: int = 8  # RLIMIT_NPROC in the bot's user namespace, and its cgroup's pids
    max_open_files: int = 64  # RLIMIT_NOFILE
    max_file_size_bytes: int = 8 * MiB  # RLIMIT_FSIZE: largest file the bot may write
    tmpfs_size_bytes: int = 16 * MiB  # each of the only writable places: /tmp and /dev/shm
    max_line_bytes: int = 64 * KiB  # one protocol line from the bot; longer = protocol error
    max_output_bytes: int = 8 * MiB  # stdout + stderr over the agent's life; more = output limit
    max_stderr_bytes: int = 64 * KiB  # stderr kept as the owner's private log (the last bytes)

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")

    def to_bot(self) -> dict[str, int]:
        """The limits a bot is told in ``hello`` (time and line size; the rest it discovers)."""
        return {
            "decision_timeout_ms": self.decision_timeout_ms,
            "match_time_bank_ms": self.match_time_bank_ms,
            "max_line_bytes": self.max_line_bytes,
            "address_space_bytes": self.address_space_bytes,
        }

    def replace(self, **changes: Any) -> Limits:
        return replace(self, **changes)


DEFAULT_LIMITS = Limits()
