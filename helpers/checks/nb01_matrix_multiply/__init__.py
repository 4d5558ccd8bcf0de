"""Checks for notebook 01's exercises (matrix multiply).

1. A prediction: how many rows of Z = X @ W move when row 3 of X changes.
2. X @ W written from dot products, with a count of the FLOPs it takes.
3. A prediction: how the time per token changes as the number of tokens grows.
4. (stretch) Two layers with biases and nothing in between, folded into one.

One submodule per exercise: ex1_rows.py, ex2_dot_products.py, ex3_time_per_token.py and
ex4_fold_layers.py; shared.py holds the FLOP count and the pair comparison they share.
"""

from helpers.checks.nb01_matrix_multiply.ex1_rows import EX1, check_rows_moved
from helpers.checks.nb01_matrix_multiply.ex2_dot_products import EX2, check_matmul_by_dots
from helpers.checks.nb01_matrix_multiply.ex3_time_per_token import EX3, check_time_guess
from helpers.checks.nb01_matrix_multiply.ex4_fold_layers import check_fold_layers
from helpers.checks.nb01_matrix_multiply.shared import matmul_flops

__all__ = [
    "EX1",
    "EX2",
    "EX3",
    "check_fold_layers",
    "check_matmul_by_dots",
    "check_rows_moved",
    "check_time_guess",
    "matmul_flops",
]
