"""Checks for notebook 16's exercises (superposition and sparse autoencoders).

1. A prediction: how the number of features the toy model stores changes as they get sparser.
4. A prediction: which L1 weight lets an SAE recover the toy model's stored directions.
3. (stretch) `variance_explained(x, x_hat)`: the share of the variance an SAE's reconstruction
   keeps.
2. `SAE`: the learner's sparse autoencoder, an nn.Module with the reference's parameter names
   (W_enc, b_enc, W_dec, b_dec). The reference's weights are loaded into it, then its forward
   (x_hat, f), its loss(x, l1_coeff) and its normalise_decoder_() are compared with
   helpers.sae's, each on its own copy of the input: an input changed in place is named.

The checks live in one module per exercise or part of one:
- predictions: exercises 1 and 4;
- ex2_reference: exercise 2's reference SAE, its inputs and the variants learners write;
- ex2_forward, ex2_loss: the forward's check, and the loss's and normalise_decoder_'s mistakes;
- ex2_sae: exercise 2's check, check_sae;
- ex3_variance: exercise 3.
"""

from helpers.checks.nb16_superposition.ex2_sae import check_sae
from helpers.checks.nb16_superposition.ex3_variance import check_variance
from helpers.checks.nb16_superposition.predictions import check_l1_guess, check_stored_guess

__all__ = ["check_l1_guess", "check_sae", "check_stored_guess", "check_variance"]
