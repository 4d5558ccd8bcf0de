"""Every prediction of notebooks 01-17 with the attempts a learner writes: right answers written another way
(another type or rounding of the number, other case, spacing, punctuation or an obvious synonym of the
words) and wrong ones (the other choices, near misses, a percent for a fraction, the wrong unit, synonyms
of a wrong choice). Used by test_checks_right_variants.py and test_checks_prediction_attempts.py."""
import numpy as np
import torch

from helpers.checks import nb01_matrix_multiply as n01
from helpers.checks import nb02_activations as n02
from helpers.checks import nb03_ffn_forward as n03
from helpers.checks import nb04_network_3d as n04
from helpers.checks import nb05_swiglu_gate as n05
from helpers.checks import nb06_parameter_table as n06
from helpers.checks import nb07_position_wise as n07
from helpers.checks import nb08_the_block as n08
from helpers.checks import nb09_decode_bandwidth as n09
from helpers.checks import nb10_tensor_parallel as n10
from helpers.checks import nb11_mixture_of_experts as n11
from helpers.checks import nb12_kv_memory_editing as n12
from helpers.checks import nb13_real_gpt2 as n13
from helpers.checks import nb14_quantization as n14
from helpers.checks import nb15_activation_sparsity as n15
from helpers.checks import nb16_superposition as n16
from helpers.checks import nb17_fusing_the_mlp as n17

