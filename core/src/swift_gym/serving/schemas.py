"""What `GET /schema` and `GET /metadata` answer: the shapes of actions, observations and
state as JSON Schema (openenv's `SchemaResponse` keys), and what this server is.

A reset's data gets a schema too (`reset`): with a default env, its `env_config` is that env's
config schema, so a client can see every field it may set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .catalogue import EnvCatalogue

ACTION = {
    "title": "Action",
    "type": "object",
    "properties": {
        "message": {
            "type": "string",
            "description": "The model's reply, as it wrote it. An action without a string "
            "`message` (ms-swift's parse_action sends a reply that is a JSON object as that "
            "object) is played as its JSON text.",
        }
    },
    "required": ["message"],
}

_INFO = {"type": "object", "description": "The env's info dict of this reset or step."}
OBSERVATION = {
    "title": "Observation",
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "What the model reads next."},
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
        "info": _INFO,
    },
    "required": ["text", "system_prompt", "info"],
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
