"""Ratings from game outcomes: W/D/L, scores with intervals and Bradley-Terry Elo.

The Elo ratings are the maximum-likelihood Bradley-Terry fit over every game,
``P(i beats j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))``, with a draw counted as
half a win and half a loss. They are anchored on one agent (its rating is 0),
and their 95 % intervals come from the observed Fisher information (the
Hessian of the log-likelihood at the optimum), so they are intervals relative
to the anchor.

The maximum-likelihood estimate does not exist when an agent (or a group of
agents) won every game against the rest: the likelihood keeps growing as the
gap widens. Only then, one virtual draw is added to every pairing that played,
a weak prior that gives finite ratings, and the summary says ``regularized``.
Agents that never met the anchor, not even through others, get no rating.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per natural-log unit of odds (about 173.7)."""
Z95 = 1.959963984540054
"""The two-sided 95 % quantile of the standard normal distribution."""
VIRTUAL_DRAWS = 1.0
"""Virtual drawn games added to each pairing when the plain MLE does not exist."""


@dataclass(frozen=True)
class Outcome:
    """One finished game as ratings see it: who had which colour, black's points
    (1 win, 0.5 draw, 0 loss) and the final disc difference (black - white)."""

    black: str
    white: str
    black_score: float
    disc_difference: int = 0

    def __post_init__(self) -> None:
        if self.black_score not in (0.0, 0.5, 1.0):
            raise ValueError(f"black_score must be 0, 0.5 or 1, got {self.black_score!r}")
        if self.black == self.white:
            raise ValueError(f"an agent cannot play itself in a rated game: {self.black!r}")


@dataclass
class AgentStats:
    """One agent's line in the table."""

    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    disc_difference_sum: int = 0
    elo: float | None = None
    elo_low: float | None = None
    elo_high: float | None = None

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Points per game (nan before the first game)."""
        return self.points / self.games if self.games else math.nan

    @property
    def score_interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of the score (draws as half-points)."""
        return wilson_interval(self.points, self.games)

    @property
    def mean_disc_difference(self) -> float:
        """Mean final disc difference from this agent's side."""
        return self.disc_difference_sum / self.games if self.games else math.nan


@dataclass
class Ratings:
    """The table: per-agent statistics and Elo, plus the head-to-head record."""

    agents: list[AgentStats]
    anchor: str
    regularized: bool = False
    pairwise: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    """pairwise[a][b] = [games, points of a against b]."""

    def by_name(self, name: str) -> AgentStats:
        """The statistics of one agent (KeyError if it played no game)."""
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)

    def leader(self) -> AgentStats | None:
        """The first agent of the table (highest Elo, then score), if any."""
        return self.agents[0] if self.agents else None

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary: every column of the table plus the head-to-head record."""
        rows = []
        for a in self.agents:
            lo, hi = a.score_interval
            row = asdict(a)
            row.update(
                points=a.points,
                score=_finite(a.score),
                score_low=_finite(lo),
                score_high=_finite(hi),
                mean_disc_difference=_finite(a.mean_disc_difference),
            )
            rows.append(row)
        return {"anchor": self.anchor, "regularized": self.regularized, "agents": rows, "pairwise": self.pairwise}

    def to_json(self) -> str:
        """The summary as indented JSON."""
        return json.dumps(self.to_dict(), indent=2)

    def table(self) -> str:
        """A fixed-width text table, best agent first."""
        header = ("#", "agent", "Elo", "95% CI", "games", "W", "D", "L", "score", "95% CI", "discs")
        lines = []
        for rank, a in enumerate(self.agents, 1):
            lo, hi = a.score_interval
            if a.elo is None:
                elo, ci = "-", "unrated"
            else:
                elo = f"{a.elo:+.0f}"
                ci = "anchor" if a.name == self.anchor else f"[{a.elo_low:+.0f}, {a.elo_high:+.0f}]"
            lines.append(
                (
                    str(rank),
                    a.name,
                    elo,
                    ci,
                    str(a.games),
                    str(a.wins),
                    str(a.draws),
                    str(a.losses),
                    f"{100 * a.score:.1f}%" if a.games else "-",
                    f"[{100 * lo:.1f}, {100 * hi:.1f}]" if a.games else "-",
                    f"{a.mean_disc_difference:+.1f}" if a.games else "-",
                )
            )
        widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
        left = {1}
        fmt = [
            "  ".join(c.ljust(widths[i]) if i in left else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip()
            for r in [header, *lines]
        ]
        note = f"Elo anchored on {self.anchor} = 0; intervals are 95 % (Elo: relative to the anchor)."
        if self.regularized:
            note += f" A perfect score made the plain fit diverge: {VIRTUAL_DRAWS:g} virtual draw added per pairing."
        return "\n".join([fmt[0], "-" * len(fmt[0]), *fmt[1:], note])

    def plot(self, path: str | Path, title: str = "Elo ratings (95 % intervals)") -> None:
        """Save a picture of the ratings with their intervals (needs the ``plot`` extra)."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - depends on the installed extras
            raise ImportError("plotting needs matplotlib: pip install 'reversi-env[plot]'") from e
        rated = [a for a in self.agents if a.elo is not None][::-1]
        if not rated:
            raise ValueError("no rated agent to plot")
        fig, ax = plt.subplots(figsize=(7.5, 0.55 * len(rated) + 1.4))
        ys = np.arange(len(rated))
        elos = np.array([a.elo for a in rated], dtype=float)
        lows = np.array([a.elo_low for a in rated], dtype=float)
        highs = np.array([a.elo_high for a in rated], dtype=float)
        ax.errorbar(elos, ys, xerr=[elos - lows, highs - elos], fmt="o", capsize=4, color="tab:blue")
        ax.set_yticks(ys, [f"{a.name}  ({a.games} games)" for a in rated])
        ax.axvline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(f"Elo (anchor: {self.anchor} = 0)")
        ax.set_title(title)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def wilson_interval(points: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``points / n``: stays inside
    [0, 1] and is sensible at 0 % and 100 %, unlike the normal approximation."""
    if n <= 0:
        return (math.nan, math.nan)
    p = points / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _reach(adj: np.ndarray, start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adj[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return seen


def mle_exists(games: np.ndarray, points: np.ndarray) -> bool:
    """Whether the Bradley-Terry MLE is finite for a connected comparison graph:
    the graph "i took a point from j" must be strongly connected."""
    took = (points > 0) & (games > 0)
    k = len(games)
    return len(_reach(took, 0)) == k and len(_reach(took.T, 0)) == k


def fit_bradley_terry(
    games: np.ndarray, points: np.ndarray, anchor: int, max_iter: int = 100
) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood ratings (Elo) and their standard errors (Elo).

    ``games[i, j]`` counts the games between i and j, ``points[i, j]`` the
    points i took from them. The players must form one connected comparison
    graph with a finite MLE (see ``mle_exists``); ``anchor`` is fixed at 0.
    Newton's method on the concave log-likelihood, with step halving.
    """
    k = len(games)
    free = np.array([i for i in range(k) if i != anchor], dtype=int)
    r = np.zeros(k)

    def loglik(r: np.ndarray) -> float:
        d = r[:, None] - r[None, :]
        # log p = -log(1 + e^-d), computed stably
        return float(np.sum(-points * np.logaddexp(0.0, -d)))

    def grad_hess(r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(r[:, None] - r[None, :])))
        g = np.sum(points - games * p, axis=1)
        w = games * p * (1.0 - p)
        h = w.copy()
        np.fill_diagonal(h, -np.sum(w, axis=1))
        return g, h

    if len(free):
        current = loglik(r)
        for _ in range(max_iter):
            g, h = grad_hess(r)
            step = np.linalg.solve(h[np.ix_(free, free)], -g[free])
            t = 1.0
            while True:
                trial = r.copy()
                trial[free] += t * step
                value = loglik(trial)
                if value >= current - 1e-12 or t < 1e-8:
                    break
                t *= 0.5
            r, improvement, current = trial, value - current, value
            if np.max(np.abs(t * step)) < 1e-10 or abs(improvement) < 1e-13:
                break
    se = np.zeros(k)
    if len(free):
        _, h = grad_hess(r)
        cov = np.linalg.inv(-h[np.ix_(free, free)])
        se[free] = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return r * ELO_PER_NAT, se * ELO_PER_NAT


