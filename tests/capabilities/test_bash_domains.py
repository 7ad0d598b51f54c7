"""Domain patterns of the sandbox's network allowlist: what they match, what a hook may narrow
them to, how they are checked in `Bash(network=...)` and read from Claude Code settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookagent._errors import ConfigError
from hookagent.capabilities.bash import Bash
from hookagent.capabilities.bash._domains import DomainPattern, DomainRules
from hookagent.capabilities.bash._proxy_http import parse_request
from hookagent.capabilities.bash._sandbox import SandboxProfile
from hookagent.capabilities.bash._tighten import SandboxArgs, tighten


@pytest.mark.parametrize(
    ("pattern", "host", "port", "allowed"),
    [
        ("example.com", "example.com", 443, True),
        ("example.com", "EXAMPLE.com.", 80, True),
        ("example.com", "api.example.com", 443, False),
        ("*.example.com", "api.example.com", 443, True),
        ("*.example.com", "a.b.example.com", 8080, True),
        ("*.example.com", "example.com", 443, False),
        ("*.example.com", "badexample.com", 443, False),
        ("example.com:443", "example.com", 443, True),
        ("example.com:443", "example.com", 80, False),
    ],
)
def test_patterns_match_as_claude_codes_allowed_domains(
    pattern: str, host: str, port: int, allowed: bool
) -> None:
    assert (DomainRules.parse([pattern]).refusal(host, port) is None) is allowed


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("127.0.0.1", "an IP address"),
        ("::1", "an IP address"),
        ("2130706433", "an IP address"),
        ("0x7f.1", "an IP address"),
        ("other.test", "not in the allowed domains (allowed.test, *.ok.test:443)"),
        ("allowed.test:22", "not in the allowed domains"),
    ],
)
def test_refusals_say_why(host: str, reason: str) -> None:
    rules = DomainRules.parse(["allowed.test", "*.ok.test:443"])
    refusal = rules.refusal(host, 443)
    assert refusal is not None and refusal.startswith(reason)


def test_a_port_limited_host_names_the_port() -> None:
    assert (
        DomainRules.parse(["a.test:443"]).refusal("a.test", 80)
        == "port 80 is not allowed for a.test"
    )


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("*", "allows every host"),
        ("10.0.0.1", "is an IP address"),
        ("[::1]", "is an IP address"),
        ("exa mple.com", "is not a host name"),
        ("api.*.com", "is not a host name"),
        ("-x.com", "is not a host name"),
        ("x.com:0", "the port must be a number from 1 to 65535"),
        ("x.com:https", "the port must be a number"),
        ("", "a non-empty string"),
        (3, "a non-empty string"),
    ],
)
def test_a_bad_pattern_is_a_config_error_naming_it(pattern: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        Bash(".", network=[pattern])  # type: ignore[list-item]
    assert caught.value.key == "Bash(network)"
    assert caught.value.value == pattern


def test_patterns_are_kept_lower_case_and_once() -> None:
    bash = Bash(".", network=["!Gist.GitHub.com", "PyPI.org", "pypi.org", "*.GitHub.com:443"])
    assert bash.sandbox.network == ("pypi.org", "*.github.com:443", "!gist.github.com")


def test_a_denial_takes_precedence() -> None:
    rules = DomainRules.parse(["*.github.com", "!gist.github.com"])
    assert rules.refusal("api.github.com", 443) is None
    assert rules.refusal("gist.github.com", 443) == "denied by !gist.github.com"


_labels = st.lists(st.sampled_from(["a", "b", "api", "x1"]), min_size=1, max_size=3)
_patterns = st.builds(
    lambda labels, wild, port: DomainPattern(".".join(labels) + ".test", wild, port),
    _labels,
    st.booleans(),
    st.sampled_from([None, 443, 80]),
)


@given(_patterns, _patterns, _labels, st.sampled_from([443, 80, 22]))
def test_a_covered_pattern_never_allows_more(
    own: DomainPattern, asked: DomainPattern, labels: list[str], port: int
) -> None:
    """What a hook may narrow to (`covers`) allows no host the policy's pattern refuses."""
    host = ".".join(labels) + ".test"
    if own.covers(asked) and asked.matches(host, port):
        assert own.matches(host, port)


