"""A seccomp filter for the sandbox: no new Unix-domain sockets.

A read-only filesystem does not stop `connect()` to a Unix socket, and a service listening
on one (a container daemon, a database, a session bus) may act with more rights than the
command. So `socket(AF_UNIX, ...)` fails with EPERM inside the sandbox, as Claude Code's
Linux sandbox does by default; `socketpair()` still works (it reaches nothing outside).
System calls of another architecture's ABI (32-bit `socketcall`, x32) fail too, since their
arguments cannot be checked. Only x86_64 and aarch64 have a filter; elsewhere `program()` is
None and only the deny paths stand between a command and a socket.
"""

from __future__ import annotations

import os
import platform
import struct
from typing import Final

__all__ = ["program", "program_fd"]

_ARCHES: Final = {
    "x86_64": (0xC000003E, 41),  # AUDIT_ARCH_X86_64, __NR_socket
    "aarch64": (0xC00000B7, 198),  # AUDIT_ARCH_AARCH64, __NR_socket
}
_LD_W_ABS: Final = 0x20
_JEQ_K: Final = 0x15
_JGE_K: Final = 0x35
_RET_K: Final = 0x06
_ALLOW: Final = 0x7FFF0000
_EPERM: Final = 0x00050000 | 1
_AF_UNIX: Final = 1
_X32_BIT: Final = 0x40000000


def program(machine: str | None = None) -> bytes | None:
    """The filter as `struct sock_filter`s for this machine, or None without one."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, socket_nr = arch
    steps = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, audit_arch),
        (_RET_K, 0, 0, _EPERM),  # another ABI
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, _EPERM),  # x32
        (_JEQ_K, 0, 3, socket_nr),
        (_LD_W_ABS, 0, 0, 16),  # args[0], low half
        (_JEQ_K, 0, 1, _AF_UNIX),
        (_RET_K, 0, 0, _EPERM),
        (_RET_K, 0, 0, _ALLOW),
    ]
    return b"".join(struct.pack("=HBBI", *step) for step in steps)


def program_fd(filter_program: bytes) -> int:
    """A fresh file descriptor holding `filter_program` from its start, for `bwrap
    --seccomp FD` (bwrap reads it to the end, so each call needs its own)."""
    fd = os.memfd_create("hookagent-seccomp", 0)  # not inherited unless passed
    try:
        os.write(fd, filter_program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
