"""The `openenv` env's config: which server(s), what to send at reset, how to read answers.

Never which token to send: that is the operator's (`tokens`), and a row naming one is refused.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from ..config import EnvConfig
from ..json_config import JsonObject
from .protocol import socket_url
from .tokens import TOKENS_FORMAT

Url = Annotated[str, Field(min_length=1, max_length=2000)]


class OpenEnvConfig(EnvConfig):
    """A remote env served over the OpenEnv protocol (`swift-gym serve`, or any OpenEnv server)."""

    base_url: Url | Annotated[list[Url], Field(min_length=1, max_length=256)] = Field(
        description="The server's URL (http://host:8000), or a list of them: a pool. Each "
        "episode picks one at reset (in turns, skipping those that do not connect) and keeps it. "
        "A bearer token goes to a server only if SWIFT_GYM_OPENENV_TOKENS, set where the rows "
        "are played, names its host."
    )
    env_config: JsonObject | None = Field(
        None, description="Sent to the server at reset: the served env's own config."
    )
    reset_kwargs: JsonObject = Field(
        default_factory=dict, description="More fields of the reset frame's data."
    )
    system_message: str | None = Field(
        None, max_length=100_000,
        description="The system prompt; default: the one the server sends at reset, if any.",
    )  # fmt: skip
    connect_timeout: float = Field(10.0, gt=0, le=600, description="Seconds to connect.")
    step_timeout: float = Field(
        60.0, gt=0, le=3600, description="Seconds to wait for each reset or step answer."
    )
    token_env: SkipJsonSchema[Any] = Field(None, exclude=True, repr=False)
    """Refused (see `_no_secret`): kept as a field only so the refusal names it."""
    observation_key: str | None = Field(
        "text", max_length=200,
        description="The observation field the model reads (swift-gym serve: text); missing, "
        "or null here: the observation as JSON.",
    )  # fmt: skip
    system_prompt_key: str = Field(
        "system_prompt", max_length=200, description="The observation field of the system prompt."
    )
    info_key: str = Field(
        "info", max_length=200, description="The observation field of the env's info."
    )

    @field_validator("base_url")
    @classmethod
    def _urls(cls, value: str | list[str]) -> str | list[str]:
        for url in [value] if isinstance(value, str) else value:
            socket_url(url)  # ValueError: said as this field's problem
        return value

    @field_validator("token_env", mode="before")
    @classmethod
    def _no_secret(cls, value: Any) -> None:
        raise ValueError(
            "a row cannot choose which secret is sent, nor where: remove token_env. The "
            f"operator names each server's token variable instead: {TOKENS_FORMAT}"
        )

    @property
    def urls(self) -> list[str]:
        return [self.base_url] if isinstance(self.base_url, str) else list(self.base_url)
