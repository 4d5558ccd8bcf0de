"""Notebook 06's demo: readable parts, tiny ones merged into "other", shares on a 0-100% axis."""

import math

import pytest
from matplotlib.figure import Figure

from helpers import plots
from helpers.config_params import count_params, shipped_configs
from helpers.demos import nb06_parameter_table as demo


@pytest.mark.parametrize("model", shipped_configs())
def test_rows_are_readable_and_add_up_to_the_whole_model(model):
    b = count_params(model)
    rows = demo.rows(b)
    labels = [label for label, *_ in rows]
    assert all("_" not in label for label in labels), labels          # no raw variable names
    assert len(set(labels)) == len(labels)
    whole = [(label, share, count) for label, share, count, *_ in rows if label != demo.PER_TOKEN]
    assert sum(count for *_, count in whole) == b.total
    assert math.isclose(sum(share for _, share, _ in whole), 100.0, rel_tol=1e-12)
    for label, share, count in whole:
        assert count > 0, f"{model}: an empty row {label!r}"
        if not label.startswith("other"):
            assert share >= 100 * demo.TINY, f"{model}: {label!r} at {share:.2f}% belongs in 'other'"
    assert (demo.PER_TOKEN in labels) == (b.active != b.total)


def test_tiny_parts_are_merged_and_named():
    rows = {label: (share, count, note) for label, share, count, note, _ in demo.rows(count_params("gpt3-175b"))}
    assert set(rows) == {"attention layers", "MLP", "other (< 1% each)"}
    share, count, note = rows["other (< 1% each)"]
    assert note == ("token embedding", "position embedding", "norm weights", "unembedding matrix")
    assert 0.5 < share < 1.0
    mixtral = {label: share for label, share, *_ in demo.rows(count_params("mixtral-8x7b"))}
    assert round(mixtral[demo.PER_TOKEN], 1) == round(100 * count_params("mixtral-8x7b").mlp_active_share, 1)


@pytest.mark.parametrize("values", [{}, {"model": "deepseek-v3"}, {"model": "gpt2", "layer_scale": 4.0},
                                    {"model": "llama-3-8b", "d_scale": 0.25, "ff_scale": 4.0}])
def test_the_figure_has_a_0_to_100_percent_axis_and_labels(values):
    live = demo.make()
    fig = live.render(**values)
    assert isinstance(fig, Figure) and plots.unlabelled(fig) == []
    ax = fig.axes[0]
    assert ax.get_xlim() == (0.0, 100.0)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0%", "25%", "50%", "75%", "100%"]
    texts = [t.get_text() for t in ax.texts]
    assert texts and all("%" in t for t in texts) and not any(t.startswith("0.0%") for t in texts), texts
    assert "MLP" in ax.get_title()
