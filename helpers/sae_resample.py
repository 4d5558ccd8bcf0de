"""Dead latents and Bricken et al. 2023's fix for them: resampling.

A latent (a feature of an SAE or a transcoder) that fires on no input gets no gradient from the
reconstruction and never comes back: it is dead. Bricken et al. restart such latents a few times
during training, each on an input the dictionary rebuilds badly, and reset Adam's memory of them.
`helpers.sae.fit(..., resample_every=k)` calls `resample_dead_` every k steps on the latents that
fired on none of the rows seen since the last time.
"""

import torch


@torch.no_grad()
def resample_dead_(module, inputs, targets, dead, generator, optimizer=None):
    """Bricken et al. 2023's fix for dead latents: restart each on an input the module rebuilds
    badly.

    Inputs are drawn with probability proportional to their squared error; a dead latent's decoder
    column becomes that input's target minus b_dec, at unit length; its encoder row the direction
    the encoder reads (for an SAE the same, for a transcoder the input itself) at 0.2 times the live
    rows' mean length; its b_enc 0; and Adam forgets their moments. dead: (n_features,) bool.
    """
    errors = (targets - module(inputs)[0]).pow(2).sum(-1)                       # (N,)
    rows = torch.multinomial(errors / errors.sum(), int(dead.sum()), replacement=True,
                             generator=generator)
    written = _unit(targets[rows] - module.b_dec)                                # (n_dead, d_out)
    autoencoder = inputs.shape == targets.shape and torch.equal(inputs, targets)
    read = written if autoencoder else _unit(inputs[rows])                       # (n_dead, d_in)
    live = module.W_enc[~dead].norm(dim=-1).mean() if (~dead).any() else 1.0
    module.W_dec[:, dead] = written.T.to(module.W_dec)
    module.W_enc[dead] = (0.2 * live * read).to(module.W_enc)
    module.b_enc[dead] = 0
    for p, index in ((module.W_dec, (slice(None), dead)), (module.W_enc, dead),
                     (module.b_enc, dead)):
        for moment in (optimizer.state.get(p, {}) if optimizer else {}).values():
            if isinstance(moment, torch.Tensor) and moment.shape == p.shape:
                moment[index] = 0


def _unit(rows):
    """Each row at length 1."""
    return rows / rows.norm(dim=-1, keepdim=True).clamp(min=1e-12)
