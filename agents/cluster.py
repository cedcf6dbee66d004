"""Ray for the ray backends (arena games, AlphaZero self-play): join the cluster
at an address, failing fast when nothing answers there.

``ray.init(address=...)`` on an address where no Ray listens retries for many
minutes, printing a warning every few seconds, before it gives up (if it does);
``check_reachable`` opens a TCP connection there first, so a wrong port or an
unreachable host is one ValueError within ``REACH_TIMEOUT`` seconds. A port
where another kind of server listens (a web server, Ray's dashboard at 8265)
is caught by the HTTP/2 greeting every gRPC server, Ray's among them, answers.
"""

from __future__ import annotations

import os
import socket

REACH_TIMEOUT = 5.0
"""Seconds a Ray address gets to accept a TCP connection, and again to answer HTTP/2's greeting."""
HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""A client's connection preface and an empty SETTINGS frame (RFC 9113, 3.4): a gRPC server
answers with its own SETTINGS frame first."""
SETTINGS_FRAME = 4
"""The type of a SETTINGS frame, the fourth byte of an HTTP/2 frame's header."""


def check_reachable(address: str) -> None:
    """ValueError naming ``address`` unless a TCP connection to it (``host:port`` or
    ``ray://host:port``) opens within ``REACH_TIMEOUT`` and what answers there speaks
    gRPC's HTTP/2 (not checked under ``RAY_USE_TLS``); other forms (``auto``,
    ``local``) are Ray's to resolve."""
    host, colon, port = address.strip().removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT) as connection:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return  # the greeting would need TLS first: Ray's to check
            connection.sendall(HTTP2_PREFACE)
            header = _receive(connection, 9)
    except (OSError, OverflowError) as e:
        reason = (e.strerror if isinstance(e, OSError) else None) or str(e) or type(e).__name__
        raise ValueError(f"no Ray cluster answers at {address!r}: {reason}") from None
    if len(header) < 9 or header[3] != SETTINGS_FRAME:
        raise ValueError(
            f"no Ray cluster answers at {address!r}: the server there does not speak Ray's protocol (gRPC)"
        )


def _receive(connection: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes from ``connection``: fewer if it closes first."""
    data = b""
    while len(data) < size and (chunk := connection.recv(size - len(data))):
        data += chunk
    return data
