"""Input checks shared by every public function: errors name the argument,
what was expected and what came.

The checks of plain Python values (numbers, booleans, choices, types) live in
helpers.validate_values and are named here too; this module checks arrays, tensors and memory.

Each check costs a few attribute reads (no loop over a tensor's values), so a module's
forward can afford them; `finite` is the one that reads every value, used outside loops.
"""

import os

from helpers.validate_values import (  # noqa: F401 - exported
    boolean,
    choice,
    function,
    index,
    instance_of,
    non_negative_int,
    non_negative_number,
    positive_int,
    positive_number,
    real_number,
)

np = torch = None  # imported by the first check of an array or tensor (_arrays)


def _arrays():
    """Import numpy and torch once, on first use: the checks of plain numbers need neither, so
    the parameter calculator (`python -m helpers params`) starts in a tenth of a second."""
    global np, torch
    if torch is None:
        import numpy
        import torch as torch_module

        np, torch = numpy, torch_module


def kind_of(x):
    """'numpy' or 'torch' for an array or tensor; TypeError for anything else."""
    _arrays()
    if isinstance(x, torch.Tensor):
        return "torch"
    if isinstance(x, np.ndarray):
        return "numpy"
    raise TypeError(f"expected a numpy array or a torch tensor, got {type(x).__name__}")


def as_array(x, name):
    """A numpy array from a list, number or array; torch tensors and None are refused."""
    _arrays()
    if isinstance(x, torch.Tensor):
        raise TypeError(f"{name} is a torch tensor; this function takes numpy arrays")
    if isinstance(x, np.ndarray):
        return x
    if x is None or isinstance(x, (str, bytes, bool)):
        raise TypeError(f"{name} must be a numpy array, a list of numbers or a number, "
                        f"got {type(x).__name__} {x!r}")
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a numpy array, got {type(x).__name__}") from err


def same_kind(**arrays):
    """Refuse a mix of numpy arrays and torch tensors; return the common kind."""
    kinds = {name: kind_of(a) for name, a in arrays.items() if a is not None}
    if len(set(kinds.values())) > 1:
        listed = ", ".join(f"{n} is {k}" for n, k in kinds.items())
        raise TypeError(f"mixed numpy and torch arguments ({listed}); convert them to one kind")
    return next(iter(kinds.values()), "numpy")


def ndim(x, name, expected):
    """Require x.ndim in expected (an int or a tuple of ints)."""
    if not hasattr(x, "ndim"):
        raise TypeError(f"{name} must be an array or tensor, got {type(x).__name__}")
    allowed = (expected,) if isinstance(expected, int) else tuple(expected)
    if x.ndim not in allowed:
        want = " or ".join(f"{n}-D" for n in allowed)
        raise ValueError(f"{name} must be {want}, got {x.ndim}-D with shape {tuple(x.shape)}")


def finite(x, name):
    """Refuse NaN or infinity, which would silently spread through a matmul (or an argmin)."""
    _arrays()
    lib = np if isinstance(x, np.ndarray) else torch
    bad = ~lib.isfinite(x)
    if bad.any():
        n_nan = int(lib.isnan(x).sum())
        n_inf = int(bad.sum()) - n_nan
        parts = [f"{n_nan} NaN"] * bool(n_nan) + [f"{n_inf} infinite"] * bool(n_inf)
        raise ValueError(f"{name} holds {n_nan + n_inf} non-finite value(s): {' and '.join(parts)}")


def real(x, name):
    """Refuse complex numbers, which a real-valued formula would silently mangle."""
    _arrays()
    if np.iscomplexobj(x) if isinstance(x, np.ndarray) else x.is_complex():
        raise TypeError(f"{name} holds complex numbers (dtype {x.dtype}); expected real numbers")


def tensor(x, name):
    """Require a torch tensor (a numpy array converts with torch.from_numpy)."""
    _arrays()
    if not isinstance(x, torch.Tensor):
        hint = " (convert it with torch.from_numpy)" if type(x).__module__ == "numpy" else ""
        raise TypeError(f"{name} must be a torch tensor, got {type(x).__name__}{hint}")
    return x


def float_dtype(dtype, name):
    """Require a floating-point torch dtype such as torch.float64 (not the string "float64")."""
    _arrays()
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"{name} must be a floating-point torch dtype such as torch.float64, got "
                        f"{dtype!r}")
    return dtype


