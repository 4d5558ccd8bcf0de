"""Checks for notebook 06's exercises (the GPT-3 parameter table).

1. A prediction: the MLP's share of the parameters one DeepSeek-V3 token uses.
2. `count_llama(config)`: the exact parameter count of a Llama-style config.json.
3. (stretch) `count_moe(config)`: (total, active) of a Mixtral-style config.json.

The reference of every count is the course's calculator, `helpers.config_params.count_params`.
One submodule per exercise: ex1_share_guess.py, ex2_count_llama.py and ex3_count_moe.py;
sizes.py holds the configs and sizes they compare.
"""

from helpers.checks.nb06_parameter_table.ex1_share_guess import check_share_guess
from helpers.checks.nb06_parameter_table.ex2_count_llama import check_count_llama
from helpers.checks.nb06_parameter_table.ex3_count_moe import check_count_moe
from helpers.checks.nb06_parameter_table.sizes import Sizes

__all__ = ["Sizes", "check_count_llama", "check_count_moe", "check_share_guess"]
