"""The adapters, as the field's libraries use them: OpenSpiel's own random-simulation checks, its MCTS
and outcome-sampling MCCFR on every game (bounded: a few simulations and iterations), and PettingZoo's
api_test; the bots and `referee match` with records that `referee validate` replays."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import referee

pyspiel = pytest.importorskip("pyspiel")
pettingzoo_test = pytest.importorskip("pettingzoo.test")

from open_spiel.python.algorithms import mcts, outcome_sampling_mccfr  # noqa: E402

import referee.bots.openspiel  # noqa: E402
import referee.bots.pettingzoo  # noqa: E402
from referee import bots  # noqa: E402
from referee.cli import main  # noqa: E402
from helpers.games import FACTS  # noqa: E402

GAMES = referee.games()
referee.bots.openspiel.register()


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_loads_the_game_and_its_random_simulation_checks_pass(name: str) -> None:
    game = pyspiel.load_game(f"referee_{name}")
    ours = referee.game(name)
    assert game.num_distinct_actions() == ours.num_actions
    assert game.observation_tensor_shape() == ours.observation_shape
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_states_follow_the_handle(name: str) -> None:
    game = pyspiel.load_game(f"referee_{name}", {"seed": 3})
    state, pos = game.new_initial_state(), referee.game(name).start(seed=3)
    rng = random.Random(name)
    # OpenSpiel numbers chance outcomes from 0: they are the last ids of the game's action space.
    offset = game.num_distinct_actions() - game.max_chance_outcomes()
    for _ in range(40):
        if state.is_terminal():
            break
        assert str(state) == pos.position() or not pos.at_turn_start()
        chance = state.is_chance_node()
        if chance:
            assert state.chance_outcomes() == [(a - offset, p) for a, p in pos.chance_outcomes(ids=True)]
            action = rng.choice([a for a, _ in state.chance_outcomes()])
        else:
            assert state.legal_actions() == pos.legal_actions()
            assert state.current_player() == pos.players.index(pos.to_move)
            player = state.current_player()
            assert np.array_equal(np.asarray(state.observation_tensor(player)), np.ravel(pos.observation(pos.to_move)))
            assert state.information_state_string(player) == pos.information_state(pos.to_move)
            action = rng.choice(state.legal_actions())
        clone = state.clone()
        text = state.action_to_string(state.current_player(), action)
        state.apply_action(action)
        pos.push(action + offset if chance else action)
        assert chance or not pos.at_turn_start() or pos.history()[-1].endswith(text)
        assert clone.history() == state.history()[:-1] and str(clone) != str(state)


@pytest.mark.parametrize("name", ["iago", "hypnosia"])
def test_openspiel_mcts_plays_a_game(name: str) -> None:
    game = pyspiel.load_game(f"referee_{name}", {"seed": 1})
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=8, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    state = game.new_initial_state()
    for _ in range(6):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)


def test_openspiel_mccfr_iterates_on_caesar() -> None:
    game = pyspiel.load_game("referee_caesar")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(3):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    probabilities = policy.action_probabilities(state)
    assert probabilities and sum(probabilities.values()) == pytest.approx(1)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_test_passes(name: str) -> None:
    env = referee.bots.pettingzoo.env(name)
    pettingzoo_test.api_test(env, num_cycles=40, verbose_progress=False)


def test_pettingzoo_plays_hypnosia_for_four_to_the_end() -> None:
    env = referee.bots.pettingzoo.env("hypnosia", options={"players": 4})
    env.reset(seed=2)
    rng = random.Random(2)
    final = {}
    for agent in env.agent_iter(max_iter=100_000):
        observation, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            final[agent] = reward
            env.step(None)
            continue
        env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    assert sorted(final) == sorted(env.possible_agents) and sum(final.values()) == pytest.approx(0)
    assert max(final.values()) == 1 and min(final.values()) == -1


@pytest.mark.parametrize(("name", "simulations"), [
    (name, FACTS[name].mcts_simulations) for name in GAMES if FACTS[name].mcts_simulations is not None])
def test_mcts_beats_random(name: str, simulations: int) -> None:
    """Seated first and second in turn, MCTS wins at least 7 of 8 seeded games against random moves (a
    search that chose badly, or whose returns were the wrong player's, would lose most of them)."""
    game = referee.game(name)
    rng = random.Random(4)
    wins = 0
    for k in range(8):
        seats = {player: (bots.MCTSBot(simulations, seed=k) if i == k % 2 else bots.RandomBot(k))
                 for i, player in enumerate(game.start(seed=k).players)}
        position = bots.play_game(game, seats, k, rng)
        winner = position.outcome()["winner"]
        wins += isinstance(seats.get(winner), bots.MCTSBot)
    assert wins >= 7


def test_match_writes_records_that_validate_replays(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    for name in GAMES:
        records = tmp_path / f"{name}.jsonl"
        # MCTS may circle for ever in some games (a match abandoned): random in its place.
        bot = "random" if FACTS[name].mcts_simulations is None else "mcts:5"
        assert main(["match", "random", bot, "--game", name, "--games", "2", "-o", str(records)]) == 0
        lines = [json.loads(line) for line in records.read_text().splitlines()]
        assert len(lines) == 2 and all(line["termination"] == "normal" for line in lines)
        assert sorted(lines[0]["players"].values()) == sorted(["random", bot])
        # `referee validate` replays the records as written, and judges their claimed result as agreeing.
        results = tmp_path / f"{name}-results.jsonl"
        assert main(["validate", str(records), "-o", str(results), "--no-progress"]) == 0
        for line, result in zip(lines, map(json.loads, results.read_text().splitlines()), strict=True):
            assert result["legal"] and result["outcome"]["status"] == "finished"
            assert result["claim"] == "agrees", result
            assert line["result"]["winner"] == result["outcome"]["winner"]
            assert line["result"]["scores"] == result["outcome"]["scores"]
    # A record whose claimed winner is not the moves' is judged so (the check above can fail).
    line = json.loads(records.read_text().splitlines()[0])
    line["result"]["winner"] = next(p for p in line["players"] if p != line["result"]["winner"])
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(json.dumps(line) + "\n")
    assert main(["validate", str(tampered), "-o", str(tmp_path / "tampered-results.jsonl"), "--no-progress"]) == 1
    assert json.loads((tmp_path / "tampered-results.jsonl").read_text())["claim"] == "disagrees"
    assert "wins by bot" in capsys.readouterr().err


@pytest.mark.parametrize("name", GAMES)
def test_match_seats_the_engine(name: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`referee match engine:1 engine:20 random`: the engine by level and by simulations, seated in turn
    with a random bot (Hypnosia for three), in records `referee validate` replays, every claim agreeing;
    the same seed plays the same games again."""
    options = ["--options", '{"players": 3}'] if name == "hypnosia" else []
    specs = ["engine:1", "engine:20"] + (["random"] if name == "hypnosia" else [])
    written = []
    for attempt in ("first", "again"):
        records = tmp_path / f"{name}-{attempt}.jsonl"
        assert main(["match", *specs, "--game", name, *options, "--games", "2", "-o", str(records)]) == 0
        written.append(records.read_text())
    assert written[0] == written[1]
    lines = [json.loads(line) for line in written[0].splitlines()]
    assert [sorted(line["players"].values()) for line in lines] == [sorted(specs)] * 2
    assert all(line["termination"] == "normal" for line in lines), [line["termination"] for line in lines]
    results = tmp_path / f"{name}-results.jsonl"
    assert main(["validate", str(tmp_path / f"{name}-first.jsonl"), "-o", str(results), "--no-progress"]) == 0
    for result in map(json.loads, results.read_text().splitlines()):
        assert result["legal"] and result["claim"] == "agrees", result
    assert "wins by bot: engine:1: " in capsys.readouterr().err


@pytest.mark.parametrize("name", [name for name in GAMES if referee.game(name).info()["chance"]])
def test_chance_is_sampled_by_rust_as_random_choices_would(name: str) -> None:
    """The bots' and PettingZoo's one sampling of chance (Rust's `decisions::sample_at`) takes one
    `rng.random()` and answers what `random.choices` over the outcomes answers (the records seeded
    matches wrote before it came stay the same)."""
    rng = random.Random(3)
    position = referee.game(name).start(seed=11)
    chance_nodes = 0
    while not position.is_over() and chance_nodes < 40:
        if not position.is_chance():
            with pytest.raises(ValueError):
                position.sample_chance(rng)
            position.push(rng.choice(position.legal_actions()))
            continue
        chance_nodes += 1
        outcomes = position.chance_outcomes(ids=True)
        for seed in range(25):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert position.sample_chance(ours) == theirs.choices([a for a, _ in outcomes],
                                                                  [p for _, p in outcomes])[0]
            assert ours.getstate() == theirs.getstate()
        position.push(position.sample_chance(rng))
    assert chance_nodes > 0
