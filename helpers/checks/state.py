"""The learner's global state, which no check or demo may change.

A learner's next `torch.randn` must give the same numbers whether or not a check
ran in between, and a check must not leave torch on one thread, in float64 or
with gradients off. Two context managers keep that promise:

- `seeded(seed)` for code that can only draw from torch's global generator
  (an nn.Module's own initialisation): the generator is seeded for the block and
  the learner's state put back after it;
- `kept()` around a whole check: whatever runs inside (the learner's code too),
  the random states, the default dtype, the thread count and the grad mode are
  what they were before.

Anything that can take its own generator takes one instead
(`torch.Generator().manual_seed(seed)`, `numpy.random.default_rng(seed)`).
"""

import random
from contextlib import contextmanager

import numpy as np
import torch


@contextmanager
def seeded(seed):
    """torch's CPU generator seeded with `seed` inside the block; the learner's state is put back
    after."""
    state = torch.get_rng_state()
    torch.default_generator.manual_seed(seed)   # the CPU generator only: a GPU's is left alone
    try:
        yield
    finally:
        torch.set_rng_state(state)


def snapshot():
    """{what: value} for every piece of global state a check must leave as it found it."""
    state = {
        "torch's random state (CPU)": torch.get_rng_state(),
        "numpy's global random state": np.random.get_state(),
        "Python's random state": random.getstate(),
        "torch's default dtype": torch.get_default_dtype(),
        "torch's thread count": torch.get_num_threads(),
        "torch's grad mode": torch.is_grad_enabled(),
    }
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["torch's random state (CUDA)"] = torch.cuda.get_rng_state_all()
    return state


def restore(state):
    """Put back what `snapshot()` saw."""
    torch.set_rng_state(state["torch's random state (CPU)"])
    np.random.set_state(state["numpy's global random state"])
    random.setstate(state["Python's random state"])
    torch.set_default_dtype(state["torch's default dtype"])
    if torch.get_num_threads() != state["torch's thread count"]:
        torch.set_num_threads(state["torch's thread count"])
    torch.set_grad_enabled(state["torch's grad mode"])
    if "torch's random state (CUDA)" in state:
        torch.cuda.set_rng_state_all(state["torch's random state (CUDA)"])


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def changes(before, after):
    """The names of the pieces of state that differ between two snapshots."""
    return [what for what in before if what not in after or not _same(before[what], after[what])]


@contextmanager
def kept():
    """Run the block, then put the random states, default dtype, thread count and grad mode back."""
    state = snapshot()
    try:
        yield
    finally:
        restore(state)
