"""The report's episode browser: each episode's turns, filtered by run, env and status.

Every episode is written into the page as HTML (escaped by `visible.html`, each text cut at
`TEXT_SHOWN` characters), so the page shows everything with scripts off too; the one script only
hides the episodes that do not match the filters. It reads the `data-*` attributes and the
selected options, both written by `attribute`, so equal values compare equal; it never parses
data or writes HTML. A run's episodes beyond `limit` are left out evenly across its
(env, status) groups, so a rare status stays in view, and the page says how many.

Each episode has an id (`episode-A-17`: run A's record 17), so a link to `#episode-A-17` (a
square of a status strip) goes to it; the script then opens it, clearing the filters first if
they hide it.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from html import escape as html_escape
from typing import Any

from ..evaluation.training import training_place
from . import visible
from .visible import ARGUMENTS_SHOWN, CALLS_SHOWN, TOOLS_SHOWN, listed, plural

TEXT_SHOWN = 4000
"""Characters of one reply, observation or prompt written into the page."""
INFO_SHOWN = 600
"""Characters of a turn's info written into the page."""
_NAME_SHOWN = 80
_DESCRIPTION_SHOWN = 300

SCRIPT = """
(function () {
  var keys = ["run", "env", "status"];
  var filters = {};
  keys.forEach(function (key) { filters[key] = document.getElementById("filter-" + key); });
  var episodes = Array.prototype.slice.call(document.querySelectorAll("#episodes .episode"));
  var count = document.getElementById("filter-count");
  function apply() {
    var shown = 0;
    episodes.forEach(function (episode) {
      var match = keys.every(function (key) {
        var wanted = filters[key].value;
        return wanted === "" || episode.getAttribute("data-" + key) === wanted;
      });
      episode.hidden = !match;
      if (match) { shown += 1; }
    });
    count.textContent = shown + " of " + episodes.length + " episodes shown";
  }
  function reveal() {
    var target = document.getElementById(location.hash.slice(1));
    if (!target || episodes.indexOf(target) < 0) { return; }
    if (target.hidden) {
      keys.forEach(function (key) { filters[key].value = ""; });
      apply();
    }
    target.open = true;
    target.scrollIntoView();
  }
  keys.forEach(function (key) { filters[key].addEventListener("change", apply); });
  window.addEventListener("hashchange", reveal);
  apply();
  reveal();
})();
"""


def script_hash() -> str:
    """The script's CSP hash: the page allows this script and no other."""
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def attribute(value: Any) -> str:
    """A data value as an attribute value (quoted by the caller): visible, escaped, bounded."""
    text = value if isinstance(value, str) else visible.brief(value, 200)
    return html_escape(visible.plain(text[:200]), quote=True)


def escape(value: Any, limit: int = 200) -> str:
    """A data value as HTML text: any value, escaped, controls spelled out, bounded."""
    return visible.html(value[:limit] if isinstance(value, str) else visible.brief(value, limit))


def block(value: Any) -> str:
    """A chat text as a `<pre>`: exactly as written up to `TEXT_SHOWN` characters."""
    if value is None:
        return '<p class="none">(none)</p>'
    text = value if isinstance(value, str) else visible.brief(value, TEXT_SHOWN)
    label = visible.blank_label(text)
    if label is not None:
        return f'<p class="none">{html_escape(label)}</p>'
    cut = ""
    if len(text) > TEXT_SHOWN:
        cut = f'<span class="cut">… {len(text) - TEXT_SHOWN:,} more characters</span>'
    return f"<pre>{visible.html(text[:TEXT_SHOWN])}{cut}</pre>"


