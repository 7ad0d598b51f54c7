"""The command server that runs inside a long-lived sandbox; standard library only.

hookagent starts it once under `bwrap` (`persistent.py`) with the interpreter's real path,
its source on stdin (the installed file may sit under a /tmp the sandbox hides) and the
number of its end of a socket pair as argument. Every call then costs a message instead of
a new set of namespaces. A request is a 4-byte length and that many bytes of JSON,
`{"argv", "env", "cwd", "env_file"?}`, sent with the write ends of the call's stdout and
stderr pipes attached (SCM_RIGHTS). The reply is one JSON line, `{"exit": N}`, or
`{"exit": N, "broken": why}` when the sandbox must not be used again. It is sent only once
every process of the call is gone and /tmp, /dev and the System V IPC objects are as the
sandbox started, so nothing a call starts or leaves there is there for the next. While a
call runs, a request `{"op": "kill"}` (no descriptors) ends it at once; one that comes
after its call ended is ignored. End of file on the socket ends the server.

The server is PID 2 of the sandbox's PID namespace (bwrap's init is 1) and a child
subreaper, so every orphan of a call is reparented to it and reaped; after a call it
SIGKILLs every process /proc lists but itself and init (setsid, double forks and nohup
included) until none is left. It is not dumpable, so a command can neither ptrace it nor
open its files under /proc. A change to the sandbox's mounts (one propagated from the host)
since it started is answered `{"stale": why}`, and the call runs elsewhere.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import stat
import struct
import sys
import time

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_HEADER = struct.Struct("!I")
_SWEEP_ROUNDS = 2000
_SCRATCH = ("/tmp", "/dev")
_IPC_RMID = 0
_SHM_INFO = 14
_MSG_INFO = 12
_SEM_INFO = 19


_libc = ctypes.CDLL(None, use_errno=True)


def main(channel: socket.socket) -> None:
    libc = _libc
    for option in (_PR_SET_CHILD_SUBREAPER, _PR_SET_DUMPABLE):
        if libc.prctl(option, 1 if option == _PR_SET_CHILD_SUBREAPER else 0, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl({option})")
    os.set_inheritable(channel.fileno(), False)
    devnull = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    mounts = select.poll()  # the mount table signals a change as POLLPRI | POLLERR
    mounts.register(os.open("/proc/self/mountinfo", os.O_RDONLY | os.O_CLOEXEC), select.POLLPRI)
    skeleton = _scratch()
    os.close(os.pidfd_open(os.getpid()))  # fails early where pidfds are missing
    _send(channel, {"ready": os.getpid()})
    while True:
        request, fds = _receive(channel)
        if request is None:
            _sweep()
            return
        if request.get("op") == "kill" or len(fds) != 2:  # a late kill: its call has ended
            _close(fds)
            continue
        if mounts.poll(0):
            _close(fds)
            _send(channel, {"stale": "the sandbox's mounts changed since it started"})
            continue
        _send(channel, _call(channel, request, fds, devnull, skeleton))


def _call(
    channel: socket.socket,
    request: dict[str, object],
    fds: list[int],
    devnull: int,
    skeleton: dict[str, tuple[int, ...]],
) -> dict[str, object]:
    out, err = fds
    env_file = request.get("env_file")
    try:
        if isinstance(env_file, list):
            path, text = env_file
            with open(path, "wb") as file:
                file.write(text.encode("utf-8", "surrogateescape"))
            os.chmod(path, 0o444)
        os.chdir(str(request["cwd"]))
        argv = [str(arg) for arg in request["argv"]]  # type: ignore[attr-defined]
        pid = os.posix_spawn(
            argv[0],
            argv,
            {str(k): str(v) for k, v in request["env"].items()},  # type: ignore[attr-defined]
            file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull, 0),
                (os.POSIX_SPAWN_DUP2, out, 1),
                (os.POSIX_SPAWN_DUP2, err, 2),
                (os.POSIX_SPAWN_CLOSE, out),
                (os.POSIX_SPAWN_CLOSE, err),
            ],
            setsid=True,
            setsigdef=(signal.SIGPIPE, signal.SIGXFSZ),
            setsigmask=(),
        )
    except OSError as exc:  # reported as a shell reports a command it cannot run
        os.write(err, f"{request['argv'][0]}: {exc.strerror or exc}\n".encode())  # type: ignore[index]
        _close(fds)
        return {"exit": 127}
    _close(fds)
    pidfd = os.pidfd_open(pid)
    killed = False
    try:
        while True:
            ready, _, _ = select.select([pidfd, channel.fileno()], [], [])
            if pidfd in ready:
                break
            message, extra = _receive(channel)
            _close(extra)
            if message is None or message.get("op") == "kill":
                killed = True
                break
    finally:
        os.close(pidfd)
    if killed:
        _kill_all()
    _, status = os.waitpid(pid, 0)
    reply: dict[str, object] = {"exit": os.waitstatus_to_exitcode(status)}
    if not _sweep():
        reply["broken"] = "a process of the call could not be stopped"
    elif not _reset(skeleton):
        reply["broken"] = "/tmp, /dev or IPC objects could not be reset"
    return reply


def _others() -> list[int]:
    me = os.getpid()
    return [
        pid for name in os.listdir("/proc") if name.isdigit() and (pid := int(name)) not in (1, me)
    ]


def _kill_all() -> None:
    for pid in _others():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _sweep() -> bool:
    """SIGKILL and reap every process but init and this one, until none is left."""
    for _ in range(_SWEEP_ROUNDS):
        _reap()
        if not _others():
            return True
        _kill_all()
        time.sleep(0.0005)
    return False


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _scratch() -> dict[str, tuple[int, ...]]:
    """The writable scratch folders (/tmp, /dev) and each path under them on their own file
    systems, with its `_stamp`: what bwrap made, mounts left out."""
    found: dict[str, tuple[int, ...]] = {}
    for top in _SCRATCH:
        info = os.lstat(top)
        device, found[top] = info.st_dev, _stamp(info)
        todo = [top]
        while todo:
            folder = todo.pop()
            for name in _list(folder):
                path = os.path.join(folder, name)
                info = os.lstat(path)
                if info.st_dev == device:
                    found[path] = _stamp(info)
                    if stat.S_ISDIR(info.st_mode):
                        todo.append(path)
    return found


def _stamp(info: os.stat_result) -> tuple[int, ...]:
    """Inode and mode, and for a folder its size and links: on tmpfs a folder's size counts
    its entries, so an entry added or removed anywhere shows on its folder."""
    if stat.S_ISDIR(info.st_mode):
        return (info.st_ino, info.st_mode, info.st_size, info.st_nlink)
    return (info.st_ino, info.st_mode)


def _unchanged(skeleton: dict[str, tuple[int, ...]]) -> bool:
    """Whether /tmp and /dev are as the sandbox started, from the skeleton's paths alone."""
    try:
        return all(_stamp(os.lstat(path)) == stamp for path, stamp in skeleton.items())
    except OSError:
        return False


