"""The ``reversi play`` (a game at the terminal) and ``reversi gui`` (the window) subcommands.

Exit status of ``play``: 0 after a game (whoever won), 1 if --save could not
write the record, 2 for a bad command line or a player that cannot be built,
130 after Ctrl-C (the result so far is printed, and saved with --save).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import MoveTimeout, QuitGame, close_agent, reset_agent, state_to_move, stop_agent
from agents.clocks import Clock
from agents.play.human import HumanPlayer
from agents.play.isolation import PlayerStartError, build_player
from agents.play.match import LOSING_REASONS, GameResult, MatchInterrupted, MoveRecord, play_game
from agents.play.records import UNFINISHED, RecordError, check_format, load_record, parse_start, write_record
from agents.play.specs import SpecError, parse_spec
from agents.search.book import book_value
from agents.ui.options import time_control, unwritable_output
from reversi_env.notation import action_name
from reversi_env.observation import Observation
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, GameState, parse_player


class TerminalDisplay:
    """Prints the board in the classic layout, the counts, the last move, the
    legal moves and each side's last and total thinking time (an ``on_move``)."""

    def __init__(self, names: tuple[str, str], write: Callable[[str], object] = print) -> None:
        """``names`` are the two players' specs, for the side lines."""
        self.names = names
        self.write = write
        self.last = [0.0, 0.0]
        self.total = [0.0, 0.0]
        self.last_move: str | None = None

    def show(self, state: GameState) -> None:
        """The board, the sides and what happens next."""
        lines = str(state).splitlines()[:-1]  # the status line is replaced by the panel below
        b, w = state.score()
        for player, discs in ((0, b), (1, w)):
            lines.append(
                f"{PLAYER_SYMBOLS[player]} {PLAYER_NAMES[player]} ({self.names[player]}): {discs:2d} discs"
                f" | last {self.last[player]:.2f} s | total {self.total[player]:.2f} s"
            )
        if self.last_move:
            lines.append(f"last move: {self.last_move}")
        if not state.is_terminal():
            mover = state.player
            moves = " ".join(action_name(a) for a in state.legal_actions())
            lines.append(f"{PLAYER_SYMBOLS[mover]} ({PLAYER_NAMES[mover]}) to move; legal moves: {moves}")
        self.write("\n".join(lines))

    def on_move(self, move: MoveRecord, state: GameState) -> None:
        """Record the move's time and show the new position."""
        who = f"{PLAYER_SYMBOLS[move.player]} ({PLAYER_NAMES[move.player]})"
        self.last[move.player] = move.seconds
        self.total[move.player] += move.seconds
        if move.forced:
            self.last_move = f"{who} has no legal move and passes"
        else:
            self.last_move = f"{who} played {move.name} in {move.seconds:.2f} s"
        self.write("")
        self.show(state)


class NarratedAgent:
    """A searching agent at the terminal: says it is thinking, and after its
    move what its search found (simulations, time, expected result), read
    from the agent's ``last_result`` (``MCTSAgent`` keeps its SearchResult there)."""

    def __init__(self, agent: Any, label: str, write: Callable[[str], object] = print) -> None:
        """``label`` names the player in the lines, e.g. "X (mcts)"."""
        self.agent = agent
        self.label = label
        self.write = write
        self.name = str(getattr(agent, "name", type(agent).__name__))

    def act(self, observation: Observation) -> int:
        """The agent's move, announced and explained."""
        self.write(f"{self.label} thinking...")
        action = int(self.agent.act(observation))
        found = getattr(self.agent, "last_result", None)
        if found is not None:
            self.write(f"{self.label}: {describe_search(found)}")
        elif (value := book_value(self.agent, state_to_move(observation), action)) is not None:
            self.write(f"{self.label}: from its opening book, worth {value:+.1f} discs")
        return action

    def reset(self) -> None:
        """The agent's ``reset``, if it has one."""
        reset_agent(self.agent)

    def stop(self) -> None:
        """The agent's ``stop``, if it has one (a move over the time limit)."""
        stop_agent(self.agent)


def describe_search(found: Any) -> str:
    """One line about a SearchResult: simulations, time and the expected result
    for the player who moved (+1 a win, -1 a loss); a proof or an exact solve
    says so (no simulations were run), and so does a move played at once
    because it was the only legal one."""
    if found.proven is not None:
        exact = "" if found.disc_difference is None else f" by {abs(found.disc_difference)} discs"
        how = f"{found.simulations} simulations" if found.simulations else f"solved ({found.nodes} positions)"
        return f"{how} in {found.seconds:.2f} s, a proven {found.proven}{exact}"
    if found.simulations == 0 and len(found.actions) == 1:
        return "its only legal move, played without a search"
    line = f"{found.simulations} simulations in {found.seconds:.2f} s"
    return f"{line}, expected result {found.value:+.2f} (+1 a win, -1 a loss)"


