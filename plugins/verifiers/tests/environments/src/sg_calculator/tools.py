"""The calculator's tool server: verifiers runs it as its own MCP server (`python -m`)."""

import verifiers.v1 as vf


class CalculatorToolset(vf.Toolset[vf.ToolsetConfig]):
    TOOL_PREFIX = "calc"

    @vf.tool
    async def add(self, a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)


if __name__ == "__main__":
    CalculatorToolset.run()