def profile(network: Any) -> SandboxProfile:
    return SandboxProfile(writable=(), deny=(), network=network)


@pytest.mark.parametrize(
    ("base", "asked", "network"),
    [
        (("a.test", "*.b.test"), ["a.test"], ("a.test",)),
        (("*.b.test",), ["api.b.test", "*.x.b.test:443"], ("api.b.test", "*.x.b.test:443")),
        (("a.test",), ["a.test:443"], ("a.test:443",)),
        (("a.test",), "off", "off"),
        (("a.test",), [], ()),
        (("*.b.test", "!x.b.test"), ["a.b.test", "!*.b.test"], ("a.b.test", "!*.b.test")),
        ("allow", ["a.test"], ("a.test",)),
    ],
)
def test_a_hook_may_narrow_the_domains(base: Any, asked: Any, network: Any) -> None:
    narrowed = tighten(profile(base), SandboxArgs(network=asked))
    assert isinstance(narrowed, SandboxProfile)
    assert narrowed.network == network


@pytest.mark.parametrize(
    ("base", "asked", "message"),
    [
        (("a.test",), ["c.test"], "Sandbox network domain 'c.test' would widen the domains of"),
        (("api.b.test",), ["*.b.test"], "Sandbox network domain '*.b.test' would widen"),
        (("a.test:443",), ["a.test"], "Sandbox network domain 'a.test' would widen"),
        (("*.b.test", "!x.b.test"), ["*.b.test"], "Sandbox network domain '!x.b.test' would"),
        (("a.test",), "allow", "Sandbox network cannot be loosened from the domains a.test to"),
        ("off", ["a.test"], "Sandbox network cannot be loosened from 'off' to a domain list"),
        ("off", "allow", "Sandbox network cannot be loosened from 'off' to 'allow'"),
        (("a.test",), ["1.2.3.4"], "Sandbox network domain '1.2.3.4' is an IP address"),
    ],
)
def test_a_hook_cannot_widen_the_domains(base: Any, asked: Any, message: str) -> None:
    refused = tighten(profile(base), SandboxArgs(network=asked))
    assert isinstance(refused, str)
    assert refused.startswith(message)


@pytest.mark.parametrize(
    ("head", "host", "port", "sent"),
    [
        (b"CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", "a.test", 443, b""),
        (
            b"GET http://a.test:8080/p?q=1 HTTP/1.1\r\nHost: evil.test\r\n"
            b"Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n",
            "a.test",
            8080,
            b"GET /p?q=1 HTTP/1.1\r\nHost: a.test:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n",
        ),
    ],
)
def test_requests_are_read_by_the_host_of_their_request_line(
    head: bytes, host: str, port: int, sent: bytes
) -> None:
    request = parse_request(head)
    assert not isinstance(request, str)
    assert (request.host, request.port, request.head) == (host, port, sent)


@pytest.mark.parametrize(
    ("head", "message"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "the proxy takes absolute http:// URLs"),
        (b"GET https://a.test/ HTTP/1.1\r\n\r\n", "the proxy takes absolute http:// URLs"),
        (b"CONNECT a.test HTTP/1.1\r\n\r\n", "CONNECT target 'a.test' is not host:port"),
        (b"\x16\x03\x01 hello\r\n\r\n", "not an HTTP proxy request"),
    ],
)
def test_other_requests_are_refused(head: bytes, message: str) -> None:
    assert str(parse_request(head)).startswith(message)


# -- Claude Code settings ---------------------------------------------------------------------
def settings(folder: Path, network: Any, name: str = "settings.json") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"sandbox": {"network": network}}))
    return path


def from_files(tmp_path: Path, *files: Path, **kwargs: Any) -> Bash:
    return Bash.from_claude_settings(
        tmp_path, explicit=files, include_standard=False, project_dir=tmp_path, **kwargs
    )


