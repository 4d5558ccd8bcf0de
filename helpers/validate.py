"""Input checks shared by every public function: errors name the argument,
what was expected and what came."""

import numpy as np
import torch


def kind_of(x):
    """'numpy' or 'torch' for an array or tensor; TypeError for anything else."""
    if isinstance(x, torch.Tensor):
        return "torch"
    if isinstance(x, np.ndarray):
        return "numpy"
    raise TypeError(f"expected a numpy array or a torch tensor, got {type(x).__name__}")


def as_array(x, name):
    """A numpy array from a list, number or array; torch tensors are refused."""
    if isinstance(x, torch.Tensor):
        raise TypeError(f"{name} is a torch tensor; this function takes numpy arrays")
    if isinstance(x, np.ndarray):
        return x
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
    allowed = (expected,) if isinstance(expected, int) else tuple(expected)
    if x.ndim not in allowed:
        want = " or ".join(f"{n}-D" for n in allowed)
        raise ValueError(f"{name} must be {want}, got {x.ndim}-D with shape {tuple(x.shape)}")


def finite(x, name):
    """Refuse NaN or infinity, which would silently spread through a matmul."""
    bad = ~np.isfinite(x) if isinstance(x, np.ndarray) else ~torch.isfinite(x)
    if bad.any():
        count = int(bad.sum())
        raise ValueError(f"{name} holds {count} non-finite value(s) (NaN or inf)")


def real(x, name):
    """Refuse complex numbers, which a real-valued formula would silently mangle."""
    if np.iscomplexobj(x) if isinstance(x, np.ndarray) else x.is_complex():
        raise TypeError(f"{name} holds complex numbers (dtype {x.dtype}); expected real numbers")


def positive_int(value, name):
    """Require a whole number >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def non_negative_int(value, name):
    """Require a whole number >= 0."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def non_negative_number(value, name):
    """Require a finite real number >= 0 (a duration, a tolerance)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def choice(value, name, options):
    """Require value to be one of options."""
    if value not in options:
        raise ValueError(f"unknown {name} {value!r}; choose one of {sorted(options)}")
    return value


def model_input(x, d_model, module):
    """Require a torch tensor whose last dimension is d_model (the input of an MLP module)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch tensor, got {type(x).__name__}")
    if x.ndim == 0:
        raise ValueError(f"x must have shape (..., d_model={d_model}), got a 0-d tensor (a single number)")
    if not x.is_floating_point():
        raise TypeError(f"x must hold floating-point numbers for this {module}, got dtype {x.dtype}")
    if x.shape[-1] != d_model:
        raise ValueError(f"x has last dimension {x.shape[-1]} but this {module} expects d_model={d_model}")
