"""Start-up hook, run by `swift_gym_autoload.pth` in every Python process of the environment.

It only puts a finder on `sys.meta_path` (stdlib only, never raises, well under a millisecond).
It lives outside the `swift_gym` package so that start-up imports nothing of swift-gym, and the
marker PYTEST_DONT_REWRITE tells pytest (which rewrites every module of a distribution with a
pytest plugin) not to warn that this one was imported before it could.
The finder stays idle until one of ms-swift's registry modules (or the trainer modules whose
`_prepare_scheduler` swift-gym wraps: `ms_swift/trainer_seam.py`) is imported; right after that
module's body runs, swift-gym fills the module's registry in place, so `--gym_env`,
`--multi_turn_scheduler` and `--reward_funcs` see swift-gym's names in every process, with no
`--external_plugins`. `SWIFT_GYM_AUTOLOAD=0` turns it off.
ms-swift must never fail because of swift-gym: everything swift-gym runs after ms-swift's module
body, its own imports included (a partly deleted install), is guarded; what fails is one warning
and ms-swift goes on without swift-gym's entries.
"""

import os
import sys

AUTOLOAD_VARIABLE = "SWIFT_GYM_AUTOLOAD"
WATCHED = frozenset(
    {
        "swift.rollout.gym_env",
        "swift.rollout.multi_turn",
        "swift.rewards.orm",
        "swift.rlhf_trainers.rollout_mixin",
        "swift.megatron.trainers.rollout_mixin",
    }
)


class _RegistryFinder:
    """Finds nothing itself: it asks the other finders, then wraps the loader of WATCHED modules."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname not in WATCHED:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, _RegistryFinder) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _FillingLoader(spec.loader)
                return spec
        return None


class _FillingLoader:
    """Runs the real loader, then lets swift-gym fill the registry the module defines."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)  # ms-swift's own module: its errors are its own
        try:
            from swift_gym.ms_swift.registration import fill_registry

            fill_registry(module)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # SystemExit from a plugin too: never break ms-swift
            _warn(module.__name__, error)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _warn(module_name, error):
    """One warning that ms-swift goes on without swift-gym, and how to fix it; never raises."""
    detail = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    message = (
        f"swift-gym could not register into {module_name} ({detail}); ms-swift goes on "
        "without swift-gym's entries. Reinstall swift-gym (in its clone: pip install "
        f"--force-reinstall --no-deps ./core), or set {AUTOLOAD_VARIABLE}=0 to turn this hook off."
    )
    import contextlib
    import warnings

    try:
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    except Exception:  # warnings turned into errors (-W error): still say it, do not raise
        with contextlib.suppress(Exception):
            sys.stderr.write(f"warning: {message}\n")


def install():
    """Put the finder first on sys.meta_path, once."""
    if not any(isinstance(finder, _RegistryFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _RegistryFinder())


if os.environ.get(AUTOLOAD_VARIABLE, "1").strip().lower() not in ("0", "false", "no", "off"):
    install()