class TurnRequests:
    """Catches a person's "undo" and "resign" before ``HumanPlayer`` reads the
    line: either ends the current ``play_game`` (as a quit) and is remembered
    here, so ``play_command`` takes the move back or scores the resignation."""

    WORDS = ("undo", "resign")
    HELP = """  undo     take back your last move (and the reply to it)
  resign   resign: the other side wins"""
    """What "help" says of the two words, after the player's own commands."""

    def __init__(self) -> None:
        """Nothing asked yet."""
        self.asked: str | None = None
        self.by = 0

    def catcher(self, color: int) -> Callable[[str], None]:
        """A ``HumanPlayer.intercept`` for the person playing ``color``: the two words end the turn."""

        def catch(line: str) -> None:
            if line.strip().lower() in self.WORDS:
                self.asked, self.by = line.strip().lower(), color
                raise QuitGame(self.asked)

        return catch

    def take(self) -> tuple[str | None, int]:
        """What was asked (None: nothing) and by whom; forgets it."""
        asked, self.asked = self.asked, None
        return asked, self.by


def _taken_back(game: GameResult, color: int) -> int:
    """How many plies stay when ``color`` takes back its last move (all if it has none)."""
    for ply in range(len(game.moves) - 1, -1, -1):
        if game.mover(ply) == color and game.moves[ply] != "PASS":
            return ply
    return len(game.moves)


def _finish(result: GameResult, save: str | None) -> int:
    """Print the result and save it; 1 if it could not be saved, else 0."""
    print()
    print(f"{'Game stopped' if result.reason == 'interrupted' else 'Game over'}: {result.summary()}")
    if result.reason in LOSING_REASONS and result.details:
        print(result.details)
    print(f"transcript: {result.transcript}")
    print(f"thinking time: black {result.black_time:.2f} s, white {result.white_time:.2f} s")
    if save:
        try:
            write_record(result, save)
        except OSError as e:
            print(f"reversi play: cannot save the game to {save}: {e}", file=sys.stderr)
            return 1
        print(f"saved to {save}")
    return 0


@dataclasses.dataclass
class Opening:
    """Where a game starts (--start) or resumes (--load): the first position
    (None: the standard start) and the moves already played, with their times."""

    origin: GameState | None = None
    moves: list[str] = dataclasses.field(default_factory=list)
    times: list[float] = dataclasses.field(default_factory=list)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Opening:
        """The opening --load or --start asks for; RecordError if it is bad."""
        if getattr(args, "load", None) is not None:
            record = load_record(args.load)
            if record.reason != UNFINISHED or record.final_state().is_terminal():  # ended on the board or off it
                raise RecordError(
                    f"{args.load}: the game is over: {record.summary()}; see it with: reversi replay {args.load}"
                )
            return cls(None if record.start is None else record.start_state(), list(record.moves), list(record.times))
        if getattr(args, "start", None) is not None:
            try:
                start = parse_start(args.start)
            except RecordError as e:
                raise RecordError(f"--start: {e}") from None
            if start.is_terminal():
                raise RecordError("--start: the game is over in that position: neither side can move")
            return cls(start)
        return cls()

    def state(self) -> GameState:
        """The position after the moves already played."""
        state = GameState.initial() if self.origin is None else self.origin
        for move in self.moves:
            state = state.apply(move)
        return state

    def joined(self, part: GameResult) -> GameResult:
        """The whole game: these moves, then ``part`` (played from ``state()``)."""
        start = None if self.origin is None else self.origin.compact()
        return dataclasses.replace(
            part, moves=[*self.moves, *part.moves], times=[*self.times, *part.times], start=start
        )


def terminal_player(player: Any, color: int, spec: str, requests: TurnRequests) -> Any:
    """A built player as the terminal runs it: a person's lines go through
    ``requests`` (undo, resign), a searching agent is narrated."""
    if isinstance(player, HumanPlayer):
        player.intercept = requests.catcher(color)
        player.more_help = requests.HELP
        return player
    if hasattr(player, "last_result"):
        return NarratedAgent(player, f"{PLAYER_SYMBOLS[color]} ({spec})")
    return player


def play_session(
    players: list[Any], opening: Opening, requests: TurnRequests, display: TerminalDisplay, **rules: Any
) -> GameResult:
    """``play_game`` from the opening, again after each undo, until the game
    ends or a person resigns; the whole game's record. ``rules`` go to
    ``play_game``; Ctrl-C raises MatchInterrupted carrying the whole game."""
    if any(isinstance(p, HumanPlayer) for p in players):
        print('type "undo" to take back your last move, "resign" to resign')
    control = rules.get("time_control")
    # One pair of clocks for the whole game: an undo takes moves back, not time.
    clocks = None if control is None else (Clock(control), Clock(control))
    while True:
        state = opening.state()
        first = (GameState.initial() if opening.origin is None else opening.origin).player
        for side in (0, 1):  # the clocks of the moves already played
            display.total[side] = sum(t for i, t in enumerate(opening.times) if (first + i) % 2 == side)
        display.show(state)
        try:
            part = play_game(players[0], players[1], on_move=display.on_move, start=state, clocks=clocks, **rules)
        except MatchInterrupted as e:
            raise MatchInterrupted(opening.joined(e.result)) from e
        game = opening.joined(part)
        asked, by = requests.take()
        if asked == "resign":
            loser, winner = PLAYER_NAMES[by], PLAYER_NAMES[1 - by]
            details = f"{loser} ({display.names[by]}) resigned"
            return dataclasses.replace(game, reason="resign", loser=loser, winner=winner, details=details)
        if asked != "undo":
            return game
        keep = _taken_back(game, by)
        taken = len(game.moves) - keep
        display.last = [0.0, 0.0]
        display.last_move = f"took back {taken} move(s)" if taken else "nothing to take back yet"
        while keep and game.moves[keep - 1] == "PASS":  # a forced pass is replayed by the runner
            keep -= 1
        opening = Opening(opening.origin, game.moves[:keep], game.times[:keep])


