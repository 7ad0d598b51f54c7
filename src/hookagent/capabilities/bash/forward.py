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
the listener (`close_fds`), so it can only speak to the proxy as a client.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
LOOPBACK = "localhost,127.0.0.1,::1"


def main(argv: list[str]) -> int:
    channel = socket.socket(fileno=int(argv[0]))
    listener = socket.create_server(("127.0.0.1", int(argv[1])))
    url = f"http://127.0.0.1:{argv[1]}"
    env = dict(os.environ)
    for name in PROXY_VARIABLES:
        env[name] = env[name.lower()] = url
    env["NO_PROXY"] = env["no_proxy"] = LOOPBACK
    try:
        command = subprocess.Popen(argv[2:], env=env)
    except OSError as exc:
        print(f"hookagent sandbox: cannot start {argv[2]}: {exc}", file=sys.stderr)
        return 127
    threading.Thread(target=hand_over, args=(listener, channel), daemon=True).start()
    status = command.wait()
    return 128 - status if status < 0 else status


def hand_over(listener: socket.socket, channel: socket.socket) -> None:
    """Pass each accepted connection's descriptor to the proxy, then drop our copy."""
    while True:
        conn, _ = listener.accept()
        try:
            socket.send_fds(channel, [b"c"], [conn.fileno()])
        except OSError:
            return
        finally:
            conn.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
