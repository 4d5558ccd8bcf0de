"""Activation sparsity: which MLP neurons are off for a token, and the forward that skips them.

Hidden unit i owns one row of the up-projection (c_fc.weight[i], d_model numbers) and one column of
the down-projection (c_proj.weight[:, i]). When its activation h_i is 0 it adds nothing, so a decode
step, which is bound by the bytes it reads (notebook 09), could leave both unread. (c_fc and c_proj
are GPT-2's names, up_proj and down_proj Llama's; a GatedMLP's unit also owns a row of gate_proj.)

    active = active_units(h, threshold)     # (..., d_ff) bool: which units are on, per token
    sparse_mlp(x, mlp, active)              # the MLP reading only the active rows and columns
    sparse_mlp(x, unit_major(mlp), active)  # the same, c_proj stored unit by unit (sparse_layout)
    bytes_read(active, d_model, d_ff)       # bytes of weights a step reads:
                                            # dense, exact set, predicted set
    LowRankPredictor(d_model, d_ff, rank)   # guesses the active set from the MLP's input
    firing_frequency(active), hot_units     # how often each unit fires: hot and cold neurons
    cats(x, mlp, t), teal(x, mlp, t)        # thresholds for gated MLPs,
                                            # whose SiLU is rarely exactly 0

Ideas from Deja Vu (Liu et al. 2023), PowerInfer (Song et al. 2023), CATS (Lee et al. 2024), TEAL
(Liu et al. 2024); the figures those papers give are theirs, measured on their models, not on ours.
"""

from typing import NamedTuple

import torch

from helpers import sparse_layout, validate
from helpers.bandwidth import element_bytes
from helpers.gated import GatedMLP
from helpers.hooks import attached
from helpers.sparse_layout import projections as _projections
from helpers.sparsity_predictor import LowRankPredictor, recall_precision  # noqa: F401 - exported


def active_units(h, threshold=0.0, relative=True):
    """Which hidden units are on: h (..., d_ff) -> bool (..., d_ff).

    relative=True: |h_i| > threshold * the token's largest |h| (threshold in [0, 1));
    relative=False: |h_i| > threshold. Threshold 0 keeps the nonzero units: ReLU's off units are
    exact zeros.
    """
    validate.tensor(h, "h")
    if h.ndim == 0 or not h.is_floating_point():
        raise TypeError(f"h must be floating-point activations (..., d_ff), got {h.dtype} "
                        f"{tuple(h.shape)}")
    _finite(h, "h", "a diverged unit is neither on nor off")
    relative = validate.boolean(relative, "relative")
    threshold = _fraction(threshold, "threshold", "of the token's largest |h|") if relative \
        else validate.non_negative_number(threshold, "threshold")
    size = h.abs()
    return size > (threshold * size.amax(-1, keepdim=True) if relative else threshold)


def sparsity(h, threshold=0.0, relative=True):
    """Share of hidden units that are off, per token: h (..., d_ff) -> (...,)."""
    return (~active_units(h, threshold, relative)).double().mean(-1)


def _finite(x, name, why):
    """Refuse NaN or infinity in x, saying why it matters here."""
    try:
        validate.finite(x, name)
    except ValueError as err:
        raise ValueError(f"{err}: {why}; find where it came from first") from None


def _fraction(value, name, of):
    """Require a number from 0 up to (not including) 1."""
    value = validate.non_negative_number(value, name)
    if value >= 1:
        raise ValueError(f"{name} is a fraction {of}, from 0 up to (not including) 1, got {value}")
    return value


def hidden(x, mlp):
    """The hidden units the down-projection reads: act(c_fc x), or act_fn(gate_proj x) * up_proj x.
    (..., d_ff)

    The two names are the models' own, as Hugging Face keeps them (GPT2MLP.act, LlamaMLP.act_fn),
    so this reads the course's MLPs and the real ones alike."""
    gate, up, _ = _projections(mlp)
    return mlp.act(up(x)) if gate is None else mlp.act_fn(gate(x)) * up(x)


def record_mlps(model, idx, mlps=None):
    """Run model(idx); for each MLP, (its input x (..., d_model), its hidden units h (..., d_ff)).

    mlps: the MLP modules to read (default: [block.mlp for block in model.blocks]).
    """
    if mlps is None and not hasattr(model, "blocks"):
        raise TypeError("model must have .blocks, each with an .mlp (kv_memory.load()'s "
                        f"FactModel), or pass mlps=[...]; got {type(model).__name__}")
    mlps = [block.mlp for block in model.blocks] if mlps is None else list(mlps)
    for mlp in mlps:
        # an FFN or a GatedMLP, else TypeError
        _projections(mlp)
    seen = {}

    def keep_input(module, inputs, output):
        seen[module] = inputs[0]

    with torch.no_grad(), attached({mlp: keep_input for mlp in mlps}):
        model(idx)
        missing = [i for i, mlp in enumerate(mlps) if mlp not in seen]
        if missing:
            raise ValueError(f"mlps[{missing[0]}] did not run in model(idx): pass the model's own "
                             "MLPs")
        return [(seen[mlp], hidden(seen[mlp], mlp)) for mlp in mlps]