def test_allowed_domains_become_the_network_list_merged_across_files(tmp_path: Path) -> None:
    one = settings(tmp_path, {"allowedDomains": ["pypi.org", "*.GitHub.com"]}, "one.json")
    two = settings(tmp_path, {"allowedDomains": ["pypi.org:443"], "allowLocalBinding": True})
    assert from_files(tmp_path, one, two).sandbox.network == (
        "pypi.org",
        "*.github.com",
        "pypi.org:443",
    )


def test_denied_domains_join_the_list_as_denials(tmp_path: Path) -> None:
    one = settings(tmp_path, {"allowedDomains": ["*.github.com"]}, "one.json")
    two = settings(tmp_path, {"deniedDomains": ["gist.github.com"]})
    assert from_files(tmp_path, one, two).sandbox.network == ("*.github.com", "!gist.github.com")


def test_without_allowed_domains_the_network_argument_decides(tmp_path: Path) -> None:
    path = settings(tmp_path, {"allowUnixSockets": []})
    assert from_files(tmp_path, path).sandbox.network == "off"
    assert from_files(tmp_path, path, network=["a.test"]).sandbox.network == ("a.test",)


def test_allowed_domains_and_a_network_argument_are_not_both_taken(tmp_path: Path) -> None:
    path = settings(tmp_path, {"allowedDomains": ["pypi.org"]})
    with pytest.raises(ConfigError, match=r"so is sandbox\.network\.allowedDomains"):
        from_files(tmp_path, path, network="allow")


def test_managed_domains_only_keeps_the_managed_files_domains(tmp_path: Path) -> None:
    (tmp_path / "project" / ".claude").mkdir(parents=True)
    settings(tmp_path / "project" / ".claude", {"allowedDomains": ["user.test"]})
    managed = settings(
        tmp_path / "managed", {"allowedDomains": ["corp.test"], "allowManagedDomainsOnly": True}
    )
    from hookagent.capabilities.bash._settings import read_sandbox_settings

    found = read_sandbox_settings(
        [(tmp_path / "project" / ".claude" / "settings.json", "project"), (managed, "managed")],
        tmp_path / "project",
    )
    assert found.domains == ["corp.test"]


@pytest.mark.parametrize(
    ("network", "key", "message"),
    [
        ({"allowedDomains": ["*"]}, "sandbox.network.allowedDomains", "allows every host"),
        ({"allowedDomains": "pypi.org"}, "sandbox.network.allowedDomains", "a list of domains"),
        ({"allowManagedDomainsOnly": True}, "sandbox.network.allowManagedDomainsOnly", "managed"),
        ({"deniedDomains": ["x.test"]}, "sandbox.network.deniedDomains", "needs sandbox"),
        ({"deniedDomains": ["1.2.3.4"]}, "sandbox.network.deniedDomains", "an IP address"),
        ({"allowUnixSockets": ["/s"]}, "sandbox.network.allowUnixSockets", "no Unix socket"),
        ({"allowAllUnixSockets": True}, "sandbox.network.allowAllUnixSockets", "no Unix socket"),
        ({"allowLocalBinding": False}, "sandbox.network.allowLocalBinding", "own loopback"),
        ({"httpProxyPort": 8080}, "sandbox.network.httpProxyPort", "its own proxy"),
        ({"socksProxyPort": 1080}, "sandbox.network.socksProxyPort", "its own proxy"),
        ({"tlsTerminate": {}}, "sandbox.network.tlsTerminate", "not a sandbox setting"),
    ],
)
def test_network_keys_that_cannot_be_honoured_name_file_and_key(
    tmp_path: Path, network: dict[str, Any], key: str, message: str
) -> None:
    path = settings(tmp_path, network)
    with pytest.raises(ConfigError, match=message) as caught:
        from_files(tmp_path, path)
    assert (caught.value.file, caught.value.key) == (str(path), key)
