"""Deja Vu's predictor: which MLP units will be on, guessed from the MLP's input before it runs.

    predictor = LowRankPredictor(d_model, d_ff, rank)   # x (..., d_model) -> logits (..., d_ff)
    predictor.fit(x, active); predictor.predict(x)      # trained on exact sets; the set it guesses
    recall_precision(predicted, exact)                   # what it names of the on
                                                         # units, and how much else

helpers.sparsity re-exports both, beside the sets and bytes they are measured with.
"""

import torch
from torch import nn

from helpers import validate
from helpers.bandwidth import element_bytes
from helpers.device import cpu_threads


class LowRankPredictor(nn.Module):
    """Guesses which units will be on from the MLP's input: x (..., d_model) -> logits (..., d_ff).

    Deja Vu's MLP predictor, as in its released code: two linear maps without bias and with no
    activation between them, d_model -> rank -> d_ff, trained on the exact sets of a sample.
    """

    def __init__(self, d_model, d_ff, rank=16, seed=0):
        super().__init__()
        d_model, d_ff = (validate.positive_int(d_model, "d_model"),
                         validate.positive_int(d_ff, "d_ff"))
        rank, generator = validate.positive_int(rank, "rank"), torch.Generator()
        generator.manual_seed(validate.non_negative_int(seed, "seed"))
        self.to_rank = nn.utils.skip_init(nn.Linear, d_model, rank, bias=False)   # no draw from the
        self.to_units = nn.utils.skip_init(nn.Linear, rank, d_ff, bias=False)     # global generator
        with torch.no_grad():
            # nn.Linear's range, from our generator
            for layer in (self.to_rank, self.to_units):
                bound = layer.in_features ** -0.5
                layer.weight.uniform_(-bound, bound, generator=generator)

    def forward(self, x):
        validate.model_input(x, self.to_rank.in_features, "LowRankPredictor", self.to_rank.weight)
        return self.to_units(self.to_rank(x))

    def fit(self, x, active, steps=300, lr=1e-2):
        """Train on inputs x (N, d_model) and exact sets active (N, d_ff); return the loss per step.

        Full-batch Adam on binary cross-entropy in which an off unit weighs the share of on units
        (+0.005), as in Deja Vu's code: missing an active unit costs more than reading an extra one.
        """
        validate.model_input(x, self.to_rank.in_features, "LowRankPredictor", dims=2)
        try:
            validate.finite(x, "x")
        except ValueError as err:
            raise ValueError(
                f"{err}: trained on them the predictor's weights turn NaN too") from None
        validate.tensor(active, "active")
        if active.dtype != torch.bool or active.shape != (len(x), self.to_units.out_features):
            raise ValueError(f"active must be a bool mask (N, d_ff) = ({len(x)}, "
                             f"{self.to_units.out_features}), one row per input, got "
                             f"{active.dtype} {tuple(active.shape)}")
        steps, lr = validate.positive_int(steps, "steps"), validate.positive_number(lr, "lr")
        self.to(device=x.device, dtype=x.dtype)
        target = active.to(x.dtype)
        on = target.mean() + 0.005
        # 1 for on units, `on` for off ones
        weight = target * (1 - on) + on
        optimizer = torch.optim.Adam(self.parameters(), lr=lr)
        losses = []
        # small matmuls: a 2nd thread only waits
        with torch.enable_grad(), cpu_threads(1):
            for _ in range(steps):
                loss = nn.functional.binary_cross_entropy_with_logits(
                    self(x), target, weight=weight)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
        return losses

    def predict(self, x, threshold=0.5):
        """The predicted active set: bool (..., d_ff), probability >= threshold (Deja Vu uses
        0.5)."""
        threshold = validate.non_negative_number(threshold, "threshold")
        if threshold >= 1:
            raise ValueError("threshold is a fraction (a probability), from 0 up to (not "
                             f"including) 1, got {threshold}")
        with torch.no_grad():
            return torch.sigmoid(self(x)) >= threshold

    def n_bytes(self, dtype=torch.float32):
        """Bytes of its weights, read every step: rank * (d_model + d_ff) elements."""
        return element_bytes(dtype) * sum(p.numel() for p in self.parameters())


def recall_precision(predicted, exact):
    """(recall, precision) over every token: the share of on units predicted (a missed one changes
    the output), and the share of predicted units that are on (a wrong one costs bytes only)."""
    for name, mask in (("predicted", predicted), ("exact", exact)):
        validate.tensor(mask, name)
        if mask.dtype != torch.bool:
            raise TypeError(f"{name} must be a bool mask (from active_units or predict), got dtype "
                            f"{mask.dtype}")
    if predicted.shape != exact.shape:
        raise ValueError(f"predicted has shape {tuple(predicted.shape)} but exact has "
                         f"{tuple(exact.shape)}")
    hits, n_exact, n_predicted = ((predicted & exact).sum().item(), exact.sum().item(),
                                  predicted.sum().item())
    return hits / n_exact if n_exact else 1.0, hits / n_predicted if n_predicted else 1.0
