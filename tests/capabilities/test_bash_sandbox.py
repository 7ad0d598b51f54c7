"""The escape suite: commands that try to read, change or delete files outside the sandbox,
outlive their call, or reach the network, all against sentinels this suite makes itself.

Every attempt targets a temporary folder outside the sandbox's root, made for the test (under
/var/tmp, not /tmp: the sandbox's /tmp is private, which would hide the sentinels instead of
proving them read-only); afterwards the folder must be byte for byte, mode for mode and mtime
for mtime what it was."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookagent._messages import ToolCall
from hookagent.capabilities.bash import Bash, BashPolicy
from hookagent.capabilities.bash import _seccomp as seccomp
from hookagent.capabilities.bash._sandbox import NetworkMode
from hookagent.kernel._state import RunState
from hookagent.kernel._view import RunView
from hookagent.tools._base import ToolContext, ToolResult

SECRET = "sentinel-7f3a"
FAST = BashPolicy(kill_grace_s=0.2)


@dataclass
class Area:
    root: Path
    """The sandbox's root: the one place a command may write."""
    out: Path
    """Sentinels outside the root."""

    @property
    def file(self) -> Path:
        return self.out / "file.txt"

    @property
    def dir(self) -> Path:
        return self.out / "dir"

    def snapshot(self) -> dict[str, tuple[int, int, int, int, str]]:
        seen: dict[str, tuple[int, int, int, int, str]] = {}
        if not self.out.exists():
            return seen
        for path in sorted([self.out, *self.out.rglob("*")]):
            info = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
            seen[str(path)] = (info.st_mode, info.st_uid, info.st_size, info.st_mtime_ns, digest)
        return seen


@pytest.fixture
def area(bwrap: str, tmp_path: Path) -> Iterator[Area]:
    base = Path("/var/tmp")
    folder = Path(
        tempfile.mkdtemp(prefix="hookagent-sandbox-", dir=base if base.is_dir() else tmp_path)
    )
    try:
        made = Area(root=folder / "root", out=folder / "outside")
        made.root.mkdir()
        (made.dir / "sub").mkdir(parents=True)
        made.file.write_text(SECRET)
        (made.dir / "inner.txt").write_text(SECRET)
        (made.dir / "sub" / "deep.txt").write_text(SECRET)
        yield made
    finally:
        for path in folder.rglob("*"):  # an idiom that got through may have locked it
            if not path.is_symlink():
                path.chmod(0o700)
        shutil.rmtree(folder)


async def run(bash: Bash, command: str, timeout_ms: int = 10_000, **meta: Any) -> ToolResult:
    (tool,) = bash.tools()
    view = RunView(RunState(run_id="run-1", metadata=meta))
    view.files_root = bash.root / ".hookagent"
    args = {"command": command, "timeout": timeout_ms}
    return await tool(args, ToolContext(run=view, call=ToolCall(id="c1", name="Bash", args=args)))


def sandboxed(area: Area, network: NetworkMode = "off") -> Bash:
    return Bash(area.root, FAST, sandbox="required", network=network)