RATIO = 3 * 4096 * 11008 / (2 * 2048 * 8192)
# (id, check, actual, extra args, right variants, wrong attempts)
PREDICTIONS = [
    ("01 ex1", n01.check_rows_moved, 1, (), [1, 1.0, np.int64(1), np.float32(1), torch.tensor(1)],
     [0, 2, 3, 4, 5, 1.5, -1]),
    ("01 ex3", n01.check_time_guess, "falls", (),
     ["falls", "Falls.", " FALLS ", "decreases", "it falls", "goes down", "drops", "Decreasing", "falling",
      "gets smaller", "it goes down.", "shrinks", "lower", "falls!"],
     ["grows", "stays about the same", "rises", "increases", "stays the same", "constant", "goes up",
      "gets bigger", "Grows.", "the same", "higher", "more"]),
    ("02 ex1", n02.check_valley_guess, -0.7518, (), [-0.75, -0.8, -0.7, -3 / 4, np.float32(-0.75),
                                                     torch.tensor(-0.75), -0.76],
     [0, -1, -0.5, -1.28, -0.17, -2.0, 0.75, -3, -0.3]),
    ("03 ex1", n03.check_capacity_guess, 512, (), [512, 512.0, 2 ** 9, np.int64(512), torch.tensor(512)],
     [128, 256, 1024, 2048, 16, 64, 32, 500]),
    ("04 ex1", n04.check_off_share, 1543 / 3072, (), [0.5, 1 / 2, 0.50, np.float64(0.5), 0.45, 0.55,
                                                      torch.tensor(0.5), np.float32(0.5)],
     [50, 0.1, 0.0, 1.0, 0.25, 0.75, 1536, 0.9, 0.3, 0.01]),
    ("05 ex1", n05.check_gates_above_one, 644 / 49152, (), [0.013, 0.01, 0.015, 1.3e-2, 0.0135,
                                                            np.float32(0.013), 0.02],
     [0, 0.5, 1.3, 0.1, 0.16, 0.3, 644, 0.001, 1.0, 0.05]),
    ("06 ex1", n06.check_share_guess, 64.39, (), [64, 64.0, 65, 60, 66.7, np.float32(64.4), 64.39],
     [0.64, 98, 90, 24, 2.4, 37.6, 50, 100, 5.6, 0]),
    ("07 ex1", n07.check_token3_inputs, [1, 2, 3], (), [[1, 2, 3], (1, 2, 3), np.array([1, 2, 3]),
                                                        torch.tensor([1, 2, 3]), list(range(1, 4)), {1, 2, 3}, [3, 2, 1], (3, 1, 2)],
     [[3], [3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [2, 3], [0, 1, 2], 3, [1, 2], [6, 5, 4, 3]]),
    ("07 ex2", n07.check_linearity_guess, "linear in V only", (),
     ["linear in V only", "Linear in V only.", "linear in v only", " linear in V only ", "linear in V only!",
      "V only", "only V", "linear only in V", "Linear in V only", "linear in V, not in X"],
     ["linear in V and in X", "linear in X only", "linear in neither", "X only", "neither", "both",
      "linear in both", "Linear in neither.", "nonlinear", "linear in X", "only X"]),
    ("08 ex1", n08.check_stream_guess, 10.8, (), [10.8, 11, 10.5, 11.2, np.float32(10.8), torch.tensor(10.8),
                                                  (5.6 ** 2 + 48 * 1.33 ** 2) ** 0.5],
     [5.6, 69.4, 1.33, 63.8, 9.2, 0, 7.6, 38.5, 8, 15, 20, 24]),
    ("09 ex1", n09.check_layer_ratio, RATIO, (), [4.03125, 4.0, 4, RATIO, 4.03, np.float32(4.03), 3.9],
     [1.0, 2.0, 3.0, 8.0, 1.34, 0.25, 6.0, 403, 2.7]),
    ("10 ex1", n10.check_buffer_guess, 49152, (), [49152, 49_152, 8 * 768 * 8, 49152.0, np.int64(49152),
                                                   48 * 1024],
     [24576, 6144, 98304, 196608, 12288, 8 * 768, 49.152, 3072 * 8 * 8, 8 * 768 * 4]),
    ("11 ex1", n11.check_active_guess, 12.9, (), [12.9, 12.90, np.float32(12.9), torch.tensor(12.9),
                                                  np.float64(12.9)],
     [5.8, 11.7, 23.4, 46.7, 12.9e9, 46.7e9, 13, 14]),
    ("11 ex2", n11.check_experts_guess, 8, (), [8, 8.0, np.int64(8), torch.tensor(8)],
     [2, 4, 6, 7, 1, 16, 32, 3, 5]),
    ("12 ex2", n12.check_ablation_guess, "B", (), ["B", "b", " B ", "B.", "(B)", "b)", "option B", "B:"],
     ["A", "C", "a", "c.", "(A)", "D", "AB"]),
    ("13 ex2", n13.check_value_guess, "no", (False,), [("no", "yes"), ["no", "yes"], ("No", "Yes"), ("n", "y"),
                                                        ("no.", "yes."), (False, True), ("No.", " yes")],
     [("yes", "yes"), ("no", "no"), ("yes", "no"), "no", "yes", ("maybe", "yes"), (True, True)]),
    ("13 ex4", n13.check_undo_guess, "A", (), ["A", "a", "A.", " a ", "(A)", "option A", "A)"],
     ["B", "C", "b", "(C)", "c.", "D"]),
    ("14 ex2", n14.check_worse_guess, "B", (), ["B", "b", " B ", "B.", "(B)", "option B"],
     ["A", "a", "A.", "C", "(A)"]),
    ("14 ex3", n14.check_share_guess, 4_749_312 / 18_889_728, (), [0.25, 1 / 4, 0.251, 0.2514,
                                                                   np.float32(0.25), 0.252],
     [25, 0.5, 4, 0.125, 1.0, 0.2, 0.3, 0.0625, 0.75, 0.26]),
    ("15 ex1", n15.check_relu_guess, 56.0, (), [55, 56, 55.0, 50, 60, np.float32(55), 58.5],
     [0.55, 0.56, 10, 95, 99, 100, 0, 25, 5]),
    ("15 ex3", n15.check_saving_guess, 49.5, (), [49.5, 50, 49, 49.5e0, np.float32(49.5), 51],
     [0.495, 0.5, 100, 99.9, 25, 0, 75, 33, 66.7]),
    ("16 ex1", n16.check_stored_guess, "B", (), ["B", "b", " b", "B.", "(B)", "option B", "b)"],
     ["A", "C", "a", "c.", "D", "5"]),
    ("16 ex4", n16.check_l1_guess, "C", (), ["C", "c", "C.", " c ", "(C)", "option C"],
     ["A", "B", "a", "b.", "0.5", "D"]),
    ("17 ex1", n17.check_cross_guess, 384, (), [384, 384.0, 768 / 2, np.int64(384), 380, 388],
     [768, 1536, 512, 307, 1, 3072, 192, 96, 4]),
    ("17 ex4", n17.check_saved_share_guess, 22.9, (), [23, 22.9, 22.87, 23.0, 11008 / 48128 * 100,
                                                      np.float32(22.9)],
     [0.23, 0.229, 25, 20, 21.1, 80, 50, 100, 0, 46]),
]