def _indices(active, d_ff, name="active"):
    """The active units as indices (k,): from a bool mask (d_ff,) or from indices (k,), checked."""
    validate.tensor(active, name)
    validate.ndim(active, name, 1)
    if active.dtype == torch.bool:
        if active.shape[0] != d_ff:
            raise ValueError(f"{name} is a mask of {active.shape[0]} entries but the MLP has "
                             f"d_ff={d_ff} hidden units: one entry per unit")
        _not_empty(active.sum(), d_ff, name)
        return active.nonzero().flatten()
    if active.is_floating_point() or active.is_complex():
        raise TypeError(f"{name} must be a bool mask ({d_ff},) or integer unit indices (k,), got "
                        f"dtype {active.dtype}")
    _not_empty(active.numel(), d_ff, name)
    if active.min() < 0 or active.max() >= d_ff:
        bad = int(active.min()) if active.min() < 0 else int(active.max())
        raise ValueError(f"{name} holds the unit index {bad} but the MLP's units are 0 to "
                         f"{d_ff - 1}")
    if active.unique().numel() != active.numel():
        raise ValueError(f"{name} lists a unit more than once; each active unit is read once")
    return active.long()


def _not_empty(k, d_ff, name):
    """Refuse an active set without a unit: nothing to read; the caller likely asked too much."""
    if int(k) == 0:
        raise ValueError(f"{name} is empty: expected at least 1 of the d_ff={d_ff} units active, "
                         "got 0. With every unit off the MLP's output is the down-projection's "
                         "bias alone; lower the threshold, or use that bias directly")


def sparse_mlp(x, mlp, active):
    """The MLP's output reading only the active units' rows of up (and gate) and their down weights.

    mlp: an FFN or a GatedMLP, whose down weights are gathered as columns of c_proj each call (the
    stored layout), or sparse_layout.unit_major(mlp), made once, whose down weights are rows.
    x: (d_model,) one token, or (T, d_model) tokens. active: one set for every token, a bool mask
    (d_ff,) or indices (k,); or, with x (T, d_model), a mask (T, d_ff): each token its own set.
    Returns x's shape. The down-projection's bias is added once. An empty set (for any token) is
    refused, as is a mask of the wrong length, a float tensor or an index out of range.
    """
    layout = mlp if isinstance(mlp, sparse_layout.Layout) else sparse_layout.stored(mlp)
    validate.model_input(x, layout.d_model, type(mlp).__name__, layout.up)
    validate.ndim(x, "x", (1, 2))
    validate.tensor(active, "active")
    # a set per token: one token at a time
    if active.ndim == 2:
        if x.ndim != 2 or active.shape != (len(x), layout.d_ff) or active.dtype != torch.bool:
            raise ValueError("a 2-D active must be a bool mask (T, d_ff) for x (T, d_model), here "
                             f"({len(x)}, {layout.d_ff}) for x {tuple(x.shape)}; got "
                             f"{active.dtype} {tuple(active.shape)}")
        empty = (~active.any(1)).nonzero().flatten()
        if len(empty):
            # that token would read nothing
            _not_empty(0, layout.d_ff, f"active[{int(empty[0])}]")
        return torch.stack([sparse_mlp(x_t, layout, a_t)
                            for x_t, a_t in zip(x, active, strict=True)])
    idx = _indices(active, layout.d_ff).to(layout.up.device)
    return sparse_layout.sparse_forward(layout, x, idx)


class Bytes(NamedTuple):
    """Bytes of MLP weights one decode step reads, in three ways."""

    dense: int      # every row and column
    # the first projection whole (the set is known only after it), then the active units' rest
    exact: int
    # the active units' rows and columns of every matrix (a predictor's own bytes not counted)
    predicted: int


def bytes_read(active, d_model, d_ff, dtype=torch.float32, bias=False, gated=False):
    """The Bytes a decode step reads for an active set: a mask (..., d_ff) or indices (k,).

    Per unit: a row of up (and of gate when gated) and a column of down, d_model elements each, and
    with bias its up (and gate) bias; the down bias is read once. A batch reads the union of its
    sets, which must hold at least one unit.
    """
    d_model, d_ff = validate.positive_int(d_model, "d_model"), validate.positive_int(d_ff, "d_ff")
    size, bias, gated = (element_bytes(dtype), validate.boolean(bias, "bias"),
                         validate.boolean(gated, "gated"))
    validate.tensor(active, "active")
    if active.dtype == torch.bool and active.ndim > 1:
        active = active.reshape(-1, active.shape[-1]).any(0)      # the union over tokens
    k = len(_indices(active, d_ff))
    # matrices that read x: up (and gate)
    n_in = 2 if gated else 1
    per_unit = (n_in + 1) * d_model + (n_in if bias else 0)
    # c_fc's (or gate_proj's) share of a unit
    first = d_model + (1 if bias else 0)
    down_bias = d_model if bias else 0
    return Bytes(dense=size * (d_ff * per_unit + down_bias),
                 exact=size * (d_ff * first + k * (per_unit - first) + down_bias),
                 predicted=size * (k * per_unit + down_bias))


