"""The harness that plays a verifiers seat in process: a plain chat loop with the task's tools.

In verifiers 0.4 a seat is played by a harness, a program whose every model call goes to the
rollout's interception server; its built-in ones are installed and run as programs in a
runtime (the tool-less `null` loop is a uv script that downloads its packages; `bash` runs the
model's commands). verifiers allows a harness to run its loop in process instead, "as long as
every model call goes through endpoint + secret" (`Harness.launch`), and this one does: it
calls the interception with the OpenAI SDK, runs the model's tool calls on the task's MCP
servers (verifiers' own `connect_mcp`/`call_mcp`), and ends at a reply without tool calls. It
executes nothing the model writes. verifiers loads it by id: this package's `__all__`
exports it, so `harness.id = "swift_gym_verifiers"`.
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from typing import Any

import verifiers.v1 as vf
from pydantic import Field
from verifiers.v1.dialects.chat import message_to_wire
from verifiers.v1.harnesses.utils.compaction import bound_tool_message
from verifiers.v1.harnesses.utils.mcp import call_mcp, connect_mcp

HARNESS_ID = "swift_gym_verifiers"
MAX_CALLS = 64


class SwiftGymHarnessConfig(vf.HarnessConfig):
    max_calls: int = Field(MAX_CALLS, ge=1, le=10_000)
    """Model calls one segment may make before the loop stops (a runaway tool loop)."""


class SwiftGymHarness(vf.Harness[SwiftGymHarnessConfig]):
    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_MCP = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(
        self,
        ctx: Any,
        trace: Any,
        runtime: Any,
        endpoint: str,
        secret: str,
        mcp_urls: dict[str, str],
        data: Any,
        tool_interception_url: str | None = None,
    ) -> vf.ProgramResult:
        import httpx
        from openai import AsyncOpenAI

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages.extend(message_to_wire(message) for message in prompt)
        async with AsyncExitStack() as stack:
            # The endpoint is the interception on 127.0.0.1 (plain http): a client without TLS
            # skips loading the CA bundle, 35 ms of each segment's 90 here. No timeout: the call
            # waits for the trainer's policy; a cut-off episode cancels it.
            http = httpx.AsyncClient(
                verify=not endpoint.startswith("http://"), timeout=httpx.Timeout(None, connect=10)
            )
            client = AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0, http_client=http)
            stack.push_async_callback(client.close)
            tools: list[dict[str, Any]] = []
            dispatch: dict[str, Any] = {}
            servers: dict[str, Any] = {}
            if mcp_urls:
                config = {
                    "mcpServers": {
                        name: {"url": url, "timeout": self.config.tool_timeout}
                        for name, url in mcp_urls.items()
                    }
                }
                tools, dispatch, servers = await connect_mcp(config, stack)
                disabled = set(self.config.disabled_tools or ())
                tools = [tool for tool in tools if tool["function"]["name"] not in disabled]
            # a plain HarnessConfig (verifiers' load_harness without narrowing) has no max_calls
            for _ in range(getattr(self.config, "max_calls", MAX_CALLS)):
                request: dict[str, Any] = {"model": ctx.model, "messages": messages}
                if tools:
                    request["tools"] = tools
                completion = await client.chat.completions.create(**request)
                message = completion.choices[0].message
                messages.append(message.model_dump(exclude_none=True))
                if not message.tool_calls:
                    break
                for call in message.tool_calls:
                    content = await _run_tool(call, dispatch, servers)
                    messages.append(
                        bound_tool_message(
                            {"role": "tool", "tool_call_id": call.id, "content": content}
                        )
                    )
        return vf.ProgramResult(0, "", "")


async def _run_tool(call: Any, dispatch: dict[str, Any], servers: dict[str, Any]) -> Any:
    """One tool call's result on the task's MCP servers; a bad call is an error result the
    model reads, as in verifiers' own chat loop."""
    function = getattr(call, "function", None)
    name = getattr(function, "name", None)
    if name not in dispatch:
        return f"error: unknown tool {str(name)[:100]!r}"
    try:
        arguments = json.loads(function.arguments or "{}")
    except json.JSONDecodeError as error:
        return f"error: invalid JSON in tool arguments ({error}); resend the call"
    if not isinstance(arguments, dict):
        return "error: tool arguments must be a JSON object"
    return await call_mcp(servers, dispatch, name, arguments)
