"""Object collectives of torch.distributed for NCCL groups under Seer.

PyTorch pickles objects into device tensors and sizes its buffers from GPU kernels
(`object_sizes_tensor.max().item()`, `torch.sum(...)`). Under Seer copies and collectives carry
the program's bytes but kernels compute nothing, so those sizes would read as garbage. For groups
with an NCCL backend, these functions exchange the pickled objects through the default c10d store
instead (the store torchrun's rendezvous already uses), with the same results and the same
blocking semantics. Groups of other backends (gloo) keep PyTorch's own implementation.
"""

import functools
import inspect
import io
import pickle

_sequence = {}


def _dumps(obj, weights_only):
    if weights_only:
        import torch

        buffer = io.BytesIO()
        torch.save(obj, buffer)
        return buffer.getvalue()
    return pickle.dumps(obj)


def _loads(data, weights_only):
    if weights_only:
        import torch

        return torch.load(io.BytesIO(data), weights_only=True)
    return pickle.loads(data)


class _Exchange:
    """One object collective on one group: keys unique by group, kind and call order."""

    def __init__(self, c10d, group, kind):
        name = c10d._get_process_group_name(group)
        key = (name, kind)
        _sequence[key] = _sequence.get(key, 0) + 1
        prefix = "seer_objects/%s/%s/%d/" % (name, kind, _sequence[key])
        self.store = c10d.PrefixStore(prefix, c10d._get_default_store())
        self.rank = group.rank()
        self.size = group.size()

    def put(self, slot, data):
        self.store.set(str(slot), data)

    def get(self, slot):
        return bytes(self.store.get(str(slot)))

    def finish(self, readers, slots):
        # The last reader removes the keys: every other reader has read them by then.
        if self.store.add("done", 1) == readers:
            for slot in slots:
                self.store.delete_key(str(slot))
            self.store.delete_key("done")


def _root(c10d, group, global_rank, group_rank):
    if global_rank is None and group_rank is None:
        global_rank = 0
    return c10d._canonicalize_group_rank(group, global_rank, group_rank, return_global=False)


def _all_gather_object(c10d, group, a):
    ex = _Exchange(c10d, group, "all_gather")
    ex.put(ex.rank, _dumps(a["obj"], a["weights_only"]))
    for i in range(ex.size):
        a["object_list"][i] = _loads(ex.get(i), a["weights_only"])
    ex.finish(ex.size, range(ex.size))


def _gather_object(c10d, group, a):
    root = _root(c10d, group, a["dst"], a["group_dst"])
    ex = _Exchange(c10d, group, "gather")
    ex.put(ex.rank, _dumps(a["obj"], a["weights_only"]))
    if ex.rank == root:
        out = a["object_gather_list"]
        if out is None:
            raise ValueError("object_gather_list must be a list on the destination rank")
        for i in range(ex.size):
            out[i] = _loads(ex.get(i), a["weights_only"])
        ex.finish(1, range(ex.size))


def _broadcast_object_list(c10d, group, a):
    root = _root(c10d, group, a["src"], a["group_src"])
    ex = _Exchange(c10d, group, "broadcast")
    objects = a["object_list"]
    if ex.rank == root:
        ex.put(0, _dumps(list(objects), a["weights_only"]))
    else:
        received = _loads(ex.get(0), a["weights_only"])
        objects[: len(received)] = received
    ex.finish(ex.size, [0])


def _scatter_object_list(c10d, group, a):
    root = _root(c10d, group, a["src"], a["group_src"])
    ex = _Exchange(c10d, group, "scatter")
    if ex.rank == root:
        for i, obj in enumerate(a["scatter_object_input_list"]):
            ex.put(i, _dumps(obj, a["weights_only"]))
    a["scatter_object_output_list"][0] = _loads(ex.get(ex.rank), a["weights_only"])
    ex.finish(ex.size, range(ex.size))


_REPLACEMENTS = {
    "all_gather_object": _all_gather_object,
    "gather_object": _gather_object,
    "broadcast_object_list": _broadcast_object_list,
    "scatter_object_list": _scatter_object_list,
}


def _is_nccl(c10d, group):
    try:
        return "nccl" in str(c10d.get_backend(group)).lower()
    except Exception:
        return False


def _wrap(c10d, original, replacement):
    signature = inspect.signature(original)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        a.setdefault("weights_only", False)
        group = a.get("group") or c10d._get_default_group()
        if c10d._rank_not_in_group(group) or not _is_nccl(c10d, group):
            return original(*args, **kwargs)
        return replacement(c10d, group, a)

    return wrapper


def install(c10d):
    """Replaces the object collectives of the module torch.distributed.distributed_c10d."""
    if getattr(c10d, "_seer_objects_installed", False):
        return
    c10d._seer_objects_installed = True
    for name, replacement in _REPLACEMENTS.items():
        original = getattr(c10d, name, None)
        if original is not None:
            setattr(c10d, name, _wrap(c10d, original, replacement))