def _autocast_on(device_type):
    _arrays()
    try:
        return torch.is_autocast_enabled(device_type)
    except TypeError:  # torch before 2.4 takes no device type
        return (torch.is_autocast_cpu_enabled() if device_type == "cpu"
                else torch.is_autocast_enabled())


def matches_weight(x, weight, module, name="x"):
    """Require x on the device and in the dtype of a module's weight (autocast may mix dtypes)."""
    if x.device != weight.device:
        raise ValueError(f"{name} is on {x.device} but this {module}'s weights are on "
                         f"{weight.device}; move one: {name}.to({str(weight.device)!r}) or "
                         f"module.to({str(x.device)!r})")
    if x.dtype != weight.dtype and not _autocast_on(x.device.type):
        raise TypeError(f"{name} has dtype {x.dtype} but this {module}'s weights are "
                        f"{weight.dtype}; convert one: {name}.to({weight.dtype}) or "
                        f"module.to({x.dtype})")


def model_input(x, d_model, module, weight=None, dims=None):
    """Require a floating tensor (..., d_model); with weight, in the weight's dtype.

    dims: the number of dimensions x must have (3 for (B, T, d_model)); None: any from 1.
    This runs in every forward, so it reads a few attributes only. A device other than the
    weights' is left to torch, whose error names both devices.
    """
    _arrays()
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch tensor, got {type(x).__name__}")
    shape = x.shape
    if not shape:
        raise ValueError(f"x must have shape (..., d_model={d_model}), got a 0-d tensor (a single "
                         "number)")
    if dims is not None and len(shape) != dims:
        raise ValueError(f"x must be a {dims}-D tensor (B, T, d_model={d_model}) for this "
                         f"{module}, got shape {tuple(shape)}")
    if shape[-1] != d_model:
        raise ValueError(f"x has last dimension {shape[-1]} but this {module} expects "
                         f"d_model={d_model}")
    # dtypes are singletons: `is` is the cheap test
    if weight is None or x.dtype is not weight.dtype:
        if not x.is_floating_point():
            raise TypeError(f"x must hold floating-point numbers for this {module}, got dtype "
                            f"{x.dtype}")
        if weight is not None:
            matches_weight(x, weight, module)


def explained(error, x, d_model, module, weight=None):
    """The error to raise when torch refused x in a forward: model_input's sentence if x is the
    problem, else torch's own `error`. Checking only after a failure costs the forward nothing."""
    try:
        model_input(x, d_model, module, weight)
    except (TypeError, ValueError) as problem:
        return problem
    return error


def hook_output(result, output, module):
    """Require a forward hook's replacement to have the shape of the output it replaces.

    A (d_ff,) tensor returned for an (N, T, d_ff) output would broadcast over every prompt
    and every position: a wrong answer, not an error, further on.
    """
    _arrays()
    if result is None or not isinstance(output, torch.Tensor):
        return result
    if not isinstance(result, torch.Tensor):
        raise TypeError(f"a forward hook on {module} returned {type(result).__name__}; it must "
                        "return None (keep the output) or a tensor of the output's shape "
                        f"{tuple(output.shape)}")
    if result.shape != output.shape:
        raise ValueError(f"a forward hook on {module} returned shape {tuple(result.shape)} but the "
                         f"output it replaces has shape {tuple(output.shape)}; change a copy of "
                         "the output (out = output.clone(); out[..., i] = 0; return out)")
    if result.dtype != output.dtype or result.device != output.device:
        raise TypeError(f"a forward hook on {module} returned a {result.dtype} tensor on "
                        f"{result.device} but the output it replaces is {output.dtype} on "
                        f"{output.device}")
    return result


def memory_bytes():
    """This machine's physical memory in bytes; 16 GiB where the system does not say (Windows)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 16 * 2**30


def affordable(n_bytes, what):
    """Refuse, before anything is allocated, sizes whose tensors would take over half this machine's
    memory."""
    total = memory_bytes()
    if n_bytes > total / 2:
        raise ValueError(f"{what} would need about {n_bytes / 2**30:,.1f} GiB of memory, more than "
                         f"half of this machine's {total / 2**30:,.0f} GiB; choose smaller sizes")
