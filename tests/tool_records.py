"""Hand-made records of tool episodes, in the shape `swift-gym eval -o` writes them (each turn's
`tool_calls` and `tool_results`, the record's `tools`), for the commands that show or convert
records: replay, report, export."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MOVE_TOOL = {
    "type": "function",
    "function": {
        "name": "move",
        "description": "Move one square.",
        "parameters": {
            "type": "object",
            "properties": {
                "direction": {"type": "string", "enum": ["up", "down", "left", "right"]}
            },
            "required": ["direction"],
            "additionalProperties": False,
        },
    },
}
LOOK_TOOL = {
    "type": "function",
    "function": {"name": "look", "description": "See the board.", "parameters": {}},
}


def call(number: int, name: str, arguments: str) -> dict[str, str]:
    return {"id": f"call_{number}", "name": name, "arguments": arguments}


def result(number: int, name: str, content: str) -> dict[str, str]:
    return {"tool_call_id": f"call_{number}", "name": name, "content": content}


def tool_record(
    index: int = 0, status: str = "goal", system: str | None = "Use the tools."
) -> dict[str, Any]:
    """A two-turn tool episode: turn 1 says something and makes two calls (the env's next
    observation is empty: the results say it all), turn 2 makes one call and ends it."""
    return {
        "index": index,
        "env": "tool_lake",
        "seed": index,
        "env_config": {"name": "tool_lake", "seed": index},
        "policy": "oracle",
        "system_prompt": system,
        "observation": f"start {index}",
        "reset_info": {},
        "tools": [MOVE_TOOL, LOOK_TOOL],
        "turns": [
            {
                "turn": 1,
                "reply": "I look, then go down.",
                "tool_calls": [call(1, "look", ""), call(2, "move", '{"direction": "down"}')],
                "tool_results": [result(1, "look", "S.\n.G"), result(2, "move", "moved down")],
                "action": None,
                "valid_action": True,
                "observation": "",
                "reward": 0.0,
                "done": False,
                "info": {},
            },
            {
                "turn": 2,
                "reply": "",
                "tool_calls": [call(3, "move", '{"direction":"right"}')],
                "tool_results": [result(3, "move", "moved right: goal")],
                "action": None,
                "valid_action": True,
                "observation": "You reached the goal.",
                "reward": 1.0,
                "done": True,
                "info": {},
            },
        ],
        "num_turns": 2,
        "total_reward": 1.0 if status == "goal" else 0.0,
        "success": status == "goal",
        "status": status,
        "error": None,
    }


def write_records(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
