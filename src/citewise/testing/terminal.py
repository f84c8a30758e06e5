"""Run a command the way a user does: under a pseudo-terminal (stdin, stdout and stderr are a
tty), so terminal-only code paths (progress bars, colours, prompts) run in tests too."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class TerminalRun:
    """What a command did in a terminal: its exit status and everything it printed (stdout
    and stderr interleaved, as a user saw them; ``\\r\\n`` line ends as a tty writes them)."""

    argv: tuple[str, ...]
    returncode: int
    output: str
    seconds: float

    @property
    def text(self) -> str:
        """The output with ``\\r\\n`` as ``\\n`` (bar refreshes keep their bare ``\\r``)."""
        return self.output.replace("\r\n", "\n")


def run_in_pty(argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
               env: Mapping[str, str] | None = None, timeout: float = 300.0,
               columns: int = 100, rows: int = 40) -> TerminalRun:
    """Run ``argv`` with a pseudo-terminal as its controlling terminal and stdio; return its
    exit status and output. Past ``timeout`` seconds the process group is killed and the
    status is -9."""
    master, slave = pty.openpty()
    _set_size(slave, columns, rows)
    started = time.monotonic()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env) if env is not None else None,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                            close_fds=True)
    os.close(slave)
    chunks: list[bytes] = []
    try:
        _pump(master, proc, chunks, started + timeout)
    finally:
        os.close(master)
    code = proc.wait()
    return TerminalRun(tuple(argv), code, b"".join(chunks).decode("utf-8", "replace"),
                       time.monotonic() - started)


class PtyProcess:
    """A long-running command (a server) under a pseudo-terminal: wait for a line it prints,
    then stop it. ``output`` holds everything read so far."""

    def __init__(self, argv: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
                 env: Mapping[str, str] | None = None, columns: int = 100) -> None:
        self.argv = tuple(argv)
        self.master, slave = pty.openpty()
        _set_size(slave, columns)
        self.proc = subprocess.Popen(list(argv), cwd=cwd,
                                     env=dict(env) if env is not None else None,
                                     stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.output = ""

    def expect(self, pattern: str, timeout: float = 60.0) -> bool:
        """Read until ``pattern`` (a regex) appears in the output, the process ends, or
        ``timeout`` seconds pass; True when it appeared."""
        import re

        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.output):
            if time.monotonic() > deadline:
                return False
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return bool(re.search(pattern, self.output))
                if not data:
                    return bool(re.search(pattern, self.output))
                self.output += data.decode("utf-8", "replace")
            elif self.proc.poll() is not None and not _more(self.master):
                return bool(re.search(pattern, self.output))
        return True

    def stop(self, grace: float = 10.0) -> int:
        """SIGTERM (then SIGKILL after ``grace`` seconds) to its process group; its status."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        code = self.proc.wait()
        os.close(self.master)
        return code


def _pump(master: int, proc: subprocess.Popen[bytes], chunks: list[bytes],
          deadline: float) -> None:
    while True:
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            return
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal's slave side has closed it
                return
            if not data:
                return
            chunks.append(data)
        elif proc.poll() is not None and not _more(master):
            return


def _more(master: int) -> bool:
    ready, _, _ = select.select([master], [], [], 0.05)
    return bool(ready)


def _set_size(fd: int, columns: int, rows: int = 40) -> None:
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
