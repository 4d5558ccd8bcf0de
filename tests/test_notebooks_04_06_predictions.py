"""Notebooks 04-06 as stored: nothing above a prediction's check states its answer, and 04's figure
titles fit without being wrapped."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"

# (notebook, the check's call, the answer as the notebook's run gives it, how it could be written)
PREDICTIONS = [
    ("04_network_3d", "checks.check_off_share(", [r"0\.50\d", r"50\.\d%", r"\b1,?543\b", r"about half", r"\bhalf of\b"]),
    ("05_swiglu_gate", "checks.check_gates_above_one(", [r"\b644\b", r"0\.013\b", r"1\.3%", r"\b1\.31%"]),
    ("06_parameter_table", "checks.check_share_guess(", [r"\b64(\.\d)?%", r"0\.64\b", r"\b24\.\dB\b"]),
]


def cells(name):
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())["cells"]


def text(cell):
    """A cell's source and its stored outputs, as a learner sees them before running anything."""
    parts = ["".join(cell["source"])]
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        data = out.get("data", {})
        parts.append("".join(data.get("text/plain", "")))
        parts += [meta.get("alt", "") for meta in out.get("metadata", {}).values() if isinstance(meta, dict)]
    return "\n".join(parts)


def above_check(name, call):
    found = cells(name)
    at = next(i for i, c in enumerate(found) if c["cell_type"] == "code" and call in "".join(c["source"]))
    # the solutions section is folded and comes last; the exercise's own markdown and hints are above
    return [(i, text(c)) for i, c in enumerate(found[:at])]


@pytest.mark.parametrize(("name", "call", "patterns"), PREDICTIONS)
def test_nothing_above_a_prediction_check_states_its_answer(name, call, patterns):
    for i, shown in above_check(name, call):
        for pattern in patterns:
            assert not re.search(pattern, shown), f"{name} cell {i} states the answer ({pattern}) above its check"


def test_notebook_04_scale_figure_title_fits_as_written():
    """The title of 04's scale figure (as stored) fits its figure on the two lines the cell writes:
    helpers.plots.fit_titles, which show() runs, finds nothing to wrap."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.plots import fit_titles

    cell = next(c for c in cells("04_network_3d") if c.get("id") == "9d3e5a03")
    alt = next(meta["alt"] for out in cell["outputs"] for meta in out.get("metadata", {}).values()
               if isinstance(meta, dict) and "alt" in meta)
    first, second = alt.removeprefix("Figure: ").split(": GELU ")
    title = f"{first}:\nGELU {second}"
    fig, ax = plt.subplots(figsize=(7.5, 4.0), layout="constrained")   # the cell's figure
    ax.set(xlabel="std(h), the scale of the pre-activations (log scale)", ylabel="share of the 3,072 units off")
    ax.set_title(title)
    fit_titles(fig)
    assert ax.get_title() == title, ax.get_title()
    plt.close(fig)
