"""Whether the learner's code asked autograd for a derivative the exercise asks for by hand.

`AutogradWatch` is a torch function mode that notes the name of every torch function called inside
it; `autograd_used(fn, *args)` calls fn on copies of args inside one and returns the autograd calls
it made (`backward`, `torch.autograd.grad`, `torch.func.grad`, a tensor made with requires_grad), as
a sorted list, empty when there were none.
"""

import torch

from helpers.checks.core import attempt

AUTOGRAD = {"backward", "grad", "vjp", "jacrev", "jacfwd", "jacobian", "requires_grad_"}


class AutogradWatch(torch.overrides.TorchFunctionMode):
    """Records the names of the torch functions the code inside calls."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self.names.add(getattr(func, "__name__", ""))
        if kwargs.get("requires_grad"):
            self.names.add("requires_grad_")
        return func(*args, **kwargs)

    def used(self):
        return sorted(self.names & AUTOGRAD)


def autograd_used(fn, *args):
    """The autograd calls fn(*copies of args) made, sorted; [] when none (or when fn raised before
    any)."""
    watch = AutogradWatch()
    with watch:
        attempt(fn, *args)
    return watch.used()
