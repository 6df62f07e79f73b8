"""Which bearer token goes to which OpenEnv server: the operator's choice, never a row's.

Dataset rows are untrusted data (third-party OpenEnv datasets exist), so no row names a secret
or where one goes. The process maps servers to the variables that hold their tokens, in
`SWIFT_GYM_OPENENV_TOKENS` (`host[:port]=VARIABLE,...`; from Python, set it in `os.environ`).
A token goes only to a server whose host (and port, where the entry names one) the mapping
names, and in clear text (ws://, from an http:// URL) only to a loopback host, unless the
operator sets `SWIFT_GYM_OPENENV_INSECURE_TOKENS=1`.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from ..errors import printable
from .protocol import RemoteEnvError

TOKENS_VARIABLE = "SWIFT_GYM_OPENENV_TOKENS"
"""The operator's mapping: `host[:port]=VARIABLE,...`."""
INSECURE_VARIABLE = "SWIFT_GYM_OPENENV_INSECURE_TOKENS"
"""`1`: tokens may travel in clear text (ws://) to hosts that are not loopback."""
TOKENS_FORMAT = f"{TOKENS_VARIABLE}=host[:port]=VARIABLE,..."
_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,199}")
_HOST = re.compile(r"[A-Za-z0-9._:%-]{1,255}")
"""A host name or IP address (IPv6 without its brackets, maybe with a %zone)."""
_TOKEN = re.compile(r"[\x21-\x7e]{1,8192}")
"""What an Authorization header can carry after `Bearer `: visible ASCII."""
_DEFAULT_PORTS = {"ws": 80, "wss": 443}

Target = tuple[str, "int | None"]
"""A host (lower case, IPv6 without brackets) and a port, or None: any port of that host."""


class TokenSetupError(RemoteEnvError):
    """The token mapping cannot be used as set: a malformed entry, a variable that is unset, or
    a token that would travel in clear text. Nothing was sent."""


def parse_tokens(text: str) -> dict[Target, str]:
    """`"gpu-box:8000=GYM_TOKEN, [::1]=LOCAL"` -> `{("gpu-box", 8000): "GYM_TOKEN", ("::1",
    None): "LOCAL"}`; `TokenSetupError` naming the entry that is wrong."""
    mapping: dict[Target, str] = {}
    for entry in text.split(","):
        entry = entry.strip()
        if not entry:
            continue
        target, sep, variable = (part.strip() for part in entry.partition("="))
        key = _target(target) if sep else None
        if key is None or not _VARIABLE.fullmatch(variable):
            raise TokenSetupError(
                f"{TOKENS_VARIABLE}: {printable(entry, 200)!r} is not host[:port]=VARIABLE "
                f"(e.g. {TOKENS_VARIABLE}=gpu-box-2:8000=GYM_TOKEN)"
            )
        if key in mapping:
            raise TokenSetupError(f"{TOKENS_VARIABLE} names {printable(target, 200)} twice")
        mapping[key] = variable
    return mapping


def _target(text: str) -> Target | None:
    try:
        parts = urlsplit("//" + text)
        port = parts.port
    except ValueError:  # a port that is no number, or out of range
        return None
    bare = parts.netloc and not (parts.path or parts.query or parts.fragment or "@" in text)
    host = parts.hostname
    return (host, port) if bare and host and _HOST.fullmatch(host) else None


def is_loopback(host: str) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1: a host whose traffic never leaves the machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bearer_headers(url: str, environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The `Authorization` header for the socket URL `url` (ws:// or wss://), or {} when the
    operator's mapping names no token for its host; `TokenSetupError` when it names one that
    cannot be sent (see the module docstring). Reads `environ` on every call."""
    mapping = parse_tokens(environ.get(TOKENS_VARIABLE, ""))
    if not mapping:
        return {}
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    variable = mapping.get((host, port)) or mapping.get((host, None))
    if variable is None:
        return {}
    if parts.scheme != "wss" and not is_loopback(host) and environ.get(INSECURE_VARIABLE) != "1":
        raise TokenSetupError(
            f"{TOKENS_VARIABLE} maps {printable(host, 200)} to {variable}, but "
            f"{printable(url, 200)} is plain ws://: the token would travel in clear text. Use an "
            f"https:// (wss://) URL, or set {INSECURE_VARIABLE}=1 if this network is private"
        )
    token = environ.get(variable, "").strip()
    if not token:
        raise TokenSetupError(
            f"{TOKENS_VARIABLE} maps {printable(host, 200)} to {variable}, which is unset or "
            "empty in this process"
        )
    if not _TOKEN.fullmatch(token):  # a newline would add headers; never shown
        raise TokenSetupError(
            f"{variable} holds characters a bearer token cannot have (spaces, control or "
            "non-ASCII characters), or more than 8192"
        )
    return {"Authorization": f"Bearer {token}"}
