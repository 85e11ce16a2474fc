"""Starting a private Xvfb for window tests: ``-displayfd`` (the server picks a free display and
says which), and a check that the display answering is this server.

Xvfb may write the display number and its newline apart; closing the pipe in between kills
it ("Cannot write display number to fd"), which made windows here fail to open now and then:
the number is read up to its newline. Then the start waits until the display completes an X
connection setup, and the peer of its sockets (``SO_PEERCRED``) must be our server (on a
machine shared by several test sessions, another one could answer); if not, ours is stopped and
started again. ``-noreset``: the probe's closing must not make the server regenerate while the
test's first window connects.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import struct
import subprocess
import time

ATTEMPTS = 6


def _answering_pid(n: str, abstract: bool = False, timeout: float = 10.0) -> int | None:
    """The pid of the X server on display ``n``'s socket (the path, or the abstract one
    clients on Linux try first) once it accepts an X connection setup, or None."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(("\0" if abstract else "") + f"/tmp/.X11-unix/X{n}")
        pid, _, _ = struct.unpack("3i", s.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                     struct.calcsize("3i")))
        # X11 connection setup, little-endian, protocol 11.0, no authorization
        s.sendall(struct.pack("<cxHHHHxx", b"l", 11, 0, 0, 0))
        reply = s.recv(8)
        return pid if reply[:1] == b"\x01" else None  # 1: Success
    except OSError:
        return None
    finally:
        s.close()


def _read_display(fd: int, timeout: float) -> str:
    """The display number Xvfb writes to ``fd``, up to its newline: Xvfb may write the number
    and the newline apart, and dies ("Cannot write display number") when the pipe was closed
    in between (the cause of windows that failed to open here now and then)."""
    data = b""
    end = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise RuntimeError(f"Xvfb did not report a display within {timeout} s")
        chunk = os.read(fd, 32)
        if not chunk:
            raise RuntimeError("Xvfb closed its display pipe without a display number")
        data += chunk
    return data.decode().strip()


def start_xvfb(size: str = "1280x1024x24", timeout: float = 30.0):
    """A new Xvfb of its own: ``(process, ":N")``.

    Raises
    ------
    FileNotFoundError
        Xvfb is not installed.
    RuntimeError
        No display of its own after a few tries.
    """
    exe = shutil.which("Xvfb")
    if exe is None:
        raise FileNotFoundError("Xvfb is not installed (tools/setup.sh installs it)")
    last = ""
    for _ in range(ATTEMPTS):
        read_fd, write_fd = os.pipe()
        proc = subprocess.Popen([exe, "-displayfd", str(write_fd), "-screen", "0", size,
                                 "-nolisten", "tcp", "-noreset"], pass_fds=[write_fd],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write_fd)
        try:
            n = _read_display(read_fd, timeout)
        except RuntimeError:
            proc.kill()
            proc.wait()
            raise
        finally:
            os.close(read_fd)
        owner = _answering_pid(n)
        abstract = _answering_pid(n, abstract=True)
        if owner == proc.pid and abstract in (None, proc.pid):
            return proc, f":{n}"
        owner = owner if owner != proc.pid else abstract
        proc.kill()
        proc.wait()
        last = f"display :{n} is answered by pid {owner}, not by our Xvfb {proc.pid}"
        time.sleep(0.2)
    raise RuntimeError(f"no display of our own after {ATTEMPTS} tries ({last})")