PY = os.path.realpath(sys.executable)
"""The interpreter itself, not a venv's link to it: a venv under /tmp is hidden by the
sandbox's private /tmp, and an idiom whose program is missing would pass without trying."""
ESCAPES: dict[str, str] = {
    "rm -rf dir": "rm -rf {dir}",
    "rm -f file": "rm -f {file}",
    "rm -rf outside with ..": "rm -rf ../outside",
    "cd .. and rm": "cd .. && rm -rf outside",
    "python shutil.rmtree": PY + " -c \"import shutil; shutil.rmtree('{dir}')\"",
    "python os.remove": PY + " -c \"import os; os.remove('{file}')\"",
    "python open w": PY + " -c \"open('{file}', 'w').write('x')\"",
    "python os.rename": PY + " -c \"import os; os.rename('{file}', '{out}/moved')\"",
    "python os.chmod": PY + " -c \"import os; os.chmod('{file}', 0)\"",
    "python os.utime": PY + " -c \"import os; os.utime('{file}', (0, 0))\"",
    "perl unlink": "perl -e 'unlink \"{file}\"'",
    "perl open >": 'perl -e \'open(F, ">{file}"); print F "x"\'',
    "find -delete": "find {out} -delete",
    "find -exec rm": "find {out} -type f -exec rm -f {{}} +",
    "xargs rm": "echo {file} {dir}/inner.txt | xargs rm -f",
    "dd of=": "dd if=/dev/zero of={file} bs=1 count=4 conv=notrunc",
    "cp over": "echo x > y && cp y {file}",
    "mv over": "echo x > y && mv -f y {file}",
    "mv out": "mv {file} ./stolen",
    "install over": "echo x > y && install -m 600 y {file}",
    "tee": "echo x | tee {file}",
    "redirect >": "echo x > {file}",
    "redirect >>": "echo x >> {file}",
    "truncate": "truncate -s 0 {file}",
    "sed -i": "sed -i s/s/x/ {file}",
    "shred -u": "shred -u {file}",
    "chmod": "chmod 000 {file} {dir}",
    "chown": "chown nobody {file}",
    "touch": "touch {file}",
    "touch -d": "touch -d 2000-01-01 {file}",
    "mkdir new": "mkdir {out}/new",
    "mkfifo": "mkfifo {out}/fifo",
    "git init": "git init -q {out}",
    "symlink planted, write through": "ln -s {file} link && echo x > link",
    "symlink to dir, rm through": "ln -s {out} linkdir && rm -rf linkdir/",
    "hardlink planted, write through": "ln {file} hard; echo x > hard",
    "/proc/self/root": "echo x > /proc/self/root{file}; rm -rf /proc/self/root{dir}",
    "/proc/1/root": "rm -rf /proc/1/root{out}",
    "mount --bind over": "mount --bind . {out} && rm -rf {out}/*",
    "mount remount rw": "mount -o remount,rw {out}; mount -o remount,rw /; rm -rf {dir}",
    "bind of the parent": "mkdir -p p && mount --bind .. p; rm -rf p/outside",
    "unshare -r": "unshare -r sh -c 'rm -rf {dir}'",
    "unshare -rm remount": "unshare -rm sh -c 'mount -o remount,rw /; rm -rf {dir}'",
    "chroot": "chroot / rm -rf {dir}",
    "nsenter pid 1": "nsenter -t 1 -a rm -rf {dir}",
    "base64 payload": "echo {b64} | base64 -d | sh",
    "eval split": "eval 'r''m -rf {dir}'",
    "command -p": "command -p rm -rf {dir}",
    "exec -a": "exec -a x rm -rf {dir}",
    "env -S": "env -S 'rm -rf {dir}'",
    "bash -o errexit -c": "bash -o errexit -c 'rm -rf {dir}'",
    "awk system": "awk 'BEGIN {{ system(\"rm -rf {dir}\") }}'",
    "BASH_ENV trick": "echo 'rm -rf {dir}' > env.sh && BASH_ENV=./env.sh bash -c true",
    "env -i": "env -i PATH=/usr/bin:/bin rm -rf {dir}",
    "tar --remove-files": "tar --remove-files -cf ./a.tar -C {out} .",
}


@pytest.mark.parametrize("idiom", ESCAPES.values(), ids=ESCAPES.keys())
async def test_no_idiom_changes_anything_outside_the_root(area: Area, idiom: str) -> None:
    before = area.snapshot()
    payload = f"rm -rf {area.dir}".encode()
    command = idiom.format(
        file=area.file,
        dir=area.dir,
        out=area.out,
        b64=__import__("base64").b64encode(payload).decode(),
    )
    result = await run(sandboxed(area), command)
    assert result.data["sandbox"]["active"] is True
    assert area.snapshot() == before, result.content


CONTROLS = ("rm -rf dir", "python shutil.rmtree", "find -delete", "redirect >", "touch")


@pytest.mark.parametrize("name", CONTROLS)
async def test_without_the_sandbox_the_same_idioms_do_change_the_sentinels(
    area: Area, name: str
) -> None:
    """The suite can see an escape: unsandboxed, these idioms get through the deny list."""
    before = area.snapshot()
    command = ESCAPES[name].format(file=area.file, dir=area.dir, out=area.out)
    await run(Bash(area.root, FAST, sandbox="off"), command)
    assert area.snapshot() != before