def play_command(args: argparse.Namespace) -> int:
    """``reversi play``: one game at the terminal (Ctrl-C anywhere: exit 130, no traceback)."""
    players: list[object] = []
    try:
        return _play(args, players)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        for player in players:
            close_agent(player)


def _play(args: argparse.Namespace, players: list[object]) -> int:
    specs = (args.black, args.white)
    if args.save is not None and unwritable_output("play", "--save", args.save):
        return 2
    try:
        opening = Opening.from_args(args)
        if args.save is not None:
            check_format(args.save, opening.origin)  # refused now, not after the game
    except RecordError as e:
        print(f"reversi play: error: {e}", file=sys.stderr)
        return 2
    limit, control = args.time_limit, time_control(args)
    try:
        for color, spec in enumerate(specs):
            player = build_player(
                spec,
                color,
                seed=args.seed,
                default_time=args.time,
                time_limit=limit,
                isolate=True,
                time_control=control,
            )
            players.append(player)
            if hasattr(player, "wait_ready"):
                player.wait_ready()  # a player that cannot load fails here, in one line
    except (SpecError, PlayerStartError, MoveTimeout) as e:  # MoveTimeout: it loads slower than --time-limit
        print(f"reversi play: error: {e}", file=sys.stderr)
        return 2
    display = TerminalDisplay(specs)
    print(f"black (X): {specs[0]}    white (O): {specs[1]}")
    if control.clock is not None:
        print(f"time control: {control.describe()}")
    elif limit is not None:
        print(f"time limit: {limit:g} s per move (--time-limit off lifts it)")

    def rejected(player: int, text: str) -> None:
        print(text)

    requests = TurnRequests()
    seated = [
        terminal_player(p, color, spec, requests) for color, (p, spec) in enumerate(zip(players, specs, strict=True))
    ]
    try:
        result = play_session(
            seated, opening, requests, display, time_control=control, max_illegal=args.max_illegal, on_reject=rejected
        )
    except MatchInterrupted as e:
        print("\ninterrupted")
        _finish(e.result, args.save)
        return 130
    return _finish(result, args.save)


def _no_screen() -> bool:
    """True on Linux with no X or Wayland display and no SDL video driver asked
    for: SDL would open an invisible window there and the game would wait forever."""
    screens = ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")
    return sys.platform.startswith("linux") and not any(os.environ.get(name) for name in screens)


def _check_ai(spec: str, color: int, seed: int | None, time_limit: float | None) -> None:
    """Build the window's AI once and let it go, as ``reversi play`` builds its
    players: an AI that cannot start is a command-line error, not a game the
    person wins after a move. SpecError, PlayerStartError or MoveTimeout says why."""
    player = build_player(spec, color, seed=seed, time_limit=time_limit)
    try:
        if hasattr(player, "wait_ready"):
            player.wait_ready()
    finally:
        close_agent(player)


def gui_command(args: argparse.Namespace) -> int:
    """``reversi gui``: the window."""
    from agents.ui.gui import GuiApp

    if _no_screen():
        print(
            "reversi gui: error: no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset; "
            "SDL_VIDEODRIVER=... picks another way)",
            file=sys.stderr,
        )
        return 2
    try:
        # A bad --start or --load is one line here, before the window opens.
        start = Opening.from_args(args).origin if args.start is not None else None
        if args.load is not None:
            load_record(args.load)  # a finished game may be loaded: the window shows its end
        if parse_spec(args.ai).kind == "human":
            raise ValueError("--ai must be a program, not 'human' (--mode humans puts two people at the window)")
        _check_ai(args.ai, 1 - parse_player(args.human), args.seed, args.time_limit)
        app = GuiApp(
            ai=args.ai,
            human=args.human,
            seed=args.seed,
            start=start,
            mode=args.mode,
            time_limit=args.time_limit,
            max_illegal=args.max_illegal,
            save_path=args.load or args.save,
            time_control=time_control(args) if args.clock is not None else None,
        )
    except (ValueError, RecordError, PlayerStartError, MoveTimeout) as e:  # SpecError is a ValueError
        print(f"reversi gui: error: {e}", file=sys.stderr)
        return 2
    if args.load:
        app.load()
        app.save_path = Path(args.save)
    return app.run()
