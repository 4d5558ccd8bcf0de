"""Where a unit's weights sit in memory decides what skipping it costs.

Unit i owns row i of c_fc.weight (d_ff, d_model): d_model numbers side by side, one contiguous read.
It also owns column i of c_proj.weight (d_model, d_ff): d_model numbers each d_ff apart, one per row
of the matrix. A sparse step that gathers k columns reads a piece of every row, and memory moves in
cache lines of 64 bytes, so it pulls in neighbours it never uses. Stored unit-major (c_proj's weight
transposed once, at load time, to (d_ff, d_model)), unit i's down weights are one contiguous row
too: the layout PowerInfer's sparse CPU kernel reads (its down weight is stored transposed).

    layout = unit_major(mlp)        # the weights laid out unit by unit, made once
    stored(mlp)                     # the weights as nn.Linear keeps them: down gathered by columns
    sparse_forward(layout, x, idx)  # the MLP reading only the units idx (k,)
    lines_touched(idx, d_model, d_ff)   # bytes of cache lines a column
                                        # gather and a row gather pull in
    decode_times(...)               # dense, column-gathered and unit-major
                                    # steps timed, weights cycled
"""

import itertools
from collections.abc import Callable
from typing import NamedTuple

import torch

from helpers import validate
from helpers.ffn import FFN
from helpers.gated import GatedMLP
from helpers.timing import fastest

CACHE_LINE = 64     # bytes a CPU reads from memory at a time


def projections(mlp):
    """(gate or None, up, down) of an FFN (c_fc, c_proj) or a GatedMLP (gate_proj, up_proj,
    down_proj)."""
    if isinstance(mlp, FFN):
        return None, mlp.c_fc, mlp.c_proj
    if isinstance(mlp, GatedMLP):
        return mlp.gate_proj, mlp.up_proj, mlp.down_proj
    raise TypeError("mlp must be an FFN (c_fc, c_proj) or a GatedMLP (gate_proj, up_proj, "
                    f"down_proj), got {type(mlp).__name__}")


class Layout(NamedTuple):
    """An MLP's weights for a sparse step. up and gate: (d_ff, d_model), a unit's weights one row.
    down: (d_ff, d_model) when unit_major, else c_proj's own (d_model, d_ff), a unit one column."""

    up: torch.Tensor
    up_bias: torch.Tensor | None
    gate: torch.Tensor | None
    gate_bias: torch.Tensor | None
    down: torch.Tensor
    down_bias: torch.Tensor | None
    act: Callable
    unit_major: bool

    @property
    def d_model(self):
        return self.up.shape[1]

    @property
    def d_ff(self):
        return self.up.shape[0]


def _layout(mlp, unit_major):
    gate, up, down = projections(mlp)
    with torch.no_grad():
        return Layout(up.weight.detach(), None if up.bias is None else up.bias.detach(),
                      None if gate is None else gate.weight.detach(),
                      None if gate is None or gate.bias is None else gate.bias.detach(),
                      down.weight.detach().T.contiguous() if unit_major else down.weight.detach(),
                      None if down.bias is None else down.bias.detach(),
                      mlp.act if gate is None else mlp.act_fn, unit_major)


def stored(mlp):
    """The MLP's weights as nn.Linear stores them: a unit's down weights are a column of c_proj."""
    return _layout(mlp, unit_major=False)


def unit_major(mlp):
    """A copy of the MLP's weights laid out unit by unit: c_proj's weight transposed once, so that a
    unit's down weights are one contiguous row (d_model numbers). Later edits of mlp are not
    seen."""
    return _layout(mlp, unit_major=True)


def sparse_forward(layout, x, idx):
    """The MLP's output reading only units idx (k,): their rows of up (and gate), and their down
    weights, gathered as columns (stored) or as rows (unit-major). x: (..., d_model)."""
    h = x @ layout.up.index_select(0, idx).T                      # (..., k): the active rows of up
    if layout.up_bias is not None:
        h = h + layout.up_bias[idx]
    if layout.gate is None:
        h = layout.act(h)
    else:
        g = x @ layout.gate.index_select(0, idx).T
        h = layout.act(g if layout.gate_bias is None else g + layout.gate_bias[idx]) * h
    # (k, d_model)
    down = layout.down.index_select(0, idx) if layout.unit_major else layout.down[:, idx].T
    out = h @ down
    return out if layout.down_bias is None else out + layout.down_bias