async def test_a_link_planted_before_the_call_does_not_lead_out(area: Area) -> None:
    (area.root / "escape").symlink_to(area.out)
    before = area.snapshot()
    await run(sandboxed(area), "echo x > escape/file.txt; rm -rf escape/dir escape/")
    assert area.snapshot() == before


async def test_the_sentinels_are_visible_read_only_and_the_root_is_writable(area: Area) -> None:
    result = await run(sandboxed(area), f"cat {area.file} && echo made > made.txt")
    assert not result.is_error
    assert result.content == SECRET
    assert (area.root / "made.txt").read_text() == "made\n"


@pytest.mark.parametrize(
    "program",
    [PY + " -c 'print(42)'", "perl -e 'print 42'", "awk 'BEGIN{print 42}'", "git --version"],
)
async def test_the_programs_the_idioms_use_run_inside(area: Area, program: str) -> None:
    """Guards the escape suite against passing for the wrong reason: every interpreter and
    tool its idioms start is there inside the sandbox."""
    result = await run(sandboxed(area), program)
    assert not result.is_error, result.content
    assert "42" in result.content or "git version" in result.content


async def test_tmp_is_private_to_the_call(area: Area) -> None:
    bash = sandboxed(area)
    await run(bash, "echo one > /tmp/mine")
    result = await run(bash, "ls -A /tmp")
    assert result.content == "(no output)"


LATE = {
    "background &": "(sleep 1; echo late > {late}) &",
    "nohup": "nohup sh -c 'sleep 1; echo late > {late}' >/dev/null 2>&1 &",
    "setsid": "setsid sh -c 'sleep 1; echo late > {late}' >/dev/null 2>&1 < /dev/null &",
    "double fork": "( ( sleep 1; echo late > {late} ) & ) ; disown -a",
    "python daemon": PY
    + ' -c "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:'
    "\n        time.sleep(1); open('{late}', 'w').write('late')\"",
    "bounded fork bomb": (
        "b() {{ [ $1 -gt 0 ] && {{ b $(($1 - 1)) & b $(($1 - 1)) & }}; sleep 1; "
        "echo late >> {late}; }}; b 6; sleep 30"
    ),
}


async def test_no_process_outlives_its_call(area: Area) -> None:
    """Each idiom would write a file in the root a second after its call ended; two seconds
    later none has. The fork bomb (a bounded one: 127 processes) is stopped by its timeout."""
    bash = sandboxed(area)
    names = list(LATE)
    results = await asyncio.gather(
        *(
            run(bash, LATE[name].format(late=area.root / f"late-{i}"), timeout_ms=500)
            for i, name in enumerate(names)
        )
    )
    assert results[-1].data["interrupted"] is True
    await asyncio.sleep(2)
    left = sorted(path.name for path in area.root.glob("late-*"))
    assert left == [], [names[int(name.split("-")[1])] for name in left]


async def test_a_timeout_stops_a_sandboxed_command_that_ignores_sigterm(area: Area) -> None:
    started = time.monotonic()
    result = await run(sandboxed(area), "trap '' TERM; sleep 30 & wait", timeout_ms=300)
    assert time.monotonic() - started < 5
    assert result.data["interrupted"] is True


