"""Inside the sandbox: the proxy's address on the sandbox's own loopback, and the command.

This file's source is run by the sandbox's interpreter (`python -I -S -c SOURCE FD PORT
COMMAND...`, standard library only, nothing imported from hookagent, which may not be
visible inside). It is the first process in the sandbox's network namespace, which has a
loopback and nothing else. It listens on `127.0.0.1:PORT`, starts COMMAND with the proxy
variables (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and their lower-case forms) naming that
address and `NO_PROXY` naming loopback, and hands every TCP connection it accepts, as a
descriptor, over FD to the proxy in hookagent, which reads and answers it there. It exits
with the command's status once the command has ended.

Why descriptors over an inherited socket pair: the seccomp filter makes `socket(AF_UNIX)`
fail inside the sandbox, and FD (one end of a `socketpair` made outside) needs no new
socket; the forwarder copies no bytes and decides nothing, so everything the policy says
is enforced outside, where the command cannot reach. The command does not inherit FD or
the listener (both are close-on-exec), so it can only speak to the proxy as a client.
"""

from __future__ import annotations

import _socket
import _thread
import os
import sys

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
LOOPBACK = "localhost,127.0.0.1,::1"
# Low-level modules only (`_socket`, `_thread`, `os.posix_spawnp`): this runs before every
# such call, and `socket`, `subprocess` and `threading` would triple its start-up time.


def main(argv: list[str]) -> int:
    fd = int(argv[0])
    os.set_inheritable(fd, False)
    channel = _socket.socket(fileno=fd)
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(argv[1])))
    listener.listen(64)
    url = f"http://127.0.0.1:{argv[1]}"
    env = dict(os.environ)
    for name in PROXY_VARIABLES:
        env[name] = env[name.lower()] = url
    env["NO_PROXY"] = env["no_proxy"] = LOOPBACK
    try:
        pid = os.posix_spawnp(argv[2], argv[2:], env)
    except OSError as exc:
        print(f"hookagent sandbox: cannot start {argv[2]}: {exc}", file=sys.stderr)
        return 127
    _thread.start_new_thread(hand_over, (listener, channel))
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return 128 - status if status < 0 else status


def hand_over(listener: _socket.socket, channel: _socket.socket) -> None:
    """Pass each accepted connection's descriptor to the proxy, then drop our copy."""
    rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS)]
    while True:
        conn, _ = listener._accept()  # type: ignore[attr-defined]  # _socket's: a bare fd
        try:
            channel.sendmsg([b"c"], [(*rights[0], conn.to_bytes(4, sys.byteorder))])
        except OSError:
            return
        finally:
            os.close(conn)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
