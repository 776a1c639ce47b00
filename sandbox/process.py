"""One bot process and bounded, deadline-driven I/O with it (JSON Lines on stdin/stdout).

Every read is bounded: a line longer than ``max_line_bytes`` is refused, stdout and stderr
together may not exceed ``max_output_bytes``, and stderr is kept in a ring buffer of
``max_stderr_bytes`` (the last bytes, which hold the traceback). Writes are non-blocking too,
so a bot that stops reading its stdin cannot block the worker. Nothing here blocks without a
deadline; :meth:`BotProcess.kill` ends the whole process group and reaps it.
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .cgroups import GATE_ARGV

READ_CHUNK = 64 * 1024
_BLANK = re.compile(rb"[ \t\r\n]*")


class Timeout(Exception):
    """The deadline passed before the bot answered."""


class Closed(Exception):
    """The bot closed its stdout (or stdin): it exited or is about to."""


class LineTooLong(Exception):
    pass


class OutputLimit(Exception):
    pass


@dataclass
class ExitInfo:
    returncode: int | None  # None: still running when we gave up waiting
    cpu_seconds: float
    killed_by_us: bool


class RingBuffer:
    """Keeps the last ``capacity`` bytes written and counts the rest."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._data = bytearray()
        self.total = 0

    def write(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._data += chunk
        if len(self._data) > 2 * self.capacity:  # trim in batches, not per write
            del self._data[: len(self._data) - self.capacity]

    def mark(self, position: int, label: bytes) -> bool:
        """Insert the line ``label`` where the stream stood at ``position`` (an earlier
        ``total``), if those bytes are still kept, after a newline if a line was left open
        there; whether it was."""
        back = self.total - position
        if back < 0 or back > len(self._data):
            return False
        at = len(self._data) - back
        if at > 0 and self._data[at - 1] != ord("\n"):
            label = b"\n" + label
        self._data[at:at] = label
        self.total += len(label)
        return True

    def text(self) -> str:
        data = bytes(self._data[-self.capacity :])
        dropped = self.total - len(data)
        head = f"[... {dropped} earlier bytes dropped ...]\n" if dropped else ""
        return head + data.decode("utf-8", errors="replace")


class BotProcess:
    """A started bot: write lines to it, read its lines, kill it. Not thread-safe."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | None,
        env: dict[str, str] | None,
        max_line_bytes: int,
        max_output_bytes: int,
        max_stderr_bytes: int,
        pass_fds: Sequence[int] = (),
        admit: Callable[[int], None] | None = None,
        open_gate: bool = True,
    ) -> None:
        """``admit(pid)``, if given, runs before any of ``argv`` does: the process starts as a
        gate (:data:`~sandbox.cgroups.GATE_ARGV`) that waits for one line on its stdin, which
        is sent once ``admit`` returned (it moves the pid into the bot's control group). With
        ``open_gate=False`` that happens in :meth:`open_gate`, which the caller may run in
        another thread: the bots of a match are admitted side by side, sharing the kernel's
        wait for an RCU grace period (milliseconds) that each move into a group may cost."""
        self._admit = admit
        if admit is not None:
            argv = [*GATE_ARGV, *argv]
        self.max_line_bytes = max_line_bytes
        self.max_output_bytes = max_output_bytes
        self.stderr = RingBuffer(max_stderr_bytes)
        self.output_bytes = 0
        self.started = time.monotonic()
        self._proc = subprocess.Popen(  # noqa: S603 - argv is built by us, never by a shell
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            close_fds=True,
            pass_fds=tuple(pass_fds),  # the seccomp filter for bubblewrap
            cwd=cwd,
            env=env,
            process_group=0,  # kill() signals the group: bubblewrap, or the bot and its children
        )
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self.pid = self._proc.pid
        self._stdin = self._proc.stdin.fileno()
        self._stdout = self._proc.stdout.fileno()
        self._stderr = self._proc.stderr.fileno()
        for fd in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._stdout, selectors.EVENT_READ)
        self._selector.register(self._stderr, selectors.EVENT_READ)
        self._open = {self._stdout, self._stderr}
        self._buf = bytearray()
        self._start = 0  # first unread byte of _buf
        self._scan = 0  # where to resume looking for a newline
        self._exit: ExitInfo | None = None
        self._killed = False
        self._closed = False
        if open_gate:
            self.open_gate()

    def open_gate(self) -> None:
        """Admit the gated process and let it start ``argv`` (once; nothing if not gated)."""
        admit, self._admit = self._admit, None
        if admit is not None:
            try:
                admit(self.pid)
                os.write(self._stdin, b"\n")  # nothing was written before: never blocks
            except BaseException:
                self.kill()
                raise

    def restart_clock(self) -> None:
        """Its bot starts now (a prepared sandbox's gate was given its bot): the start-up
        limit counts from here, and what the gate wrote is not the bot's output."""
        self.started = time.monotonic()
        self.output_bytes = 0

    # -- writing ----------------------------------------------------------------------------

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` completely before ``deadline`` (raises Timeout / Closed)."""
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._stdin, view)
            except BlockingIOError:
                written = 0
            except (BrokenPipeError, ConnectionResetError):
                raise Closed("the bot closed its input") from None
            view = view[written:]
            if view:
                self._wait_writable(deadline)

    def send_now(self, data: bytes) -> bytes:
        """Write what the pipe takes without waiting; the rest, for :meth:`send` (a closed
        pipe is left for it to report)."""
        try:
            return data[os.write(self._stdin, data) :]
        except (BlockingIOError, BrokenPipeError, ConnectionResetError):
            return data

    def _wait_writable(self, deadline: float) -> None:
        key = self._selector.register(self._stdin, selectors.EVENT_WRITE)
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise Timeout("the bot does not read its input")
                for ready, _ in self._selector.select(remaining):
                    if ready.fd == self._stdin:
                        return
                    self._drain(ready.fd)  # keep stderr/stdout flowing meanwhile
        finally:
            self._selector.unregister(key.fd)

    # -- reading ----------------------------------------------------------------------------

    def read_line(self, deadline: float) -> bytes:
        """The next non-blank line (without the newline), or raise Timeout / Closed / ..."""
        while True:
            line = self._next_line()
            if line is not None:
                if line.strip():
                    return line
                continue  # blank lines are ignored (they still count as output)
            if self._stdout not in self._open:
                raise Closed("the bot closed its output")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout("no answer in time")
            for key, _ in self._selector.select(remaining):
                self._drain(key.fd)

    def _next_line(self) -> bytes | None:
        buf = self._buf
        if self._scan == self._start:  # skip blank lines at C speed (a flood of newlines)
            self._start = self._scan = _BLANK.match(buf, self._start).end()  # type: ignore[union-attr]
        newline = buf.find(b"\n", self._scan)
        if newline < 0:
            self._scan = len(buf)
            if len(buf) - self._start > self.max_line_bytes:
                raise LineTooLong(f"a line longer than {self.max_line_bytes} bytes")
            return None
        line = bytes(buf[self._start : newline])
        self._start = self._scan = newline + 1
        if len(line) > self.max_line_bytes:
            raise LineTooLong(f"a line of {len(line)} bytes (limit {self.max_line_bytes})")
        return line

    def _drain(self, fd: int, *, post_mortem: bool = False) -> None:
        """One read from ``fd`` (stdout or stderr), counting it against the output budget."""
        try:
            chunk = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError as err:
            if err.errno != errno.EIO:
                raise
            chunk = b""
        if not chunk:
            self._selector.unregister(fd)
            self._open.discard(fd)
            return
        if fd == self._stderr:
            self.stderr.write(chunk)  # bounded: a ring buffer
        elif post_mortem:
            return  # nobody will read it any more
        else:
            if self._start:
                del self._buf[: self._start]
                self._scan -= self._start
                self._start = 0
            self._buf += chunk
        self.output_bytes += len(chunk)
        if self.output_bytes > self.max_output_bytes and not post_mortem:
            raise OutputLimit(f"wrote more than {self.max_output_bytes} bytes")

    def drain_ready(self) -> None:
        """Read whatever the bot has written already, without waiting (its stderr from before
        its reply is in the pipe by the time the reply is read)."""
        for key, _ in self._selector.select(0):
            self._drain(key.fd)

    def close_stdin(self) -> None:
        """No more messages: the bot reads end-of-file (and a loop over its input ends)."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:  # a pipe it already closed
                pass

    def drain_post_mortem(self, deadline: float) -> None:
        """Collect what is left on stderr after the bot died or was killed, until EOF."""
        while self._open and time.monotonic() < deadline:
            events = self._selector.select(max(0.0, deadline - time.monotonic()))
            for key, _ in events:
                self._drain(key.fd, post_mortem=True)

    # -- ending -----------------------------------------------------------------------------

    def wait_exit(self, timeout: float) -> ExitInfo:
        """Reap the process if it exits within ``timeout`` (it closed its pipes: it is dying)."""
        if self._exit is not None:
            return self._exit
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
            if pid:
                self._proc.returncode = os.waitstatus_to_exitcode(status)
                cpu = usage.ru_utime + usage.ru_stime
                self._exit = ExitInfo(self._proc.returncode, cpu, self._killed)
                return self._exit
            if time.monotonic() >= deadline:
                return ExitInfo(None, 0.0, self._killed)
            time.sleep(0.001)

    def kill(self) -> ExitInfo:
        """SIGKILL the whole process group, reap it, collect the rest of stderr, close pipes."""
        if self._exit is None:
            self._killed = True
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, usage = os.wait4(self.pid, 0)
            self._proc.returncode = os.waitstatus_to_exitcode(status)
            self._exit = ExitInfo(
                self._proc.returncode, usage.ru_utime + usage.ru_stime, killed_by_us=True
            )
        self.close()
        return self._exit

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.drain_post_mortem(time.monotonic() + 0.2)
        self._selector.close()
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()

    @property
    def output_closed(self) -> bool:
        """Its stdout and stderr reached end-of-file (every process holding them is gone)."""
        return not self._open

    @property
    def exited(self) -> bool:
        return self._exit is not None or self.wait_exit(0).returncode is not None