def compute_ratings(outcomes: Iterable[Outcome], anchor: str | None = None, order: Sequence[str] = ()) -> Ratings:
    """The table for a set of games.

    ``anchor`` names the agent rated 0 (default: ``random`` if it played, else
    the first agent in ``order``, else the first to appear in the games).
    Raises ValueError if the anchor played no game.
    """
    names: list[str] = [n for n in dict.fromkeys(order)]
    stats: dict[str, AgentStats] = {n: AgentStats(n) for n in names}
    pair: dict[tuple[str, str], list[float]] = {}
    for o in outcomes:
        for name in (o.black, o.white):
            if name not in stats:
                stats[name] = AgentStats(name)
                names.append(name)
        for me, other, pts, diff in (
            (o.black, o.white, o.black_score, o.disc_difference),
            (o.white, o.black, 1.0 - o.black_score, -o.disc_difference),
        ):
            s = stats[me]
            s.games += 1
            s.wins += pts == 1.0
            s.draws += pts == 0.5
            s.losses += pts == 0.0
            s.disc_difference_sum += diff
            cell = pair.setdefault((me, other), [0, 0.0])
            cell[0] += 1
            cell[1] += pts
    played = [n for n in names if stats[n].games]
    if anchor is None:
        anchor = "random" if "random" in played else (played[0] if played else (names[0] if names else ""))
    elif anchor not in stats or (played and not stats[anchor].games):
        raise ValueError(f"anchor {anchor!r} played no game; agents: {', '.join(played) or 'none'}")

    regularized = False
    if played:
        index = {n: i for i, n in enumerate(played)}
        k = len(played)
        games = np.zeros((k, k))
        points = np.zeros((k, k))
        for (a, b), (count, pts) in pair.items():
            games[index[a], index[b]] = count
            points[index[a], index[b]] = pts
        component = sorted(_reach(games > 0, index[anchor]))
        g = games[np.ix_(component, component)]
        p = points[np.ix_(component, component)]
        if not mle_exists(g, p):
            regularized = True
            met = (g > 0).astype(float)
            g = g + VIRTUAL_DRAWS * met
            p = p + 0.5 * VIRTUAL_DRAWS * met
        elo, se = fit_bradley_terry(g, p, component.index(index[anchor]))
        for c, i in enumerate(component):
            s = stats[played[i]]
            s.elo = float(elo[c])
            s.elo_low = float(elo[c] - Z95 * se[c])
            s.elo_high = float(elo[c] + Z95 * se[c])

    def rank_key(a: AgentStats) -> tuple[int, float, float]:
        return (a.elo is None, -(a.elo or 0.0), -(a.score if a.games else -1.0))

    table = sorted(stats.values(), key=rank_key)
    pairwise: dict[str, dict[str, list[float]]] = {}
    for (a, b), cell in pair.items():
        pairwise.setdefault(a, {})[b] = cell
    return Ratings(table, anchor, regularized, pairwise)
