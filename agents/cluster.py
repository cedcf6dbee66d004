"""Ray for the ray backends (arena games, AlphaZero self-play): join the cluster
at an address, failing fast when nothing answers there.

``ray.init(address=...)`` on an address where no Ray listens retries for many
minutes, printing a warning every few seconds, before it gives up (if it does);
``check_reachable`` opens a TCP connection there first, so a wrong port or an
unreachable host is one ValueError within ``REACH_TIMEOUT`` seconds.
"""

from __future__ import annotations

import socket

REACH_TIMEOUT = 5.0
"""Seconds a Ray address gets to accept a TCP connection."""


def check_reachable(address: str) -> None:
    """ValueError naming ``address`` unless a TCP connection to it (``host:port`` or
    ``ray://host:port``) opens within ``REACH_TIMEOUT``; other forms (``auto``,
    ``local``) are Ray's to resolve."""
    host, colon, port = address.strip().removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT).close()
    except (OSError, OverflowError) as e:
        reason = (e.strerror if isinstance(e, OSError) else None) or str(e) or type(e).__name__
        raise ValueError(f"no Ray cluster answers at {address!r}: {reason}") from None
