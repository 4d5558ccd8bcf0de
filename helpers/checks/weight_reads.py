"""Which of a module's weights a learner's function reads whole, and how it indexes them.

A sparse forward must read only some rows and columns; its output cannot show whether it did (a
dense forward followed by `h * mask` gives the same numbers). `traced(fn, weights, *args)` runs fn
under a torch function mode that sees every torch call: a call that takes a whole weight (or a
view of it, such as its .T) and is not a view, an index or a look at its shape has read every
number of it. Indexing calls are kept, with their index, for the check to read.
`sparse_forward_reads` puts what it sees of a sparse MLP forward into a sentence.
"""

import re

import torch
from torch.overrides import TorchFunctionMode

from helpers.checks.core import attempt
from helpers.checks.show import say

# Calls that read no number of a tensor they take whole: views, indexing, attributes.
LOOKS = {"__getitem__", "index_select", "__get__", "size", "dim", "numel", "__len__", "t",
         "transpose", "permute", "detach", "view", "reshape", "to", "stride", "storage_offset",
         "element_size", "is_floating_point", "is_contiguous", "requires_grad_", "untyped_storage",
         "data_ptr", "type", "narrow", "select", "unbind", "__repr__", "__format__", "has_names",
         "is_complex", "get_device", "__bool__"}


def _same_storage(a, b):
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return False


class _Reads(TorchFunctionMode):
    def __init__(self, weights):
        super().__init__()
        self.weights = weights          # {name: tensor}
        self.whole = []                 # (weight name, torch function name): read whole
        self.indexed = []               # (weight name, the tensor indexed, its key)

    def _which(self, value):
        if not isinstance(value, torch.Tensor):
            return None
        for name, weight in self.weights.items():
            if value.numel() == weight.numel() and _same_storage(value, weight):
                return name
        return None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        values = list(args) + list(kwargs.values())
        for value in values:
            weight = self._which(value)
            if weight is None:
                continue
            if name in ("__getitem__", "index_select"):
                self.indexed.append((weight, value,
                                     values[1:] if name == "__getitem__" else values[1:]))
            elif name not in LOOKS:
                self.whole.append((weight, name))
        return func(*args, **kwargs)


def traced(fn, weights, *args):
    """(fn(*args) or the exception it raised, [(weight name, function)] read whole, [(weight,
    tensor, key)])."""
    reads = _Reads(weights)
    with reads:
        # an exception, an exit or a time-out comes back as a value
        result = attempt(fn, *args, copies=False)
    return result, reads.whole, reads.indexed


def sparse_forward_reads(fn, x, mlp, active):
    """A sentence for a sparse forward fn(x, mlp, active) that reads a whole weight of the FFN mlp
    or indexes one along the wrong axis or with the wrong index, else None. mlp must have d_model !=
    d_ff (each axis then tells which it is), x one token, active a bool mask of k units."""
    d_model, d_ff, k = mlp.d_model, mlp.d_ff, int(active.sum())
    weights = {"c_fc.weight": mlp.c_fc.weight, "c_proj.weight": mlp.c_proj.weight,
               "c_fc.bias": mlp.c_fc.bias}
    result, whole, indexed = traced(fn, weights, x, mlp, active)
    shapes = (re.search(r"\((\d+)x(\d+) and (\d+)x(\d+)\)", str(result))
              if isinstance(result, Exception) else None)
    if shapes and [int(n) for n in shapes.groups()[2:]] == [d_model, k]:
        return say("the active columns of c_proj, c_proj.weight[:, idx], form a (d_model, k) "
                   "matrix: h (k numbers per token) meets it transposed, so that each unit's "
                   "activation weighs its own column.")
    for name, key in ((name, key) for name, _, key in indexed):
        index = next((k for k in _flat_keys(key) if isinstance(k, torch.Tensor)), None)
        if index is None:
            continue
        if index.ndim > 1:
            return say("{name} was indexed with an index of shape {shape}: active.nonzero() gives "
                       "one row per unit, (k, 1); flatten it to k unit numbers.",
                       name=name, shape=tuple(index.shape))
        if index.dtype != torch.bool and len(index) == d_ff \
                and set(index.unique().tolist()) <= {0, 1}:
            return say("{name} was indexed with the mask turned into numbers (0s and 1s): "
                       "that picks units 0 and 1 over and over. The units are where the "
                       "mask is True: their positions.", name=name)
    across = {name for name, tensor, key in indexed if (axis := _axis(tensor, key)) is not None
              # an axis of d_model: not the units'
              and tensor.shape[axis] == d_model}
    if {"c_fc.weight", "c_proj.weight"} <= across:
        return say("rows and columns are swapped: unit i owns ROW i of c_fc.weight (d_ff, "
                   "d_model), c_fc.weight[idx], and COLUMN i of c_proj.weight (d_model, "
                   "d_ff), c_proj.weight[:, idx].")
    if "c_fc.weight" in across:
        return say("a unit's weights were taken from the columns of c_fc.weight (d_ff, d_model): "
                   "unit i owns ROW i of c_fc, its d_model input weights.")
    if "c_proj.weight" in across:
        return say("a unit's weights were taken from the rows of c_proj.weight (d_model, d_ff): "
                   "unit i owns COLUMN i of c_proj, the d_model numbers it writes into the output.")
    if whole:
        weight, how = next(((w, h) for w, h in whole if w != "c_fc.bias"), whole[0])
        if weight == "c_fc.bias" and how in ("add", "__add__", "__radd__"):
            return say("the whole of c_fc.bias (d_ff numbers) was added to the active "
                       "units' pre-activations: each active unit takes its own bias, the "
                       "entries of c_fc.bias for the set.")
        return say("your function reads all of {weight} (in torch's {how}): a dense forward "
                   "followed by a mask (h * mask, or weights times a mask) gives the right "
                   "numbers but reads every weight, and not reading them is the point of the "
                   "sparse forward. Index the active units' rows of c_fc and columns of c_proj "
                   "first, then multiply only those.",
                   weight=weight, how=how.strip("_"))
    return None


def _flat_keys(key):
    for k in key:
        yield from (k if isinstance(k, tuple) else (k,))


def _axis(tensor, key):
    """The axis a __getitem__ key or an index_select (dim, index) selects with a tensor; None if
    none."""
    if len(key) == 2 and isinstance(key[0], int) and isinstance(key[1], torch.Tensor):
        return key[0] % tensor.ndim                                # index_select(dim, index)
    parts = key[0] if len(key) == 1 and isinstance(key[0], tuple) else key
    for axis, part in enumerate(parts):
        if isinstance(part, torch.Tensor):
            return axis
    return None
