"""The checks' sentences in Korean: one module per notebook (nb03_ffn_forward.py, ...) and runners.py.

Each module holds MESSAGES = {English template: Korean template}; the templates keep the same
{names} (helpers.checks.language fills them).
"""
