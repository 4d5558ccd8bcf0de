"""A sparse autoencoder (Bricken et al. 2023) and a transcoder (Dunefsky et al. 2024), with their
metrics.

SAE:  f = ReLU(W_enc (x - b_dec) + b_enc)   codes, (N, n_features), mostly zero
      x_hat = W_dec f + b_dec               reconstruction, (N, d_in)
loss = mean over the batch of ||x - x_hat||^2 (summed over d_in)
       + l1_coeff * mean over the batch of ||f||_1 (summed over the features).
W_dec's columns (one per feature) are kept at unit norm, so the L1 term cannot be dodged by
shrinking f and growing W_dec: after every step they are rescaled, and before it the part of
their gradient along themselves is removed (it would only change their length).
A transcoder reads the MLP's input and writes the MLP's output through the same sparse layer.
Their metrics, and the readings of notebook 12's fact model they train on, are in
helpers.sae_metrics (and named here too).
"""

import torch
from torch import nn

from helpers import validate
from helpers.sae_metrics import (  # noqa: F401 - exported
    as_rows,
    dead_features,
    facts_per_unit,
    l0,
    loss_recovered,
    mlp_activations,
    spliced_loss,
    variance_explained,
)
from helpers.sae_resample import resample_dead_


class SparseAutoencoder(nn.Module):
    """x (N, d_in) -> (x_hat (N, d_in), f (N, n_features)). W_enc (n_features, d_in), W_dec (d_in,
    n_features).

    d_out is for the Transcoder below, whose decoder writes another width than it reads.
    """

    def __init__(self, d_in, n_features, d_out=None, generator=None, dtype=torch.float32):
        super().__init__()
        d_in = validate.positive_int(d_in, "d_in")
        n_features = validate.positive_int(n_features, "n_features")
        d_out = d_in if d_out is None else validate.positive_int(d_out, "d_out")
        validate.float_dtype(dtype, "dtype")
        if generator is not None:
            validate.instance_of(generator, "generator", torch.Generator,
                                 "(torch.Generator().manual_seed(0))")
        # drawn in float64, then copied into the weights' dtype
        validate.affordable(n_features * (d_in + d_out)
                            * (8 + torch.empty((), dtype=dtype).element_size()),
                            f"a {type(self).__name__} of {n_features:,} features on {d_in:,} "
                            "inputs")
        W_dec = torch.randn(d_out, n_features, generator=generator, dtype=torch.float64)
        # unit columns: one direction per feature
        W_dec = W_dec / W_dec.norm(dim=0)
        W_enc = torch.randn(n_features, d_in, generator=generator, dtype=torch.float64)
        # an SAE starts with tied weights
        W_enc = W_dec.T if d_out == d_in else W_enc / d_in ** 0.5
        self.W_enc = nn.Parameter(W_enc.to(dtype).contiguous())
        self.b_enc = nn.Parameter(torch.zeros(n_features, dtype=dtype))
        self.W_dec = nn.Parameter(W_dec.to(dtype))
        self.b_dec = nn.Parameter(torch.zeros(d_out, dtype=dtype))

    def check_input(self, x):
        """Refuse x unless it is (N, d_in), in the weights' dtype and on their device."""
        validate.tensor(x, "x")
        validate.ndim(x, "x", 2)
        if x.shape[1] != self.W_enc.shape[1]:
            raise ValueError(f"x has {x.shape[1]} columns but this {type(self).__name__} expects "
                             f"d_in={self.W_enc.shape[1]}")
        validate.matches_weight(x, self.W_enc, type(self).__name__)

    def encode(self, x):
        """x (N, d_in) -> codes f (N, n_features), >= 0."""
        self.check_input(x)
        return torch.relu((x - self.b_dec) @ self.W_enc.T + self.b_enc)

    def decode(self, f):
        """codes f (N, n_features) -> (N, d_out): a sum of decoder columns, plus b_dec."""
        validate.tensor(f, "f")
        validate.ndim(f, "f", 2)
        if f.shape[1] != self.W_dec.shape[1]:
            raise ValueError(f"f has {f.shape[1]} columns but this {type(self).__name__} has "
                             f"n_features={self.W_dec.shape[1]}: one code per feature")
        validate.matches_weight(f, self.W_dec, type(self).__name__, name="f")
        return f @ self.W_dec.T + self.b_dec

    def forward(self, x):
        f = self.encode(x)
        return self.decode(f), f

    @torch.no_grad()
    def normalise_decoder_(self):
        """Rescale every column of W_dec to unit norm, in place."""
        self.W_dec /= self.W_dec.norm(dim=0).clamp(min=1e-12)

    @torch.no_grad()
    def remove_parallel_grad_(self):
        """Take from W_dec.grad, column by column, its component along W_dec (unit columns)."""
        if self.W_dec.grad is not None:
            along = (self.W_dec.grad * self.W_dec).sum(0)        # (n_features,) grad . column
            self.W_dec.grad -= along * self.W_dec


class Transcoder(SparseAutoencoder):
    """MLP input x (N, d_in) -> (MLP output estimate (N, d_out), f (N, n_features)); nothing
    subtracted first."""

    def __init__(self, d_in, n_features, d_out, generator=None, dtype=torch.float32):
        super().__init__(d_in, n_features, validate.positive_int(d_out, "d_out"), generator, dtype)

    def encode(self, x):
        """x (N, d_in) -> codes f (N, n_features): ReLU(W_enc x + b_enc)."""
        self.check_input(x)
        return torch.relu(x @ self.W_enc.T + self.b_enc)


