"""play_game: the classic tournament rules, the record and its JSON form."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from agents.base import ClockedAgent, QuitGame, TimedAgent
from agents.clocks import TimeControl, TimeLeft
from agents.play.isolation import build_player
from agents.play.match import GameResult, MatchInterrupted, MoveRecord, play_game
from agents.search.ladder import AlphaBetaAgent
from agents.ui.play_cli import NarratedAgent
from reversi_env import GameState
from reversi_env.notation import PASS
from reversi_env.observation import state_from_observation


class RandomMover:
    """A seeded random player over the observation's mask (test-local on purpose:
    it must not depend on the ladder under test elsewhere)."""

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.calls = 0

    def act(self, observation: dict[str, np.ndarray]) -> int:
        self.calls += 1
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


class Scripted:
    """Plays the given answers in order, then random legal moves."""

    def __init__(self, answers: list[object]) -> None:
        self.answers = list(answers)
        self.name = "scripted"
        self.calls = 0
        self.fallback = RandomMover(1)

    def act(self, observation: dict[str, np.ndarray]) -> object:
        self.calls += 1
        if self.answers:
            answer = self.answers.pop(0)
            if isinstance(answer, BaseException):
                raise answer
            return answer
        return self.fallback.act(observation)


# Black (X on C1) has no move; white plays D1 and wipes black out: PASS, D1.
FORCED_PASS = GameState.from_string("OOX" + "." * 61 + "X")


def test_full_game_is_a_consistent_record() -> None:
    seen: list[tuple[MoveRecord, GameState]] = []
    result = play_game(RandomMover(1), RandomMover(2), on_move=lambda m, s: seen.append((m, s)))
    final = result.final_state()
    assert final.is_terminal()
    assert (result.black, result.white) == final.score()
    assert result.disc_difference == result.black - result.white
    expected = "draw" if result.black == result.white else ("black" if result.black > result.white else "white")
    assert result.winner == expected
    assert result.reason == "end" and result.loser is None
    assert len(result.transcript) == 2 * len(result.moves)
    assert [m.name for m, _ in seen] == result.moves
    assert seen[-1][1] == final
    assert [m.ply for m, _ in seen] == list(range(len(result.moves)))
    assert result.black_time + result.white_time == pytest.approx(sum(result.times))
    assert result.black_name == "random"


def test_the_players_threads_are_gone_when_the_game_returns() -> None:
    """A player's thread left running at the interpreter's exit can abort the process (torch's
    C++ code, say, cannot be unwound there): an idle one is waited for."""
    before = set(threading.enumerate())
    play_game(RandomMover(1), RandomMover(2))
    left = [t for t in threading.enumerate() if t not in before and t.name == "reversi-player-move"]
    assert left == []


def test_same_seeds_same_game() -> None:
    a = play_game(RandomMover(5), RandomMover(6))
    b = play_game(RandomMover(5), RandomMover(6))
    assert a.moves == b.moves


def test_forced_pass_is_played_for_the_player_and_recorded() -> None:
    black, white = RandomMover(), RandomMover()
    result = play_game(black, white, start=FORCED_PASS)
    assert result.moves == ["PASS", "D1"]
    assert result.transcript == "--d1"
    assert result.times[0] == 0.0
    assert black.calls == 0 and white.calls == 1
    assert (result.winner, result.black, result.white) == ("white", 0, 4)
    assert result.start == FORCED_PASS.compact()
    assert result.mover(0) == 0 and result.mover(1) == 1


def test_passes_appear_in_the_transcript_of_played_games() -> None:
    results = [play_game(RandomMover(s), RandomMover(s + 100)) for s in range(30)]
    with_pass = [r for r in results if "PASS" in r.moves]
    assert with_pass, "30 random games without one pass: the seeds should give one"
    for r in with_pass:
        assert "--" in r.transcript
        assert r.final_state().is_terminal()


def test_a_player_that_hangs_loses_on_time_and_the_call_returns() -> None:
    release = threading.Event()

    class Hanger:
        name = "hanger"

        def act(self, observation: dict[str, np.ndarray]) -> int:
            release.wait()
            return int(np.flatnonzero(observation["action_mask"])[0])

    t0 = time.monotonic()
    result = play_game(Hanger(), RandomMover(), time_limit=0.3)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.3 + 1.0
    assert (result.reason, result.loser, result.winner) == ("timeout", "black", "white")
    assert result.moves == []
    snapshot = result.to_dict()
    release.set()
    for t in threading.enumerate():
        if t.name == "reversi-player-move":
            t.join(5)
    assert result.to_dict() == snapshot, "a late answer must not touch the record"


@pytest.mark.parametrize("narrated", [False, True])
def test_a_late_search_is_stopped_not_left_running(narrated: bool) -> None:
    # alphabeta:20 used to search on for minutes in the abandoned thread (as under reversi play's narration).
    before = set(threading.enumerate())
    player = NarratedAgent(AlphaBetaAgent(20), "X", write=lambda line: None) if narrated else AlphaBetaAgent(20)
    result = play_game(player, RandomMover(), time_limit=0.3)
    stopped = time.monotonic()
    assert (result.reason, result.loser) == ("timeout", "black")
    workers = [t for t in set(threading.enumerate()) - before if t.name == "reversi-player-move"]
    for t in workers:  # the stopped search's thread, if it has not ended yet (the other is waited for)
        t.join(2.0)
    assert not any(t.is_alive() for t in workers) and time.monotonic() - stopped < 1.0


def test_a_slow_player_loses_on_time_mid_game() -> None:
    class SlowLater(RandomMover):
        def act(self, observation: dict[str, np.ndarray]) -> int:
            if self.calls == 2:
                time.sleep(3.0)
            return super().act(observation)

    result = play_game(RandomMover(), SlowLater(), time_limit=1.0)
    assert (result.reason, result.loser, result.winner) == ("timeout", "white", "black")
    assert len(result.moves) == 5  # black 3 moves, white 2 (its third took too long)


@pytest.mark.parametrize("bad", [27, "D4", "Z9", 99, None, PASS, 2.5])
def test_three_illegal_or_malformed_moves_lose(bad: object) -> None:
    player = Scripted([bad] * 5)
    result = play_game(player, RandomMover())
    assert (result.reason, result.loser, result.winner) == ("illegal", "black", "white")
    assert player.calls == 3
    assert repr(bad) in result.details


def test_max_illegal_is_the_number_of_tries() -> None:
    player = Scripted(["A1"] * 5)
    assert play_game(player, RandomMover(), max_illegal=1).reason == "illegal"
    assert player.calls == 1


def test_fewer_illegal_moves_than_the_limit_are_noted_and_play_goes_on() -> None:
    player = Scripted(["A1", 27, "d3"])
    result = play_game(player, RandomMover())
    assert result.reason == "end"
    assert result.moves[0] == "D3"
    assert "rejected" in result.details and "'A1'" in result.details


def test_an_exception_loses_with_the_traceback() -> None:
    result = play_game(RandomMover(), Scripted([RuntimeError("boom in my policy")]))
    assert (result.reason, result.loser, result.winner) == ("error", "white", "black")
    assert "Traceback" in result.details and "boom in my policy" in result.details
    assert result.moves == ["D3"] or len(result.moves) == 1


def test_quit_ends_the_game_scored_by_discs() -> None:
    # D3 C5 E6 leaves black D3 D4 E4 E5 E6 against white C5 D5: 5-2 when white quits.
    quitter = Scripted(["C5", QuitGame("bored")])
    result = play_game(Scripted(["D3", "E6"]), quitter)
    assert result.moves == ["D3", "C5", "E6"]
    assert (result.black, result.white) == (5, 2)
    assert (result.reason, result.loser, result.winner) == ("quit", None, "black")
    assert "white quit: bored" in result.details


def test_a_quit_with_level_discs_is_a_draw() -> None:
    result = play_game(Scripted(["D3", QuitGame()]), Scripted(["C5"]))
    assert result.moves == ["D3", "C5"]
    assert (result.black, result.white, result.winner) == (3, 3, "draw")
    assert result.details == "black quit"


def test_players_get_copies_that_cannot_change_the_game() -> None:
    class Vandal(RandomMover):
        def act(self, observation: dict[str, np.ndarray]) -> int:
            action = super().act(observation)
            observation["observation"][:] = 1
            observation["action_mask"][:] = 1
            observation["junk"] = np.zeros(3)
            return action

    vandalised = play_game(Vandal(3), Vandal(4))
    clean = play_game(RandomMover(3), RandomMover(4))
    assert vandalised.moves == clean.moves
    assert vandalised.final_state() == clean.final_state()


def test_each_player_sees_its_own_side() -> None:
    starts: list[GameState] = []

    class Recorder(RandomMover):
        def __init__(self, color: int) -> None:
            super().__init__(color)
            self.color = color

        def act(self, observation: dict[str, np.ndarray]) -> int:
            starts.append(state_from_observation(observation, self.color))
            return super().act(observation)

    result = play_game(Recorder(0), Recorder(1))
    replay = [result.start_state()]
    for m in result.moves:
        replay.append(replay[-1].apply(m))
    asked = [s for s in replay if not s.is_terminal() and s.legal_actions() != [PASS]]
    assert starts == asked


def test_reset_is_called_and_a_failing_reset_loses() -> None:
    class Resettable(RandomMover):
        resets = 0

        def reset(self) -> None:
            Resettable.resets += 1

    play_game(Resettable(), Resettable())
    assert Resettable.resets == 2

    class BadReset(RandomMover):
        def reset(self) -> None:
            raise ValueError("no model file")

    result = play_game(RandomMover(), BadReset())
    assert (result.reason, result.loser) == ("error", "white")
    assert "no model file" in result.details


def test_no_time_limit_still_runs_untimed_players_in_a_worker_thread() -> None:
    # So that Ctrl-C in the calling thread is seen at once, even during a long search.
    threads: set[str] = set()

    class Where(RandomMover):
        def act(self, observation: dict[str, np.ndarray]) -> int:
            threads.add(threading.current_thread().name)
            return super().act(observation)

    assert play_game(Where(), Where(), time_limit=None).reason == "end"
    assert threads == {"reversi-player-move"}


@pytest.mark.parametrize("to", ["the process", "the player's thread"])
def test_ctrl_c_raises_match_interrupted_with_the_game_so_far(to: str) -> None:
    release = threading.Event()

    class Interrupter(RandomMover):
        def act(self, observation: dict[str, np.ndarray]) -> int:
            if self.calls == 2:
                # A real Ctrl-C while the main thread waits. The kernel may hand it to any thread;
                # given to the player's, it wakes nobody, and the game's wait must still see it.
                if to == "the process":
                    os.kill(os.getpid(), signal.SIGINT)
                else:
                    signal.pthread_kill(threading.get_ident(), signal.SIGINT)
                release.wait(30)
            return super().act(observation)

    start = time.monotonic()
    try:
        with pytest.raises(MatchInterrupted) as info:
            play_game(Interrupter(), RandomMover(), time_limit=30)
    finally:
        release.set()
    assert time.monotonic() - start < 10  # not when the player's 30 s are up
    assert isinstance(info.value, KeyboardInterrupt)
    partial = info.value.result
    assert partial.reason == "interrupted"
    assert len(partial.moves) == 4
    assert (partial.black, partial.white) == partial.final_state().score()


def test_json_round_trip() -> None:
    for result in (
        play_game(RandomMover(7), RandomMover(8)),
        play_game(RandomMover(), RandomMover(), start=FORCED_PASS),
        play_game(RandomMover(), Scripted([RuntimeError("x")])),
    ):
        again = GameResult.from_json(result.to_json())
        assert again == result
        assert again.transcript == result.transcript
        assert again.black_time == pytest.approx(result.black_time)
        assert again.to_dict()["disc_difference"] == result.disc_difference


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("not json", "not a JSON"),
        ("[1, 2]", "must be a dict"),
        ('{"black": 2, "white": 3}', "'winner'"),
        ('{"winner": "blue", "black": 2, "white": 3}', "winner"),
        ('{"winner": "black", "black": 2, "white": 3, "reason": "bored"}', "reason"),
        ('{"winner": "black", "black": 2, "white": 3, "moves": ["D3"], "times": []}', "times"),
        ('{"winner": "black", "black": 2, "white": 3, "moves": ["Z9"], "times": [0]}', "Z9"),
        ('{"winner": "black", "black": "many", "white": 3}', "malformed"),
        ('{"winner": "black", "black": 2, "white": 3, "moves": ["A1"], "times": [0]}', "illegal move A1"),
        ('{"winner": "black", "black": 2, "white": 3, "start": "XO"}', "board text"),
        # Contradictory records: the discs, the reason, the loser and the winner must agree.
        ('{"winner": "black", "black": 5, "white": 2, "reason": "quit"}', "the moves end with"),
        ('{"winner": "black", "black": 2, "white": 2, "reason": "timeout"}', "contradict each other"),
        ('{"winner": "black", "black": 2, "white": 2, "reason": "quit", "loser": "white"}', "contradict each other"),
        ('{"winner": "white", "black": 2, "white": 2, "reason": "quit"}', "expected 'draw'"),
        ('{"winner": "black", "black": 2, "white": 2, "reason": "timeout", "loser": "black"}', "expected 'white'"),
        ('{"winner": "draw", "black": 2, "white": 2, "reason": "end"}', "not over"),
        ('{"winner": "draw", "black": 2, "white": 2, "reason": "quit", "moves": ["D3"], "times": [-1]}', "times"),
        ('{"winner": "draw", "black": 1e400, "white": 2}', "out of range"),
        ('{"winner": "draw", "black": NaN, "white": 2}', "NaN"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
    ],
)
def test_bad_json_is_a_clear_error(text: str, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        GameResult.from_json(text)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"time_limit": 0}, ValueError),
        ({"time_limit": -1.0}, ValueError),
        ({"time_limit": "5"}, ValueError),
        ({"time_limit": float("inf")}, ValueError),
        ({"time_limit": float("nan")}, ValueError),
        ({"on_reject": "print"}, TypeError),
        ({"max_illegal": 0}, ValueError),
        ({"max_illegal": 1.5}, ValueError),
        ({"on_move": "print"}, TypeError),
        ({"start": "OOX"}, TypeError),
    ],
)
def test_bad_options_are_clear_errors(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        play_game(RandomMover(), RandomMover(), **kwargs)  # type: ignore[arg-type]


def test_a_finished_start_is_a_game_with_no_moves() -> None:
    done = GameState.from_string("X" * 64)
    result = play_game(RandomMover(), RandomMover(), start=done)
    assert result.moves == [] and result.winner == "black" and result.black == 64


def test_summary_says_who_won_and_how() -> None:
    played = play_game(RandomMover(1), RandomMover(2))
    assert played.summary().startswith(f"{played.winner}")
    assert f"{played.black}-{played.white}" in played.summary()
    assert ";" not in played.summary()
    crashed = play_game(RandomMover(), Scripted([RuntimeError("x")]))
    assert crashed.summary().startswith("black wins") and "white lost by an error" in crashed.summary()
    quit_ = play_game(Scripted(["D3", QuitGame()]), Scripted(["C5"]))
    assert quit_.summary() == "draw, 3-3 (black scripted, white scripted); black quit"


def test_player_threads_end_with_the_game() -> None:
    for seed in range(5):
        play_game(RandomMover(seed), RandomMover(seed + 1), time_limit=10)
    workers = [t for t in threading.enumerate() if t.name == "reversi-player-move"]
    for t in workers:
        t.join(10)
    assert not any(t.is_alive() for t in workers)


@pytest.mark.parametrize("time_limit", [None, 5.0])
def test_a_player_calling_sys_exit_just_loses(time_limit: float | None) -> None:
    result = play_game(RandomMover(), Scripted([SystemExit(3)]), time_limit=time_limit)
    assert (result.reason, result.loser) == ("error", "white")
    assert "SystemExit" in result.details


def test_an_answer_whose_repr_raises_is_a_malformed_move() -> None:
    class Cursed:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

        __str__ = __repr__

        def __index__(self) -> int:
            raise RuntimeError("no index")

    class Hexed:
        name = "hexed"

        def act(self, observation: dict[str, np.ndarray]) -> object:
            return Cursed()

    result = play_game(Hexed(), RandomMover(), time_limit=None)
    assert (result.reason, result.loser) == ("illegal", "black")
    assert "whose repr raised RuntimeError" in result.details


def test_a_tampering_player_loses_with_reason_tamper() -> None:
    from agents.base import TamperedBoard

    result = play_game(Scripted(["D3", TamperedBoard("E4 was changed")]), RandomMover())
    assert (result.reason, result.loser, result.winner) == ("tamper", "black", "white")
    assert "E4 was changed" in result.details and "changing the board" in result.summary()
    assert GameResult.from_json(result.to_json()) == result


class _ClockReader:
    """Plays its first legal move after ``seconds``, keeping every ``TimeLeft`` it was told."""

    name = "clock reader"

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.told: list[TimeLeft] = []

    def see_time(self, left: TimeLeft) -> None:
        self.told.append(left)

    def act(self, observation: dict[str, np.ndarray]) -> int:
        time.sleep(self.seconds)
        return int(observation["action_mask"].nonzero()[0][0])


class _TimedFirst(_ClockReader):
    """A timed player: it is given its ``TimeLeft`` with each move."""

    def act_timed(self, observation: dict[str, np.ndarray], limit: TimeLeft | float | None) -> int:
        self.told.append(TimeLeft.of(limit))
        return self.act(observation)


def test_players_are_told_the_rule_and_their_clock_as_it_stands() -> None:
    control = TimeControl(clock=30.0, increment=2.0, move=10.0)
    reader, timed = _ClockReader(0.05), _TimedFirst()
    play_game(reader, timed, time_control=control)
    assert isinstance(reader, ClockedAgent) and isinstance(timed, TimedAgent)
    first, second = reader.told[:2]
    assert first == TimeLeft(control, 10.0, 30.0, None)  # the move's 10 s is the tighter
    assert second.control is control and second.seconds == 10.0
    assert second.clock is not None and 31.0 < second.clock < 32.0  # 30 less about 0.05 s, plus 2
    assert timed.told[0].clock == 30.0 and timed.told[0].seconds == 10.0


def test_a_search_given_no_budget_plays_on_the_game_clock() -> None:
    control = TimeControl.parse_clock("300+2")
    search = build_player("mcts", 0, time_control=control)
    assert search.clock is not None and search.clock.control == control
    assert build_player("mcts:time=0.5", 0, time_control=control).clock is None  # its own budget stands
    assert build_player("mcts", 0, time_control=TimeControl(move=60.0)).time_limit == 1.0  # no clock: a move's time
    search.see_time(TimeLeft(control, 60.0, 10.0))  # the referee's clock: 10 s left, not 300
    assert search.clock.left == 10.0
    assert search.clock.move_limit(40) < 2.0 + 0.5 * 10.0
    assert search.clock.move_limit(40) > 10.0 / 20  # the increments to come count


def test_a_clock_search_shares_out_the_referee_s_clock_not_its_own() -> None:
    # mcts:clock=1000 thinks by its own clock of 1000 s; the game's 2 s clock is what it is told and keeps to.
    result = play_game("mcts:clock=1000,seed=1", "random", time_control=TimeControl(clock=2.0, increment=0.05))
    assert result.reason == "end", result.details
    black = sum(t for i, t in enumerate(result.times) if i % 2 == 0)
    assert black < 2.0 + 0.05 * 32