def firing_frequency(active):
    """How often each unit is on over a set of tokens: bool (..., d_ff) -> share (d_ff,)."""
    validate.tensor(active, "active")
    if active.dtype != torch.bool or active.ndim < 1:
        raise TypeError(f"active must be a bool mask (..., d_ff), got {active.dtype} "
                        f"{tuple(active.shape)}")
    if active.numel() == 0:
        raise ValueError(f"active holds no token (shape {tuple(active.shape)}): a unit's firing "
                         "frequency is a share of tokens, and needs at least one")
    return active.reshape(-1, active.shape[-1]).double().mean(0)


def hot_units(frequency, share=0.8):
    """The fewest units, most frequent first, whose firings make at least `share` of all: (n,)."""
    validate.ndim(validate.tensor(frequency, "frequency"), "frequency", 1)
    if not frequency.is_floating_point() or len(frequency) == 0:
        raise TypeError("frequency must be shares of tokens (d_ff,), from firing_frequency, got "
                        f"{frequency.dtype} {tuple(frequency.shape)}")
    _finite(frequency, "frequency", "a unit's share of tokens is a number from 0 to 1")
    if frequency.min() < 0 or frequency.max() > 1:
        bad = float(frequency.min() if frequency.min() < 0 else frequency.max())
        raise ValueError(f"frequency holds {bad:g}; each unit's frequency is a share of tokens, "
                         "from 0 to 1")
    if frequency.sum() == 0:
        raise ValueError("frequency is 0 for every unit: no unit fired, so there are no firings "
                         "to share")
    share = validate.positive_number(share, "share")
    if share > 1:
        raise ValueError(f"share is a fraction of all firings, above 0 and at most 1, got {share}")
    order = frequency.argsort(descending=True, stable=True)
    reached = frequency[order].cumsum(0) >= share * frequency.sum()
    return order[: int(reached.int().argmax()) + 1]


def calibrate_threshold(values, share):
    """The absolute threshold below which `share` of |values| fall (CATS and TEAL calibrate so)."""
    validate.tensor(values, "values")
    if values.numel() == 0:
        raise ValueError(f"values is empty (shape {tuple(values.shape)}): a threshold is "
                         "calibrated on a sample of values, at least one")
    _finite(values, "values", "a threshold calibrated on them would be NaN or switch off nothing")
    k = int(_fraction(share, "share", "of the values to switch off") * values.numel())
    return values.abs().flatten().sort().values[k - 1].item() if k else 0.0


def relative_error(approx, exact):
    """||approx - exact|| / ||exact|| per token: (..., d) -> (...,)."""
    validate.tensor(approx, "approx")
    validate.tensor(exact, "exact")
    if approx.shape != exact.shape:
        raise ValueError(f"approx has shape {tuple(approx.shape)} but exact has "
                         f"{tuple(exact.shape)}")
    if exact.ndim == 0:
        raise ValueError("exact must be vectors (..., d), one per token; got a single number")
    norm = torch.linalg.vector_norm(exact, dim=-1)
    zero = (norm == 0).nonzero()
    if len(zero):
        where = tuple(int(i) for i in zero[0])
        raise ValueError(f"exact is all zeros for token {where[0] if len(where) == 1 else where}: "
                         "an error relative to it is undefined")
    return torch.linalg.vector_norm(approx - exact, dim=-1) / norm


def cats(x, mlp, threshold):
    """CATS on a GatedMLP: gate values with |act(gate_proj x)| <= threshold set to 0; (output, error
    per token).

    The gate is computed in full; the zeroed units' rows of up_proj and columns of down_proj go
    unread.
    """
    validate.instance_of(mlp, "mlp", GatedMLP, "(gate_proj, up_proj, down_proj)")
    validate.model_input(x, mlp.d_model, "GatedMLP", mlp.gate_proj.weight)
    threshold = validate.non_negative_number(threshold, "threshold")
    with torch.no_grad():
        g = mlp.act_fn(mlp.gate_proj(x))                          # (..., d_ff)
        g = torch.where(g.abs() > threshold, g, torch.zeros_like(g))
        out = mlp.down_proj(g * mlp.up_proj(x))
        return out, relative_error(out, mlp(x))


def teal(x, mlp, threshold):
    """TEAL on the MLP's input: entries with |x_j| <= threshold set to 0; (output, error per token).

    A zeroed x_j leaves column j of gate_proj and up_proj (or c_fc) unread. TEAL thresholds the
    input of every matrix of the model; here only the MLP's input, for one MLP.
    """
    _, up, _ = _projections(mlp)
    validate.model_input(x, mlp.d_model, type(mlp).__name__, up.weight)
    threshold = validate.non_negative_number(threshold, "threshold")
    with torch.no_grad():
        out = mlp(torch.where(x.abs() > threshold, x, torch.zeros_like(x)))
        return out, relative_error(out, mlp(x))
