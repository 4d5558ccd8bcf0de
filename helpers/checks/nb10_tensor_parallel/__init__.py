"""Checks for notebook 10's exercises (tensor parallelism).

1. A prediction: the bytes one worker hands to the all-reduce at N = 4.
2. Llama's gated MLP split over workers (gate and up by columns, down by rows) and
   the worker's forward with its one all-reduce: tried in one process first, where
   mistakes are easy to name, then for real in 2 processes (helpers.tensor_parallel.run).
3. (stretch) A ring all-reduce by hand, with the bytes each worker sends.

The checks live in one module per exercise or part of one:
- ex1_buffer: exercise 1;
- ex2_cases, ex2_split, ex2_forward: exercise 2's MLP and workers, its split's check, and its
  forward's check with check_llama_split, which runs both;
- ex3_ring, ex3_traffic, ex3_ring_all_reduce: exercise 3's recording ring, the sentences for its
  traffic, and its check.
"""

from helpers.checks.nb10_tensor_parallel.ex1_buffer import check_buffer_guess
from helpers.checks.nb10_tensor_parallel.ex2_forward import check_forward, check_llama_split
from helpers.checks.nb10_tensor_parallel.ex2_split import check_split
from helpers.checks.nb10_tensor_parallel.ex3_ring import Buffers, Ring
from helpers.checks.nb10_tensor_parallel.ex3_ring_all_reduce import check_ring_all_reduce

__all__ = ["Buffers", "Ring", "check_buffer_guess", "check_forward", "check_llama_split",
           "check_ring_all_reduce", "check_split"]
