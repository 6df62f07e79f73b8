"""Package attributes that load on first use (PEP 562), for `__init__` files that must be cheap.

`import swift_gym` runs in every process that touches swift-gym (the pytest plugin, listing
envs), so a package's `__init__` names its exports and imports each from its submodule only when
first asked for. Standard library only, and no `typing`: that import alone costs milliseconds.

Public for env packages too: an env package's `__init__` writes `_EXPORTS = {"Name":
"submodule"}` and `__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)`, so importing it
(as listing and the entry-point scan do) loads none of the library it wraps. Keep `_EXPORTS` a
literal: `swift-gym list` reads it from the source to find an env's docstring without importing.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any


def attach(
    package: str, exports: Mapping[str, str], names: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: NAME comes from submodule `exports[NAME]`.

    `names` is what `dir(package)` lists (its `__all__`). A loaded value is cached in the
    package, so each attribute is looked up through this hook once.
    """
    listed = sorted(names)

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        from importlib import import_module

        value = getattr(import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return list(listed)

    return __getattr__, __dir__
