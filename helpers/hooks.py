"""Forward hooks for the length of a `with` block: how notebooks 12-16 read and change what a module
computes (the hidden neurons on `mlp.act`, an MLP's output, the embeddings), and the checks and
demos with them.

    with torch.no_grad(), hooks.attached({model.blocks[1].mlp.act: keep}):
        model(idx)

Each hook is removed when the block ends, an error included, so a model is never left hooked.
"""

from contextlib import contextmanager

from torch import nn

from helpers import validate


@contextmanager
def attached(pairs):
    """Register {module: hook} forward hooks for the duration of a `with` block, then remove them.

    A hook is hook(module, inputs, output); returning a tensor replaces the module's output.
    """
    if not hasattr(pairs, "items"):
        raise TypeError(f"pairs must be a dict {{module: hook}}, got {type(pairs).__name__}")
    for module, hook in pairs.items():
        validate.instance_of(module, "each key of pairs", nn.Module,
                             "(e.g. model.blocks[0].mlp.act)")
        validate.function(hook, f"the hook for {type(module).__name__}")
    handles = [module.register_forward_hook(_shape_kept(module, hook))
               for module, hook in pairs.items()]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _shape_kept(module, hook):
    """hook, refusing a replacement output of another shape (a (d_ff,) row would broadcast)."""
    name = type(module).__name__

    def checked(mod, inputs, output):
        return validate.hook_output(hook(mod, inputs, output), output, name)

    return checked