def loss_terms(target, x_hat, f):
    """(reconstruction, l1): mean over the batch (axis 0) of sum_j (target - x_hat)_j^2 and of sum_i
    |f_i|."""
    return (target - x_hat).pow(2).sum(-1).mean(0), f.abs().sum(-1).mean(0)


def fit(module, inputs, targets, l1_coeff, steps, lr=3e-3, batch=None, generator=None,
        resample_every=None):
    """Adam on loss_terms, decoder columns kept at unit norm; returns losses (steps,).

    batch=None: every row each step; else `batch` rows drawn by `generator` each step.
    resample_every: every that many steps, the latents that fired on none of the rows seen since
    the last time are restarted (resample_dead_); None: never.
    """
    validate.instance_of(module, "module", SparseAutoencoder)
    inputs, targets = as_rows(inputs, "inputs"), as_rows(targets, "targets")
    if targets.shape != (len(inputs), module.W_dec.shape[0]):
        raise ValueError(f"targets must have shape ({len(inputs)}, {module.W_dec.shape[0]}): one "
                         f"row per input, the decoder's width; got {tuple(targets.shape)}")
    l1_coeff = validate.non_negative_number(l1_coeff, "l1_coeff")
    steps = validate.positive_int(steps, "steps")
    lr = validate.positive_number(lr, "lr")
    if batch is not None:
        batch = validate.positive_int(batch, "batch")
        validate.instance_of(generator, "generator", torch.Generator, "(needed with batch)")
    if resample_every is not None:
        resample_every = validate.positive_int(resample_every, "resample_every")
        generator = generator if generator is not None else torch.Generator().manual_seed(0)
    optimizer = torch.optim.Adam(module.parameters(), lr=lr)
    # read once at the end: no sync per step
    losses = torch.empty(steps, device=inputs.device)
    fired = torch.zeros(module.W_enc.shape[0], dtype=torch.bool, device=inputs.device)
    for step in range(steps):
        rows = slice(None) if batch is None else torch.randint(
            len(inputs), (batch,), generator=generator)
        x_hat, f = module(inputs[rows])
        if resample_every is not None:
            fired |= (f > 0).any(0)
            if (step + 1) % resample_every == 0 and step + 1 < steps:
                if not fired.all():
                    resample_dead_(module, inputs, targets, ~fired, generator, optimizer)
                    x_hat, f = module(inputs[rows])
                fired.zero_()
        reconstruction, l1 = loss_terms(targets[rows], x_hat, f)
        loss = reconstruction + l1_coeff * l1
        optimizer.zero_grad()
        loss.backward()
        # a column's length is not the optimiser's
        module.remove_parallel_grad_()
        optimizer.step()
        module.normalise_decoder_()
        losses[step] = loss.detach()
    return losses.cpu()


def _trainable(inputs, n_features, widths, batch):
    """Refuse sizes whose weights, gradients, Adam's two moments and a batch's codes would not
    fit."""
    rows = len(inputs) if batch is None else min(batch, len(inputs))
    elements = 4 * n_features * widths + 4 * rows * n_features
    validate.affordable(elements * inputs.element_size(),
                        f"training {n_features:,} features on {widths:,} widths")


def train_sae(acts, n_features, l1_coeff, steps=1000, seed=0, lr=3e-3, batch=128, dtype=None,
              resample_every=None):
    """An SAE trained on acts (N, d_in) from its own generator; returns (sae, losses (steps,)).

    b_dec starts at the mean of acts, so the encoder first sees centred inputs. Each step draws
    `batch` rows (None: all of them); the generator seeded with `seed` draws the start and the rows.
    """
    acts = as_rows(acts, "acts", dtype)
    n_features = validate.positive_int(n_features, "n_features")
    _trainable(acts, n_features, acts.shape[1], batch)
    seed = validate.non_negative_int(seed, "seed")
    generator = torch.Generator().manual_seed(seed)
    sae = SparseAutoencoder(acts.shape[1], n_features, generator=generator,
                            dtype=acts.dtype).to(acts.device)
    with torch.no_grad():
        sae.b_dec.copy_(acts.mean(0))
    return sae, fit(sae, acts, acts, l1_coeff, steps, lr, batch, generator, resample_every)


def train_transcoder(inputs, outputs, n_features, l1_coeff, steps=1000, seed=0, lr=3e-3, batch=128,
                     dtype=None):
    """A Transcoder from inputs (N, d_in) to outputs (N, d_out); returns (transcoder, losses
    (steps,))."""
    inputs, outputs = as_rows(inputs, "inputs", dtype), as_rows(outputs, "outputs", dtype)
    if len(inputs) != len(outputs):
        raise ValueError(f"inputs and outputs must hold the same number of rows, got {len(inputs)} "
                         f"and {len(outputs)}")
    n_features = validate.positive_int(n_features, "n_features")
    _trainable(inputs, n_features, inputs.shape[1] + outputs.shape[1], batch)
    seed = validate.non_negative_int(seed, "seed")
    generator = torch.Generator().manual_seed(seed)
    tc = Transcoder(inputs.shape[1], n_features, outputs.shape[1], generator=generator,
                    dtype=inputs.dtype).to(inputs.device)
    with torch.no_grad():
        tc.b_dec.copy_(outputs.mean(0))
    return tc, fit(tc, inputs, outputs, l1_coeff, steps, lr, batch, generator)




# Notebook 12's fact model -------------------------------------------------------------------------


