"""Checks for notebook 15's exercises (activation sparsity in serving).

1. A prediction: the share of a ReLU MLP's hidden units that are exactly 0 for one token.
2. `sparse_mlp(x, mlp, active)`: the MLP's output reading only the active units' rows of c_fc and
   columns of c_proj; compared with helpers.sparsity.sparse_mlp, which for ReLU and the set of
   nonzero units equals the dense MLP.
3. (stretch) A prediction: the most a decode step can save without a predictor.

The learner's function first runs on copies of each case that the check looks at afterwards: an
input (x, active) or a weight changed in place is named. Then it runs under a torch function mode
(helpers.checks.weight_reads) that sees which weights it reads whole: a dense forward followed by
`h * mask` gives the right numbers but reads every weight, and is named; so are indices of the wrong
shape or axis. A wrong guess far from the answer is named too (GELU's share for ReLU's; c_fc counted
as skipped).

The checks live in one module per idea:
- predictions: exercises 1 and 3;
- ex2_cases: exercise 2's MLPs, inputs and sets of active units;
- ex2_mistakes: the wrong sparse forwards exercise 2 names;
- ex2_sparse_mlp: exercise 2's check.
"""

from helpers.checks.nb15_activation_sparsity.ex2_sparse_mlp import check_sparse_mlp
from helpers.checks.nb15_activation_sparsity.predictions import check_relu_guess, check_saving_guess

__all__ = ["check_relu_guess", "check_saving_guess", "check_sparse_mlp"]