def pick(records: Sequence[Mapping[str, Any]], limit: int) -> list[int]:
    """The positions of at most `limit` records, spread over the (env, status) groups and
    evenly within each, in order."""
    if len(records) <= limit:
        return list(range(len(records)))
    groups: dict[tuple[str, str], list[int]] = {}
    for position, record in enumerate(records):
        key = (str(record.get("env")), str(record.get("status")))
        groups.setdefault(key, []).append(position)
    quota = {key: 0 for key in groups}
    left = limit
    while left:  # round robin: each group one more, while it has more
        grew = False
        for key, members in groups.items():
            if left and quota[key] < len(members):
                quota[key] += 1
                left -= 1
                grew = True
        if not grew:
            break
    chosen: list[int] = []
    for key, members in groups.items():
        take = quota[key]
        chosen += [members[k * len(members) // take] for k in range(take)]
    return sorted(chosen)


def _where(record: Mapping[str, Any]) -> str:
    """Where in training the episode was played (`step 3, rank 0, HOST pid 12`), or ""."""
    place = training_place(record)
    if place is None:
        return ""
    parts = [] if place.step is None else [f"step {place.step}"]
    if place.rank is not None:
        parts.append(f"rank {place.rank}")
    parts.append(f"{visible.brief(place.host, 40)} pid {visible.brief(place.pid)}")
    return ", ".join(parts)


def _tools(tools: Any) -> str:
    """The tools an episode offered: `name: description`, then their parameters, bounded."""
    if tools is None:
        return ""
    offered = listed(tools)
    lines = []
    for tool in offered[:TOOLS_SHOWN]:
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(function, Mapping):
            lines.append(escape(tool, _DESCRIPTION_SHOWN))
            continue
        line = f"<b>{escape(function.get('name'), _NAME_SHOWN)}</b>"
        if function.get("description"):
            line += f": {escape(function['description'], _DESCRIPTION_SHOWN)}"
        if function.get("parameters"):
            line += f"<br>parameters: {escape(function['parameters'], _DESCRIPTION_SHOWN)}"
        lines.append(line)
    if len(offered) > TOOLS_SHOWN:
        lines.append(f"… {len(offered) - TOOLS_SHOWN:,} more tools")
    return f'<h4>tools ({len(offered):,})</h4><p class="tools">{"<br>".join(lines)}</p>'


def _calls(calls: Any) -> str:
    """A reply's calls, one line each: `call NAME (ID) ARGUMENTS`, bounded."""
    made = listed(calls)
    lines = []
    for call in made[:CALLS_SHOWN]:
        if not isinstance(call, Mapping):
            lines.append(f'<p class="call">call {escape(call, ARGUMENTS_SHOWN)}</p>')
            continue
        arguments = call.get("arguments")
        shown = "" if arguments in ("", None) else f" {escape(arguments, ARGUMENTS_SHOWN)}"
        lines.append(
            f'<p class="call">call <b>{escape(call.get("name"), _NAME_SHOWN)}</b> '
            f"({escape(call.get('id'), _NAME_SHOWN)}){shown}</p>"
        )
    if len(made) > CALLS_SHOWN:
        lines.append(f'<p class="note">… {len(made) - CALLS_SHOWN:,} more calls</p>')
    return "".join(lines)


def _results(results: Any) -> str:
    """Each tool result under a `tool NAME (ID)` heading, as a chat text."""
    given = listed(results)
    parts = []
    for result in given[:CALLS_SHOWN]:
        if not isinstance(result, Mapping):
            parts.append(f"<h4>tool</h4>{block(visible.brief(result, TEXT_SHOWN))}")
            continue
        parts.append(
            f"<h4>tool {escape(result.get('name'), _NAME_SHOWN)} "
            f"({escape(result.get('tool_call_id'), _NAME_SHOWN)})</h4>"
            f"{block(result.get('content'))}"
        )
    if len(given) > CALLS_SHOWN:
        parts.append(f'<p class="note">… {len(given) - CALLS_SHOWN:,} more results</p>')
    return "".join(parts)


_VERDICTS: dict[object, str] = {True: "valid", False: '<span class="bad">invalid</span>'}
"""A turn's `valid_action` (1 and 0 are True and False here too) as the page shows it."""


def _turn(turn: Mapping[str, Any], with_tools: bool) -> str:
    valid = turn.get("valid_action")
    verdict = _VERDICTS.get(valid, "") if isinstance(valid, (bool, int, float)) else ""
    facts = [
        f"action {escape(turn.get('action'), 120)}",
        verdict,
        f"reward {escape(turn.get('reward'), 40)}",
        "done" if turn.get("done") else "",
    ]
    info = turn.get("info")
    info_line = (
        f'<p class="info">info {escape(info, INFO_SHOWN)}</p>' if info not in (None, {}) else ""
    )
    results = turn.get("tool_results")
    observation = turn.get("observation")
    # in a tool episode an empty observation is no message: the model saw none
    user = "" if with_tools and observation == "" else f"<h4>user</h4>{block(observation)}"
    return (
        f'<div class="turn"><h4>turn {escape(turn.get("turn"), 20)}: assistant</h4>'
        f"{block(turn.get('reply'))}{_calls(turn.get('tool_calls'))}"
        f'<p class="facts">{" · ".join(fact for fact in facts if fact)}</p>{info_line}'
        f"{_results(results)}{user}</div>"
    )


def episode(label: str, record: Mapping[str, Any], id: str) -> str:
    """One episode as a closed `<details>` with `id`: a headline, then the whole chat turn by
    turn."""
    status = record.get("status")
    where = _where(record)
    headline = (
        f"<b>{html_escape(label)}</b> · {escape(record.get('env'))} · seed "
        f"{escape(record.get('seed'), 60)} · {escape(status, 60)} · reward "
        f"{escape(record.get('total_reward'), 40)} · "
        f"{escape(plural(record.get('num_turns'), 'turn'))}"
        + (f" · {escape(where)}" if where else "")
    )
    turns = record.get("turns") or []
    error = record.get("error")
    parts = [
        f'<details class="episode" data-run="{attribute(label)}" '
        f'data-env="{attribute(record.get("env"))}" data-status="{attribute(status)}" '
        f'id="{attribute(id)}">',
        f"<summary>{headline}</summary>",
        f'<p class="error">error: {escape(error, 2000)}</p>' if error else "",
        f"<h4>system</h4>{block(record.get('system_prompt'))}",
        _tools(record.get("tools")),
        f"<h4>user</h4>{block(record.get('observation'))}",
        "".join(
            _turn(turn, record.get("tools") is not None)
            for turn in turns
            if isinstance(turn, Mapping)
        ),
        "</details>",
    ]
    return "".join(parts)


def _select(key: str, title: str, values: Sequence[Any]) -> str:
    options = "".join(
        f'<option value="{attribute(value)}">{escape(value)}</option>' for value in values
    )
    return (
        f'<label>{title} <select id="filter-{key}"><option value="">all</option>'
        f"{options}</select></label>"
    )


def browser(runs: Sequence[tuple[str, Mapping[int, Mapping[str, Any]], int]]) -> str:
    """The section for `runs`, each (label, the episodes to show by their position in the run,
    how many it has): filters, then the episodes, each with the id `episode-LABEL-POSITION`."""
    shown: list[tuple[str, Mapping[str, Any], str]] = []
    notes = []
    for label, records, total in runs:
        shown += [(label, record, f"episode-{label}-{k}") for k, record in records.items()]
        if len(records) < total:
            notes.append(
                f"run {html_escape(label)}: {len(records):,} of {total:,} episodes, "
                "spread over its envs and statuses"
            )
    envs = sorted({visible.brief(r.get("env"), 200) for _, r, _ in shown})
    statuses = sorted({visible.brief(r.get("status"), 200) for _, r, _ in shown})
    left_out = (
        f'<p class="note">Written into this page: {"; ".join(notes)} '
        "(swift-gym report --episodes N writes more).</p>"
        if notes
        else ""
    )
    return (
        f'<div class="filters">{_select("run", "run", [label for label, _, _ in runs])}'
        f"{_select('env', 'env', envs)}{_select('status', 'status', statuses)}"
        f'<span id="filter-count">{len(shown)} episodes</span></div>{left_out}'
        f'<div id="episodes">{"".join(episode(*each) for each in shown)}</div>'
        f"<script>{SCRIPT}</script>"
    )
