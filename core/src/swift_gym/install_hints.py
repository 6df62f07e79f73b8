"""How messages say to install what is missing, the way the README installs swift-gym: from a
clone of the repository (`pip install "./core[serve]"`, `pip install ./core ./plugins/frozen_lake`),
since swift-gym is not on PyPI; or, for an extra, the packages it holds (works anywhere). An env
package's hint names the core's path too: alone, the package's `swift-gym` requirement would be
looked for on PyPI, and each hint installs as it stands in a fresh venv (tests/collections).

`EXTRAS` must list what core/pyproject.toml's optional dependencies list (a test checks it).
"""

from __future__ import annotations

EXTRAS = {
    "swift": "ms-swift>=4.6 msgspec",
    "new": "cookiecutter>=2.6",
    "agent": "openai>=1.99 httpx>=0.27,<1",
    "mcp": "mcp>=1.22,<2",
    "ray": "ray>=2.40",
    "remote": "websockets>=15",
    "serve": "starlette>=0.40 uvicorn>=0.30 websockets>=15",
    "docs": "mkdocs>=1.6,<2 mkdocs-material>=9.5,<10 mkdocstrings[python]>=1,<2",
}
"""The packages of each extra of the core, as pip takes them."""


def extra_hint(extra: str) -> str:
    """`pip install "./core[serve]"` in a clone of swift-gym, or the extra's own packages."""
    packages = " ".join(f'"{requirement}"' for requirement in EXTRAS[extra].split())
    return f'pip install "./core[{extra}]" in a clone of swift-gym, or pip install {packages}'


ENV_PACKAGE_HINT = (
    "install an env package, e.g. FrozenLake from a clone of swift-gym: "
    "pip install ./core ./plugins/frozen_lake"
)
