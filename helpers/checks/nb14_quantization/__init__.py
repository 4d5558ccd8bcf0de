"""Checks for notebook 14's exercises (quantising the MLP).

1. `quantize(W, bits, group_size)` and `dequantize(q, scale)`: symmetric absmax quantisation per
   tensor, per output row or per group of k inputs, compared with helpers.quantize on cases that
   hold an all-zero row, a row with one huge weight, odd group sizes and more than 8 bits.
2. A prediction: which is worse on the trained fact model's MLP weights, int4 per tensor or int3
   per group of 64?
3. (stretch) A prediction: the share of float32's bytes that the int8 copy of an MLP takes.

The learner's functions get copies of each case; a function that changes the W (or q, scale) it
was given is named.

The checks live in one module per exercise:
- cases: exercise 1's W's, and the guard that names a function changing its input in place;
- ex1_quantize: quantize(W, bits, group_size) and its typical mistakes;
- ex1_dequantize: dequantize(q, scale), and check_quantize, which runs both;
- predictions: exercises 2 and 3.
"""

from helpers.checks.nb14_quantization.ex1_dequantize import check_quantize
from helpers.checks.nb14_quantization.predictions import check_share_guess, check_worse_guess

__all__ = ["check_quantize", "check_share_guess", "check_worse_guess"]
