"""The parameter counts published for the shipped configs (data/configs/published_counts.csv).

Each row: a config, a quantity (total, active, non_embedding), the number as published
("1,414,647,808", "7.61B", "671B") and where it was published. `agrees(count, published)`
says whether a count is that number: exactly for a number given to the unit, else within one
unit of its last digit (publishers round some counts and truncate others).
"""

import csv
from decimal import Decimal, InvalidOperation

from helpers import validate
from helpers.data import data_path

QUANTITIES = ("total", "active", "non_embedding")
_UNITS = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


def published_counts():
    """{config name: {quantity: (number as published, source)}}, e.g. ['qwen2.5-7b']['total']."""
    table = {}
    with open(data_path("configs/published_counts.csv"), newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["quantity"] not in QUANTITIES:
                raise ValueError(f"published_counts.csv: quantity {row['quantity']!r} for "
                                 f"{row['config']} is not one of {QUANTITIES}")
            table.setdefault(row["config"], {})[row["quantity"]] = (row["published"], row["source"])
    return table


def published_value(text):
    """(value, unit of the last digit): '7.61B' -> (7_610_000_000, 10_000_000), '1,024' -> (1024,
    1)."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"a published count must be text such as '7.61B', got {text!r}")
    digits, scale = text.strip().replace(",", ""), 1
    if digits[-1:].upper() in _UNITS:
        digits, scale = digits[:-1], _UNITS[digits[-1].upper()]
    try:
        number = Decimal(digits)
    except InvalidOperation:
        raise ValueError(f"cannot read the published count {text!r}") from None
    if not number.is_finite() or number < 0:
        raise ValueError(f"cannot read the published count {text!r}")
    step = Decimal(1).scaleb(number.as_tuple().exponent) * scale
    return int(number * scale), max(1, int(step))


def agrees(count, text):
    """True if count is the published number: equal at unit precision, else within one last
    digit."""
    validate.non_negative_int(count, "count")
    value, step = published_value(text)
    return count == value if step == 1 else abs(count - value) < step
