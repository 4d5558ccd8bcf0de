"""helpers.dataflow: the gated MLP's data-flow picture has every box, shape and arrow."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from helpers import dataflow, language, plots  # noqa: E402


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


def test_moe_routing_draws_each_tokens_experts_and_weights():
    fig, ax = plt.subplots(figsize=(9.5, 4.2))
    dataflow.moe_routing(ax, chosen=[[2, 1], [6, 2]], weights=[[0.52, 0.48], [0.61, 0.39]], n_experts=8)
    ax.set_title("a title")
    texts = [t.get_text() for t in ax.texts]
    assert {"token 0\nx (d_model)", "token 1\nx (d_model)", "expert 1", "expert 2", "expert 6"} <= set(texts)
    assert {f"expert {e} (idle)" for e in (0, 3, 4, 5, 7)} <= set(texts) and "expert 2 (idle)" not in texts
    assert ["0.52", "0.48", "0.61", "0.39"] == [t for t in texts if t.startswith("0.")]
    assert len(ax.patches) == 2 + 1 + 8 and not ax.axison and plots.problems(fig) == []
    with pytest.raises(ValueError, match="1 to 4 tokens"):
        dataflow.moe_routing(ax, chosen=[[0]] * 5, weights=[[1.0]] * 5, n_experts=2)
    plt.close(fig)


def test_moe_routing_speaks_korean_in_the_korean_edition():
    language.MISSES.clear()
    language.use("ko")
    try:
        with matplotlib.rc_context():
            plots.use_hangul_font()
            fig, ax = plt.subplots(figsize=(9.5, 4.2))
            dataflow.moe_routing(ax, chosen=[[2, 1]], weights=[[0.52, 0.48]], n_experts=4)
            texts = {t.get_text() for t in ax.texts}
            plt.close(fig)
    finally:
        language.use("en")
    assert {"토큰 0\nx (d_model)", "1번 expert", "2번 expert", "0번 expert (쉼)", "3번 expert (쉼)"} <= texts
    assert any(t.startswith("라우터") for t in texts) and any(t.startswith("출력 0") for t in texts)
    assert not language.MISSES, f"no Korean for {sorted(language.MISSES)}"


def test_key_value_pictures_name_keys_values_and_the_edit():
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9.5, 6.2))
    dataflow.kv_lookup(ax1, [(70, 2.59, "paris"), (66, 1.07, "lisbon")])
    dataflow.kv_edit(ax2, "france", "paris", "rome")
    ax1.set_title("a title")
    ax2.set_title("another")
    lookup = [t.get_text() for t in ax1.texts]
    assert {"key 70\nrow 70 of c_fc", "value 66\ncolumn 66 of c_proj\npromotes lisbon", "h = 2.59"} <= set(lookup)
    edit = " ".join(t.get_text() for t in ax2.texts)
    assert "'france'" in edit and "says paris" in edit and "says rome" in edit and "unchanged" in edit
    assert plots.problems(fig) == []
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
