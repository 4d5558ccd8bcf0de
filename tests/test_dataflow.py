"""helpers.dataflow: the gated MLP's data-flow picture has every box, shape and arrow."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from helpers import dataflow, plots  # noqa: E402


@pytest.mark.parametrize("fused, boxes", [
    (False, ["gate_proj\n4 -> 8", "up_proj\n4 -> 8", "SiLU", "down_proj\n8 -> 4"]),
    (True, ["gate_up_proj\n4 -> 2 x 8", "SiLU", "down_proj\n8 -> 4"]),
])
def test_gated_mlp_draws_the_boxes_and_shapes(fused, boxes):
    fig, ax = plt.subplots(figsize=(9.0, 2.5))
    dataflow.gated_mlp(ax, d_model=4, d_ff=8, fused=fused)
    ax.set_title("a title")
    texts = [t.get_text() for t in ax.texts]
    assert [t for t in texts if t in boxes] == boxes                       # in data-flow order
    assert {"x\n(T, 4)", "out\n(T, 4)", "u (T, 8)", "g (T, 8)", "g * u\n(T, 8)"} <= set(texts)
    assert ("split" in texts) == fused and ("gate_proj\n4 -> 8" in texts) != fused
    assert len(ax.patches) == len(boxes)                                   # one rounded box each
    assert not ax.axison and plots.problems(fig) == []                     # no axes, all text >= 9 pt
    plt.close(fig)


def test_mlp_draws_up_activation_down_with_every_shape():
    fig, ax = plt.subplots(figsize=(9.0, 1.7))
    dataflow.mlp(ax, d_model=512, d_ff=2048, activation="ReLU", up="W1", down="W2")
    ax.set_title("a title")
    texts = [t.get_text() for t in ax.texts]
    boxes = ["up-projection\nW1: 512 -> 2048", "ReLU", "down-projection\nW2: 2048 -> 512"]
    assert [t for t in texts if t in boxes] == boxes                       # in data-flow order
    assert texts[0] == "x\n(T, 512)" and texts[-1] == "out\n(T, 512)"
    assert {"h (T, 2048)", "a (T, 2048)"} <= set(texts)
    assert len(ax.patches) == 3 and not ax.axison and plots.problems(fig) == []
    plt.close(fig)
