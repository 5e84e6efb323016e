"""Seer's Python start-up hook, on PYTHONPATH of every process `seer run` starts.

It installs seer_torch_objects (object collectives that work without GPU kernels computing) when
torch.distributed is imported, then runs the sitecustomize module that would have run without
Seer, if there is one.
"""

import importlib.abc
import importlib.util
import os
import sys


class _PatchOnImport(importlib.abc.MetaPathFinder):
    """Patches torch.distributed.distributed_c10d right after it is first executed."""

    _target = "torch.distributed.distributed_c10d"

    def find_spec(self, fullname, path, target=None):
        if fullname != self._target:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        original_exec = loader.exec_module

        def exec_and_patch(module):
            original_exec(module)
            import seer_torch_objects

            seer_torch_objects.install(module)

        loader.exec_module = exec_and_patch
        return spec


def _run_next_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    saved_path = sys.path[:]
    saved_module = sys.modules.pop("sitecustomize", None)
    try:
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
        spec = importlib.util.find_spec("sitecustomize")
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved_path
        if saved_module is not None:
            sys.modules["sitecustomize"] = saved_module


if os.environ.get("SEER_TORCH_OBJECTS", "1") != "0":
    sys.meta_path.insert(0, _PatchOnImport())
_run_next_sitecustomize()