def lines_touched(idx, d_model, d_ff, dtype=torch.float32):
    """(column gather, row gather): bytes of the 64-byte cache lines that reading units idx's down
    weights pulls from memory. A column gather needs one line per row of c_proj for every block of
    64 bytes of columns holding an active unit; unit-major rows need k whole rows."""
    validate.tensor(idx, "idx")
    d_model, d_ff = validate.positive_int(d_model, "d_model"), validate.positive_int(d_ff, "d_ff")
    size = torch.empty(0, dtype=dtype).element_size()
    per_line = max(CACHE_LINE // size, 1)                          # neighbouring units in one line
    blocks = torch.unique(idx.long() // per_line).numel()
    # a row, rounded up to whole lines
    row_lines = -(-d_model * size // CACHE_LINE)
    return d_model * blocks * CACHE_LINE, len(idx) * row_lines * CACHE_LINE


def _random_ffn(d_model, d_ff, generator):
    """An FFN with nn.Linear's range of weights drawn from our generator (not the global one)."""
    # no init drawn from the global generator
    with torch.device("meta"):
        mlp = FFN(d_model, d_ff)
    mlp = mlp.to_empty(device="cpu")
    with torch.no_grad():
        for p in mlp.parameters():
            bound = p.shape[-1] ** -0.5 if p.ndim == 2 else d_model ** -0.5
            p.uniform_(-bound, bound, generator=generator)
    return mlp.requires_grad_(False)


def decode_times(offs, d_model=768, d_ff=3072, weight_bytes=256 * 2**20, rounds=9, seed=0):
    """{name: seconds per step} for one token through an FFN: 'dense', and for each share of units
    off, f'columns {off}' (the stored layout, down gathered by columns) and f'unit-major {off}'.

    Decode reads weights from memory: copies of the FFN, together weight_bytes or more (more than a
    laptop's last-level cache holds), are cycled, one copy a step. A random set of units per share.
    All variants are timed in interleaved rounds on one thread; each keeps its fastest block.
    """
    offs = [validate.non_negative_number(off, "off") for off in offs]
    if not offs or any(off >= 1 for off in offs):
        raise ValueError("offs must be shares of units off, each from 0 up to (not including) 1, "
                         f"got {offs}")
    d_model, d_ff = validate.positive_int(d_model, "d_model"), validate.positive_int(d_ff, "d_ff")
    weight_bytes = validate.positive_int(weight_bytes, "weight_bytes")
    if weight_bytes > 2 * 2**30:
        raise ValueError(f"weight_bytes is {weight_bytes:,}; keep it under 2 GiB (256 MiB already "
                         "leaves a laptop's cache)")
    g = torch.Generator().manual_seed(validate.non_negative_int(seed, "seed"))
    one = 4 * (2 * d_model * d_ff + d_ff + d_model)
    copies = [_random_ffn(d_model, d_ff, g) for _ in range(max(1, -(-weight_bytes // one)))]
    layouts = [(stored(m), unit_major(m)) for m in copies]
    x = torch.randn(d_model, generator=g)

    def cycled(step):
        turn = itertools.cycle(range(len(copies)))
        return lambda: step(next(turn))

    variants = {"dense": cycled(lambda i: copies[i](x))}
    for off in offs:
        idx = torch.randperm(d_ff, generator=g)[: max(1, round(d_ff * (1 - off)))].sort().values
        variants[f"columns {off}"] = cycled(
            lambda i, idx=idx: sparse_forward(layouts[i][0], x, idx))
        variants[f"unit-major {off}"] = cycled(
            lambda i, idx=idx: sparse_forward(layouts[i][1], x, idx))
    with torch.no_grad():
        return fastest(variants, rounds=validate.positive_int(rounds, "rounds"), threads=1)
