"""One env class per listed TextArena id, made from the static tables in ids.py.

Each game gets a class (its config model, the moves the random policy draws from, its oracle
if it has one) and each id a subclass with the id's registered arguments as the config's
defaults. The classes are made when this module is first imported, which imports nothing of
TextArena itself.
"""

from __future__ import annotations

from typing import Any

from pydantic import create_model
from pydantic.fields import FieldInfo

from .config import GAME_CONFIGS, NONE_MEANS, TextArenaConfig
from .env import SAMPLE_MOVES, TextArenaEnv
from .ids import GAME_IDS, class_name
from .oracles import ORACLES

SAMPLE_MOVES.update(
    {
        "Game2048": ("[Up]", "[Down]", "[Left]", "[Right]"),
        "Bandit": ("[red]", "[blue]", "[green]", "[yellow]", "[purple]"),
        "Blackjack": ("[Hit]", "[Stand]"),
        "Countdown": ("[0 1 +]", "[0 2 *]", "[1 3 -]", "[2 3 /]", "[0 5 +]"),
        "Crosswords": ("[0 0 A]", "[1 2 E]", "[2 1 S]", "[0 3 T]", "[0 0 A] [0 1 E] [1 0 S]"),
        "Cryptarithm": tuple(f"[{letter} {digit}]" for letter in "SENDMORY" for digit in range(10)),
        "FifteenPuzzle": ("[up]", "[down]", "[left]", "[right]"),
        "FrozenLake": ("[up]", "[down]", "[left]", "[right]"),
        "GuessTheNumber": tuple(f"[{n}]" for n in range(1, 21)),
        "LightsOut": tuple(f"[{r} {c}]" for r in range(5) for c in range(5)),
        "LogicPuzzle": ("[park Alice X]", "[park Bob O]", "[library Alice O]"),
        "Mastermind": ("[1 2 3 4]", "[2 3 4 5]", "[3 4 5 6]", "[6 5 4 3]", "[1 3 5 2]"),
        "Minesweeper": tuple(f"[{r} {c}]" for r in range(5) for c in range(5)),
        # PegJump's prompt says [i->j], but its pattern reads "[i j]" only.
        "PegJump": ("[3 1]", "[12 5]", "[14 5]", "[11 4]", "[6 4]", "[1 4]", "[13 6]"),
        "RushHour": ("[A+]", "[A-]", "[B+]", "[B-]", "[X+]", "[X-]", "[C+]", "[C-]"),
        "Secretary": ("[continue]", "[continue]", "[accept]"),
        "Set": ("[1, 2, 3]", "[4, 5, 6]", "[1, 5, 9]", "[2, 7, 12]", "[3, 6, 10]"),
        "Slitherlink": ("[h 0 0]", "[v 0 0]", "[h 1 2]", "[v 2 1]", "[h 4 3]"),
        "Sudoku": ("[1 1 5]", "[2 3 7]", "[5 5 1]", "[9 9 9]", "[4 6 2]"),
        "ThreeCardMonte": ("[0]", "[1]", "[2]"),
        "TowerOfHanoi": ("[A C]", "[A B]", "[B C]", "[C A]", "[B A]", "[C B]"),
    }
)


def _oracle_method(solve: Any) -> Any:
    def oracle_reply(self: TextArenaEnv) -> Any:
        """The exact solver's move for the current position (oracles.py); with
        `action_format: tool`, the assistant message that calls the game's function with it."""
        if self._game is None or self._done or self._broken:
            raise RuntimeError("no game in progress: call reset() before asking for a move")
        move = solve(self._game)
        if self._tool is not None and self._move is not None:
            return self._tool.message(self._move.value_of(move, self._tool))
        return move

    return oracle_reply


def id_config(
    name: str, base: type[TextArenaConfig], defaults: dict[str, Any]
) -> type[TextArenaConfig]:
    """`base` with the id's registered values as the defaults of its fields, so `swift-gym
    info` shows them; the bounds stay the game's."""
    fields: dict[str, Any] = {}
    for key, value in defaults.items():
        info = base.model_fields[key]
        what = (info.description or "").replace(NONE_MEANS, ".")
        merged = FieldInfo.merge_field_infos(info, default=value, description=what)
        fields[key] = (info.annotation, merged)
    model = create_model(name, __base__=base, __module__=__name__, **fields)
    model.id_defaults = dict(defaults)
    return model


def _make_classes() -> dict[str, type[TextArenaEnv]]:
    made: dict[str, type[TextArenaEnv]] = {}
    for game, ids in GAME_IDS.items():
        body: dict[str, Any] = {"game": game, "__module__": __name__}
        if game in ORACLES:
            body["oracle_reply"] = _oracle_method(ORACLES[game])
        game_class = type(f"{game}Env", (TextArenaEnv,), body)
        made[game_class.__name__] = game_class
        for ta_id, defaults in ids.items():
            config = id_config(class_name(ta_id) + "_Config", GAME_CONFIGS[game], defaults)
            made[class_name(ta_id)] = type(
                class_name(ta_id),
                (game_class,),
                {
                    "ta_id": ta_id,
                    "config_model": config,
                    "__module__": __name__,
                    "__doc__": f"TextArena's {ta_id} ({game}).",
                },
            )
    return made


_CLASSES = _make_classes()
globals().update(_CLASSES)


def env_class(ta_id: str) -> type[TextArenaEnv]:
    """The env class of a listed TextArena id."""
    return _CLASSES[class_name(ta_id)]
