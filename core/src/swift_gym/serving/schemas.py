"""What `GET /schema` and `GET /metadata` answer: the shapes of actions, observations and
state as JSON Schema (openenv's `SchemaResponse` keys), and what this server is.

A reset's data gets a schema too (`reset`): with a default env, its `env_config` is that env's
config schema, so a client can see every field it may set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..replies import MAX_TOOL_CALLS

if TYPE_CHECKING:
    from .catalogue import EnvCatalogue

_TOOL_CALL = {
    "type": "object",
    "description": 'One call, in OpenAI\'s shape: {"id": ..., "type": "function", '
    '"function": {"name": ..., "arguments": "<JSON text>"}}. A call that cannot '
    "be read is still answered, with an error result.",
}
ACTION = {
    "title": "Action",
    "type": "object",
    "properties": {
        "message": {
            "type": ["string", "null"],
            "description": 'The model\'s reply, as it wrote it (null or "" in a reply that '
            "only calls tools). An action without a string `message` and without `tool_calls` "
            "(ms-swift's parse_action sends a reply that is a JSON object as that object) is "
            "played as its JSON text.",
        },
        "tool_calls": {
            "type": "array",
            "maxItems": MAX_TOOL_CALLS,
            "items": _TOOL_CALL,
            "description": "The reply's tool calls, in an env that offers tools.",
        },
    },
    "required": ["message"],
}

_INFO = {"type": "object", "description": "The env's info dict of this reset or step."}
_TOOL_RESULT = {
    "type": "object",
    "properties": {
        "tool_call_id": {"type": "string"},
        "name": {"type": "string"},
        "content": {"type": "string", "description": "What the model reads (a tool message)."},
        "is_error": {"type": "boolean", "description": "The call was refused."},
    },
    "required": ["tool_call_id", "name", "content", "is_error"],
}
_TOOLS = {"type": "array", "items": {"type": "object"}}
_MESSAGES = {
    "type": "array",
    "items": {"type": "object", "required": ["role"]},
    "description": "The whole chat to show the model next, when the env replaced it (an agent "
    "program that rewrote its history); missing when the chat goes on by extension.",
}
OBSERVATION = {
    "title": "Observation",
    "type": "object",
    "properties": {
        "text": {
            "type": "string",
            "description": "What the model reads next (a user message; in a tool turn, after "
            "the tool results, and none when empty).",
        },
        "tool_results": {
            "type": "array",
            "items": _TOOL_RESULT,
            "description": "In an env that offers tools: one result per call of the step's "
            "action, in call order.",
        },
        "messages": _MESSAGES,
        "tools": {**_TOOLS, "description": "With `messages`: the tools offered now."},
        "info": _INFO,
    },
    "required": ["text", "info"],
}
RESET_OBSERVATION = {
    "title": "ResetObservation",
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "The episode's first observation."},
        "system_prompt": {"type": "string", "description": "The env's system prompt ('' if none)."},
        "tools": {
            **_TOOLS,
            "description": "The tools the env offers this episode, as OpenAI function-tool "
            "schemas (missing: a text env).",
        },
        "messages": _MESSAGES,
        "info": _INFO,
    },
    "required": ["text", "system_prompt", "info"],
}
ORACLE = {
    "title": "Oracle",
    "type": "object",
    "description": 'swift-gym\'s extension: the answer to {"type": "oracle"}, the env\'s own '
    "reference reply in the episode being played. Asked only where the reset's metadata says "
    '"oracle": true (the env defines oracle_reply() and the server serves it).',
    "properties": {
        "reply": {
            "type": ["string", "object"],
            "description": "The reply's text, or an assistant message with its tool_calls.",
        }
    },
    "required": ["reply"],
}
STATE = {
    "title": "State",
    "type": "object",
    "properties": {
        "episode_id": {"type": ["string", "null"]},
        "step_count": {"type": "integer", "minimum": 0},
        "env": {"type": ["string", "null"]},
        "env_config": {"type": ["object", "null"]},
        "phase": {"enum": ["new", "playing", "over", "broken"]},
        "done": {"type": "boolean"},
    },
    "required": ["episode_id", "step_count"],
}


def reset_schema(catalogue: EnvCatalogue) -> dict[str, Any]:
    """The data a reset may carry; `env_config` is the default env's config schema if any."""
    env_config: dict[str, Any] = {"type": "object", "description": "As a dataset row's env_config."}
    if catalogue.default_env is not None:
        model = catalogue.registry.get_env_class(catalogue.default_env).config_model
        env_config = model.model_json_schema()
    return {
        "title": "Reset",
        "type": "object",
        "properties": {
            "env_config": env_config,
            "seed": {"type": "integer", "minimum": 0, "maximum": 2**64 - 1},
            "episode_id": {"type": "string", "minLength": 1, "maxLength": 200},
        },
        "additionalProperties": False,
    }


def schemas(catalogue: EnvCatalogue) -> dict[str, Any]:
    return {
        "action": ACTION,
        "observation": OBSERVATION,
        "reset_observation": RESET_OBSERVATION,
        "state": STATE,
        "reset": reset_schema(catalogue),
        "oracle": ORACLE,
    }


def metadata(catalogue: EnvCatalogue) -> dict[str, Any]:
    """openenv's `EnvironmentMetadata` fields, plus the envs this server plays."""
    from .. import __version__

    spec = catalogue.default_spec
    description = (spec.description if spec else None) or "swift-gym envs over OpenEnv"
    return {
        "name": spec.name if spec else "swift-gym",
        "description": description,
        "readme_content": None,
        "version": (spec.version if spec else None) or __version__,
        "author": None,
        "documentation_url": None,
        "server": f"swift-gym {__version__}",
        "default_env": catalogue.default_env,
        "envs": catalogue.allowed_names,
    }