async def test_deny_paths_cannot_be_read_or_changed(
    area: Area, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = area.out / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    (area.root / ".hookagent").mkdir()
    (area.root / ".hookagent" / "sessions.db").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    before = area.snapshot()
    own = (area.root / ".hookagent").stat().st_mtime_ns
    command = (
        "cat ~/.ssh/id_ed25519 ~/.netrc .hookagent/sessions.db; ls -A ~/.ssh .hookagent; "
        f"{PY} -c \"print(open('{home}/.ssh/id_ed25519').read())\"; "
        "cp -r ~/.ssh ./stolen; rm -rf ~/.ssh .hookagent; echo x > ~/.netrc; echo x > .hookagent/x"
    )
    result = await run(Bash(area.root, FAST, sandbox="required"), command)
    assert SECRET not in result.content
    assert SECRET not in "".join(
        p.read_text() for p in area.root.rglob("*") if p.is_file() and ".hookagent" not in p.parts
    )
    assert area.snapshot() == before
    assert (area.root / ".hookagent" / "sessions.db").read_text() == SECRET
    assert (area.root / ".hookagent").stat().st_mtime_ns == own
    assert str(home / ".ssh") in result.data["sandbox"]["deny"]


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A loopback TCP server; what each connection sent is listed."""
    server = socket.create_server(("127.0.0.1", 0))
    got: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                got.append(conn.recv(100))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], got
    server.close()
    thread.join(timeout=2)


def tcp(port: int) -> str:
    return (
        f"{PY} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2).send(b'hi')\""
    )


def udp(port: int) -> str:
    send = "socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto"
    return f"{PY} -c \"import socket; {send}(b'q', ('127.0.0.1', {port}))\""


async def test_no_network_by_default(area: Area, listener: tuple[int, list[bytes]]) -> None:
    """The sandbox has a loopback of its own: the host's listeners are not on it."""
    port, got = listener
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as dns:
        dns.bind(("127.0.0.1", 0))
        dns.settimeout(0.3)
        bash = sandboxed(area)
        await run(bash, udp(dns.getsockname()[1]))  # sent into the sandbox's own loopback
        for command in (
            tcp(port),
            f"exec 3<>/dev/tcp/127.0.0.1/{port}; echo hi >&3",
            f"{PY} -c \"import socket; socket.create_connection(('192.0.2.1', 9), 1)\"",
            "getent hosts example.com",
        ):
            result = await run(bash, command)
            assert result.is_error, command
        with pytest.raises(TimeoutError):
            dns.recvfrom(10)
    assert got == []


async def test_a_denied_unix_socket_cannot_be_reached(area: Area) -> None:
    """A read-only filesystem does not stop connect(): a service's socket must be denied."""
    path = area.out / "svc.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen()
        server.settimeout(0.3)
        bash = Bash(area.root, FAST, sandbox="required", deny_paths=[path])
        send = f"s = socket.socket(socket.AF_UNIX); s.connect('{path}'); s.send(b'hi')"
        result = await run(bash, f'{PY} -c "import socket; {send}"')
        assert result.is_error
        with pytest.raises(TimeoutError):
            server.accept()


@pytest.mark.skipif(seccomp.program() is None, reason="no seccomp filter for this machine")
async def test_no_unix_socket_can_be_made_even_when_not_denied(area: Area) -> None:
    """The seccomp filter: socket(AF_UNIX) fails, so a socket outside the deny paths is not
    reachable either; socketpair() still works."""
    path = area.out / "svc.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen()
        server.settimeout(0.3)
        send = f"s = socket.socket(socket.AF_UNIX); s.connect('{path}'); s.send(b'hi')"
        result = await run(sandboxed(area), f'{PY} -c "import socket; {send}"')
        assert "Operation not permitted" in result.content
        with pytest.raises(TimeoutError):
            server.accept()
    pair = await run(sandboxed(area), f'{PY} -c "import socket; socket.socketpair()"')
    assert not pair.is_error, pair.content


async def test_network_allow_reaches_loopback(
    area: Area, listener: tuple[int, list[bytes]]
) -> None:
    port, got = listener
    result = await run(sandboxed(area, network="allow"), tcp(port))
    assert not result.is_error, result.content
    assert result.data["sandbox"]["network"] == "allow"
    for _ in range(100):
        if got:
            break
        await asyncio.sleep(0.02)
    assert got == [b"hi"]


async def test_the_environment_is_scrubbed_and_keyed_inside(
    area: Area, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    monkeypatch.setenv("LD_PRELOAD", "/nonexistent/evil.so")
    result = await run(sandboxed(area), "env")
    assert SECRET not in result.content
    assert "LD_PRELOAD" not in result.content
    assert "HOOKAGENT_IDEMPOTENCY_KEY=" in result.content
