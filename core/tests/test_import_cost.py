"""What importing swift_gym pulls in: nothing heavy until it is needed."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pydantic", "pluggy", "swift", "torch", "transformers")


def loaded_after(code: str) -> list[str]:
    report = f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    probe = f"{code}\nimport json, sys\n{report}"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout.splitlines()[-1])


def test_import_swift_gym_loads_nothing_heavy() -> None:
    assert loaded_after("import swift_gym") == []


def test_listing_envs_needs_no_pydantic_and_no_ms_swift() -> None:
    assert loaded_after("import swift_gym; swift_gym.list_envs()") == ["pluggy"]


def test_public_names_resolve_lazily() -> None:
    import swift_gym

    for name in swift_gym.__all__:
        assert getattr(swift_gym, name) is not None
    assert sorted(dir(swift_gym)) == sorted(swift_gym.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    import swift_gym

    try:
        swift_gym.does_not_exist  # noqa: B018
    except AttributeError as error:
        assert "does_not_exist" in str(error)
    else:
        raise AssertionError("expected AttributeError")


def test_evaluation_loads_only_when_used_and_never_the_command() -> None:
    assert (
        loaded_after(
            "import swift_gym; import sys; assert 'swift_gym.evaluation' not in sys.modules"
        )
        == []
    )
    face = "print(json.dumps([m for m in ('click', 'rich', 'httpx') if m in sys.modules]))"
    probe = f"import swift_gym, json, sys\nswift_gym.evaluate\nswift_gym.EvalResult\n{face}"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


def test_the_server_loads_only_when_served() -> None:
    """`import swift_gym.serving` and the command's start (`--help` of every subcommand) pull
    in no web framework: only `swift-gym serve` does."""
    web = (
        "print(json.dumps([m for m in ('starlette', 'uvicorn', 'websockets') if m in sys.modules]))"
    )
    for code in ("import swift_gym.serving", "import swift_gym.cli.app"):
        probe = f"{code}\nimport json, sys\n{web}"
        result = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        )
        assert json.loads(result.stdout) == [], code
