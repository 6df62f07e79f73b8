"""Map generation (ms-swift seed compatibility, bounds), parsing, validation and solving."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swift_gym import InvalidConfigError
from swift_gym_frozen_lake import ACTIONS, generate_random_map, solve
from swift_gym_frozen_lake.maps import DELTAS, find, layout, parse_map, validate_map


def walk(rows, actions):
    """Replay `actions` from S with the deterministic rules; returns the visited letters."""
    size = len(rows)
    r, c = find(rows, "S")
    seen = []
    for action in actions:
        dr, dc = DELTAS[action]
        if 0 <= r + dr < size and 0 <= c + dc < size:
            r, c = r + dr, c + dc
        seen.append(rows[r][c])
    return seen


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        (0, ("GFFF", "FFSF", "FFHF", "FFFF")),
        (1, ("FHFF", "SFFF", "GFHF", "FFFF")),
    ],
)
def test_seed_compatible_with_ms_swift_example(seed, expected):
    assert generate_random_map(4, 0.8, seed) == expected


def test_same_arguments_same_map_and_different_seeds_differ():
    assert generate_random_map(8, 0.7, 42) == generate_random_map(8, 0.7, 42)
    assert generate_random_map(8, 0.7, 42, max_attempts=500) == generate_random_map(8, 0.7, 42)
    maps = {generate_random_map(6, 0.8, seed) for seed in range(20)}
    assert len(maps) > 15


def test_returns_immutable_rows_of_strings():
    rows = generate_random_map(5, 0.8, 3)
    assert isinstance(rows, tuple)
    assert all(isinstance(row, str) and len(row) == 5 for row in rows)


def test_generation_never_touches_global_random():
    random.seed(1234)
    state = random.getstate()
    generate_random_map(8, 0.6, 7)
    generate_random_map(8, 0.6, None)
    generate_random_map(9, 0.6, 11, max_attempts=50)
    assert random.getstate() == state


def test_seed_none_draws_a_valid_map():
    rows = generate_random_map(6, 0.8, None)
    assert validate_map(rows) == rows


def test_hopeless_p_fails_fast_with_a_clear_error():
    started = time.perf_counter()
    with pytest.raises(InvalidConfigError) as caught:
        generate_random_map(64, 1e-9, 2)
    assert time.perf_counter() - started < 10
    (problem,) = caught.value.problems
    assert problem.field == "p"
    assert problem.value == 1e-9
    text = str(caught.value)
    assert "no solvable 64x64 map in 1000 draws" in text
    assert "raise p or change the seed" in text
    assert "'frozen_lake'" in text


def test_max_attempts_bounds_the_draws():
    with pytest.raises(InvalidConfigError, match="in 3 draws"):
        generate_random_map(64, 1e-9, 2, max_attempts=3)


@pytest.mark.parametrize(("size", "p"), [(1, 0.8), (65, 0.8), (4, 0.0), (4, 1.5), (4, -0.1)])
def test_degenerate_arguments_are_refused(size, p):
    with pytest.raises(ValueError, match=r"size must be|p must be"):
        generate_random_map(size, p, 0)


def test_p_one_gives_an_all_ice_map():
    rows = generate_random_map(5, 1.0, 9)
    assert "".join(rows).count("F") == 23


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(2, 12),
    p=st.floats(0.55, 1.0),
    seed=st.integers(0, 2**64 - 1),
)
def test_generated_maps_are_valid_and_solved_optimally(size, p, seed):
    rows = generate_random_map(size, p, seed)
    assert validate_map(rows) == rows
    path = solve(rows)
    assert len(path) == layout(rows).optimal_steps
    visited = walk(rows, path)
    assert visited[-1] == "G"
    assert "H" not in visited and "G" not in visited[:-1]


@pytest.mark.parametrize(
    "value",
    [
        "SFF/FHF/FFG",
        "SFF\nFHF\nFFG\n",
        " S F F / F H F / F F G ",
        "\nSFF\r\nFHF\r\nFFG\n",
        ["SFF", "FHF", "FFG"],
        ("SFF", "FHF", "FFG"),
    ],
)
def test_parse_map_accepts_every_form(value):
    assert parse_map(value) == ("SFF", "FHF", "FFG")


@pytest.mark.parametrize("value", [5, None, ["SF", 3], {"rows": "SF/FG"}])
def test_parse_map_refuses_other_types(value):
    with pytest.raises(ValueError, match="map must be a string of rows"):
        parse_map(value)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (("S",), "map must have 2 to 64 rows, got 1"),
        (("SFF", "FG"), "map must be square: 2 rows, but row 0 has 3 cells"),
        (("SFF", "FHF"), "map must be square: 2 rows, but row 0 has 3 cells"),
        (("SX", "FG"), "found 'X'"),
        (("sf", "fg"), "found 'f', 'g', 's'"),
        (("SS", "FG"), "exactly one S (start), found 2"),
        (("SF", "FF"), "exactly one G (goal), found 0"),
        (("SH", "HG"), "unsolvable"),
        (("SFF", "HHH", "FFG"), "unsolvable"),
    ],
)
def test_validate_map_says_what_is_wrong(rows, message):
    with pytest.raises(ValueError) as caught:
        validate_map(rows)
    assert message in str(caught.value)


def test_solve_known_maps():
    assert solve("SF/FG") == ["down", "right"]  # ties broken in ACTIONS order
    assert solve("GFFF/FFSF/FFHF/FFFF") == ["up", "left", "left"]
    # at (2, 1) both down and right are on a shortest path: down comes first in ACTIONS
    classic = ["SFFF", "FHFH", "FFFH", "HFFG"]
    assert solve(classic) == ["down", "down", "right", "down", "right", "right"]
    assert set(ACTIONS) == {"up", "down", "left", "right"}


def test_solve_is_deterministic_and_goes_around_holes():
    rows = ("SHF", "FHF", "FFG")
    assert solve(rows) == solve(rows) == ["down", "down", "right", "right"]


def test_solve_refuses_unsolvable_maps():
    with pytest.raises(ValueError, match="unsolvable"):
        solve("SH/HG")
    with pytest.raises(ValueError, match="exactly one G"):
        solve("SF/FF")


def test_layout_precomputes_distances_and_moves():
    grid = layout(("SFF", "FHF", "FFG"))
    assert grid.optimal_steps == 4
    assert grid.dist[grid.goal] == 0
    assert grid.dist[4] == -1  # the hole
    assert grid.moves[0] == (0, 3, 0, 1)  # up and left stay put at the corner
    assert grid.best_action(grid.goal) is None
