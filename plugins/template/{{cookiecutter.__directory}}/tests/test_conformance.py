"""The env contract ms-swift relies on, checked by swift-gym's conformance kit.

One test per check and config: `pytest -k conformance` runs them alone, and
`pytest --swift-gym-block-budget=2` relaxes the event-loop budget on a slow machine.
"""

from swift_gym.testing import conformance_tests

from {{ cookiecutter.__package }} import {{ cookiecutter.__class }}Env

test_conformance = conformance_tests(
    {{ cookiecutter.__class }}Env,
    configs=[
        {},
        {"seed": 7},
        {"seed": 3, "low": -5, "high": 5, "max_guesses": 3},
        {"low": 1, "high": 1_000_000, "max_guesses": 100, "invalid_reward": -1.0},
    ],
    sample_replies=["<answer>50</answer>", "<answer>1</answer>", "<answer>-3</answer>"],
)
