"""Every reasoning-gym task this package registers, and its swift-gym name: a static list.

Listing envs must not import reasoning-gym (about a second and over 1,200 modules: sympy,
matplotlib), so the names live here as data, checked against reasoning-gym's own registry by
the tests (`test_rg_package.py`). Standard library only.
"""

from __future__ import annotations

PREFIX = "reasoning_gym."

REASONING_GYM_VERSION = "0.1.25"
"""The reasoning-gym release this list was taken from (and the package pins)."""

TASKS: dict[str, str] = {
    "ab": "algorithmic",
    "acre": "induction",
    "advanced_geometry": "geometry",
    "aiw": "logic",
    "arc_1d": "arc",
    "arc_agi": "arc",
    "base_conversion": "algorithmic",
    "basic_arithmetic": "arithmetic",
    "bf": "code",
    "binary_alternation": "algorithmic",
    "binary_matrix": "algorithmic",
    "bitwise_arithmetic": "arithmetic",
    "boxnet": "games",
    "caesar_cipher": "algorithmic",
    "calendar_arithmetic": "arithmetic",
    "chain_sum": "arithmetic",
    "circuit_logic": "logic",
    "codeio": "code",
    "coin_flip": "probability",
    "color_cube_rotation": "cognition",
    "complex_arithmetic": "algebra",
    "composite": "other",
    "count_bits": "arithmetic",
    "count_primes": "algorithmic",
    "countdown": "games",
    "course_schedule": "graphs",
    "cryptarithm": "algorithmic",
    "decimal_arithmetic": "arithmetic",
    "decimal_chain_sum": "arithmetic",
    "dice": "arithmetic",
    "emoji_mystery": "games",
    "family_relationships": "graphs",
    "figlet_font": "cognition",
    "fraction_simplification": "arithmetic",
    "futoshiki": "games",
    "game_of_life": "algorithmic",
    "game_of_life_halting": "algorithmic",
    "gcd": "arithmetic",
    "graph_color": "algorithmic",
    "group_anagrams": "algorithmic",
    "gsm_symbolic": "arithmetic",
    "intermediate_integration": "algebra",
    "isomorphic_strings": "algorithmic",
    "jugs": "algorithmic",
    "kakurasu": "games",
    "knight_swap": "games",
    "knights_knaves": "logic",
    "largest_island": "graphs",
    "lcm": "arithmetic",
    "leg_counting": "arithmetic",
    "letter_counting": "algorithmic",
    "letter_jumble": "algorithmic",
    "list_functions": "induction",
    "mahjong_puzzle": "games",
    "manipulate_matrix": "algorithmic",
    "maze": "games",
    "mini_sudoku": "games",
    "modulo_grid": "cognition",
    "n_queens": "games",
    "needle_haystack": "cognition",
    "number_filtering": "algorithmic",
    "number_format": "arithmetic",
    "number_sequence": "cognition",
    "number_sorting": "algorithmic",
    "palindrome_generation": "algorithmic",
    "palindrome_partitioning": "algorithmic",
    "path_star": "graphs",
    "polynomial_equations": "algebra",
    "polynomial_multiplication": "algebra",
    "pool_matrix": "algorithmic",
    "power_function": "arithmetic",
    "prime_factorization": "arithmetic",
    "products": "arithmetic",
    "propositional_logic": "logic",
    "puzzle24": "games",
    "quantum_lock": "graphs",
    "ransom_note": "algorithmic",
    "rearc": "arc",
    "rectangle_count": "cognition",
    "rotate_matrix": "algorithmic",
    "rotten_oranges": "algorithmic",
    "rubiks_cube": "cognition",
    "rush_hour": "games",
    "self_reference": "logic",
    "sentence_reordering": "algorithmic",
    "shortest_path": "graphs",
    "simple_equations": "algebra",
    "simple_geometry": "geometry",
    "simple_integration": "algebra",
    "sokoban": "games",
    "spell_backward": "algorithmic",
    "spiral_matrix": "algorithmic",
    "string_insertion": "algorithmic",
    "string_manipulation": "algorithmic",
    "string_splitting": "algorithmic",
    "string_synthesis": "algorithmic",
    "sudoku": "games",
    "survo": "games",
    "syllogism": "logic",
    "time_intervals": "arithmetic",
    "tower_of_hanoi": "games",
    "tsumego": "games",
    "word_ladder": "algorithmic",
    "word_sequence_reversal": "algorithmic",
    "word_sorting": "algorithmic",
    "zebra_puzzles": "logic",
}
"""Each task's name in `reasoning_gym.create_dataset`, and its category (the module folder)."""

VERIFIER_SCORED: frozenset[str] = frozenset(
    {"boxnet", "graph_color", "propositional_logic", "rubiks_cube", "rush_hour"}
)
"""Tasks whose items store no answer (`answer` is None): a verifier scores any valid solution,
so there is no stored answer to replay and these envs define no `oracle_reply()`."""


def env_name(task: str) -> str:
    """The swift-gym name of a task: `reasoning_gym.chain_sum`."""
    return PREFIX + task


def class_name(task: str) -> str:
    """The env class of a task in `swift_gym_reasoning_gym.envs`: `ChainSumEnv`."""
    return "".join(part[:1].upper() + part[1:] for part in task.split("_")) + "Env"


def target(task: str) -> str:
    """The "module:attribute" the hook registers for a task (imported on first use)."""
    return f"swift_gym_reasoning_gym.envs:{class_name(task)}"


def description(task: str) -> str:
    """What `swift-gym list` shows for a task."""
    scored = "verifier-scored" if task in VERIFIER_SCORED else "stored answer"
    return f"reasoning-gym {task} ({TASKS[task]}, {scored}): answer in <answer></answer> tags"


ENV_NAMES: tuple[str, ...] = tuple(env_name(task) for task in TASKS)
