"""Build hook: the env template (the repository's `plugins/template/`) ships inside the core as
`swift_gym/template`, whether the wheel is built from a checkout or from the core's sdist.

In a checkout the template lies outside the project (`../plugins/template`), which a plain
`force-include` could name for a wheel but not for a wheel built from the sdist (as PyPI's users
and `uv build` build it): the sdist has no `..`. So the sdist carries the template at
`src/swift_gym/template`, where the wheel's `packages` take it in with the package, and a wheel
built from the checkout force-includes it from `../plugins/template`. An editable install takes
nothing: `swift-gym new` reads the checkout's template there (cli/new.py: template_dir).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

TARGETS = {"sdist": "src/swift_gym/template", "wheel": "swift_gym/template"}
"""Where each artifact holds the template."""


class TemplateHook(BuildHookInterface):
    """Adds the checkout's template to the sdist and to a wheel built from the checkout."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        checkout = Path(self.root).parent / "plugins" / "template"
        if version == "editable" or not checkout.is_dir():
            return  # editable: read from the checkout; from the sdist: already in the package
        build_data["force_include"][str(checkout)] = TARGETS[self.target_name]
