"""The HTML report of runs, as a library: `swift-gym report` is a thin command over it, and a
notebook calls the same `render_html` / `write_html`.

One job per module, from the bottom up: `visible` (untrusted text made visible, bounded),
`svg` (the charts), `episode_browser` (every episode, filtered by run, env and status), `runs`
(where a run's episodes come from), `page` (the page), `api` (the entry points). Nothing here
imports the command (`cli`); attributes load on first use.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "render_html": "api",
    "write_html": "api",
    "Run": "runs",
    "load_run": "runs",
}

__all__ = ["Run", "load_run", "render_html", "write_html"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .api import render_html, write_html
    from .runs import Run, load_run

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
