"""A GTP engine for the tests that writes down what it is told: our own GTP server
(``agents.play.gtp_server``, playing ``greedy``) run as a program, which appends every
command line it reads to a log file before it answers.

    python gtp_recorder.py LOG timed     # knows time_settings and time_left
    python gtp_recorder.py LOG untimed   # does not: "? unknown command", known_command false

Run with the repository on PYTHONPATH.
"""

from __future__ import annotations

import sys

from agents.play.gtp_server import GTPServer


def main(log: str, knows_time: bool) -> None:
    """Answer stdin's commands on stdout until ``quit``, each written to ``log`` first."""
    server = GTPServer("greedy", seed=0, time_limit=None)
    if not knows_time:
        del server.commands["time_settings"], server.commands["time_left"]
    with open(log, "a", encoding="utf-8") as record:
        for line in sys.stdin:
            record.write(line)
            record.flush()
            sys.stdout.write(server.handle(line))
            sys.stdout.flush()
            if server.over:
                return


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] == "timed")