def _reset(skeleton: dict[str, tuple[int, ...]]) -> bool:
    """Remove what the call left in /tmp and /dev (on their own file systems, never inside
    a mount: the root may be bound under /tmp) and its System V IPC objects; whether all is
    as the sandbox started."""
    ipc = _remove_ipc() if _ipc_in_use() else True
    if _unchanged(skeleton):
        return ipc
    for top in _SCRATCH:
        device = os.lstat(top).st_dev
        for name in _list(top):
            _remove(os.path.join(top, name), device, skeleton)
    return ipc and _scratch() == skeleton


def _remove(path: str, device: int, skeleton: dict[str, tuple[int, ...]]) -> None:
    try:
        info = os.lstat(path)
        if info.st_dev != device:
            return  # a mount
        if not stat.S_ISDIR(info.st_mode):
            if path not in skeleton:
                os.unlink(path)
            return
        for name in _list(path):
            _remove(os.path.join(path, name), device, skeleton)
        if path not in skeleton:
            os.rmdir(path)
    except OSError:
        pass  # seen when the tree is compared with the skeleton


def _ipc_in_use() -> bool:
    """Whether any System V shared memory segment, queue or semaphore set exists: the
    counts of IPC_INFO's SHM_INFO, MSG_INFO and SEM_INFO, three system calls."""
    info = ctypes.create_string_buffer(256)
    counts = ctypes.cast(info, ctypes.POINTER(ctypes.c_int))
    calls = (
        (_libc.shmctl, (0, _SHM_INFO, info), 0),  # shm_info.used_ids
        (_libc.msgctl, (0, _MSG_INFO, info), 0),  # msginfo.msgpool
        (_libc.semctl, (0, 0, _SEM_INFO, info), 7),  # seminfo.semusz
    )
    for call, args, index in calls:
        ctypes.memset(info, 0, len(info))
        if call(*args) < 0 or counts[index] != 0:
            return True
    return False


def _remove_ipc() -> bool:
    """Remove the System V shared memory, queues and semaphores the call left; they would
    outlive it in the sandbox's IPC namespace."""
    removers = {"shm": _libc.shmctl, "msg": _libc.msgctl, "sem": _libc.semctl}
    done = True
    for kind, remove in removers.items():
        with open(f"/proc/sysvipc/{kind}", "rb") as file:
            rows = file.read().splitlines()[1:]
        for row in rows:
            ident = int(row.split()[1])
            args = (ident, 0, _IPC_RMID) if kind == "sem" else (ident, _IPC_RMID, None)
            done = remove(*args) == 0 and done
    return done


def _list(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except PermissionError:  # a folder the command locked: opened up again
        os.chmod(folder, 0o700)
        return os.listdir(folder)


def _receive(channel: socket.socket) -> tuple[dict[str, object] | None, list[int]]:
    """The next request and its descriptors; None at end of file."""
    try:
        header, fds, _, _ = socket.recv_fds(channel, _HEADER.size, 4)
    except ConnectionError:
        return None, []
    if len(header) < _HEADER.size:
        header += _exactly(channel, _HEADER.size - len(header)) if header else b""
    if len(header) < _HEADER.size:
        return None, fds
    request = json.loads(_exactly(channel, _HEADER.unpack(header)[0]))
    return (request if isinstance(request, dict) else {}), fds


def _exactly(channel: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = channel.recv(min(left, 1 << 20))
        if not chunk:
            raise EOFError("the request ended early")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _send(channel: socket.socket, reply: dict[str, object]) -> None:
    channel.sendall(json.dumps(reply).encode() + b"\n")


def _close(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


if __name__ == "__main__":
    _channel = socket.socket(fileno=int(sys.argv[1]))
    try:
        main(_channel)
    except Exception as exc:  # said to hookagent, which stops the sandbox
        _send(_channel, {"error": f"{type(exc).__name__}: {exc}"})
        raise SystemExit(1) from None
