"""helpers.network3d: node positions, strongest edges, colours, and bad inputs."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers import network3d  # noqa: E402


def test_layer_positions_are_grids_one_plane_per_layer():
    pos = network3d.layer_positions([3, 16, 5], spacing=2.0)
    assert [p.shape for p in pos] == [(3, 3), (16, 3), (5, 3)]
    assert [set(p[:, 0]) for p in pos] == [{0.0}, {2.0}, {4.0}]
    assert len({tuple(row) for row in pos[1]}) == 16          # no two nodes in one place
    np.testing.assert_allclose(pos[1][:, 1:].mean(axis=0), 0)  # a full grid is centred
    with pytest.raises(ValueError, match=r"sizes\[1\] must be a positive integer, got 0"):
        network3d.layer_positions([3, 0])


def test_strongest_edges_rank_by_magnitude():
    W = np.array([[0.1, -0.9], [0.5, 0.2], [-0.3, 0.0]])
    rows, cols = network3d.strongest_edges(W, 3)
    assert sorted(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 1), (1, 0), (2, 0)]
    assert len(network3d.strongest_edges(W, 100)[0]) == 6      # k larger than W: every edge
    with pytest.raises(ValueError, match="W must be 2-D"):
        network3d.strongest_edges(W.ravel(), 2)


def test_edge_colors_sign_and_strength():
    rgba = network3d.edge_colors(np.array([1.0, -1.0, 0.25]))
    np.testing.assert_allclose(rgba[0, :3], network3d.POSITIVE)
    np.testing.assert_allclose(rgba[1, :3], network3d.NEGATIVE)
    assert rgba[0, 3] == rgba[1, 3] > rgba[2, 3]


def test_draw_counts_edges_and_refuses_mismatched_shapes():
    pos = network3d.layer_positions([2, 8])
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    W = np.arange(16.0).reshape(2, 8) - 8
    assert network3d.draw_edges(ax, pos[0], pos[1], W) == 16
    assert network3d.draw_edges(ax, pos[0], pos[1], W, k=5) == 5
    with pytest.raises(ValueError, match=r"expected \(2, 8\)"):
        network3d.draw_edges(ax, pos[0], pos[1], W.T)
    with pytest.raises(ValueError, match=r"expected \(8,\), one per node"):
        network3d.draw_nodes(ax, pos[1], np.zeros(7))
    network3d.frame(ax, pos, "a test")
    assert ax.get_title() == "a test" and ax.get_zlabel()
    plt.close(fig)


def test_columns_show_the_shape_and_cross_out_the_off_units():
    pos = network3d.column_positions([3, 12, 3], spacing=2.0)
    assert [p.shape for p in pos] == [(3, 2), (12, 2), (3, 2)]
    assert [set(p[:, 0]) for p in pos] == [{0.0}, {2.0}, {4.0}]
    assert np.ptp(pos[1][:, 1]) == 11 and np.ptp(pos[0][:, 1]) == 2  # one unit apart: heights 1 : 4 : 1
    assert all(p[:, 1].mean() == 0 for p in pos)                      # every column centred
    rng = np.random.default_rng(0)
    W1, W2 = rng.normal(size=(3, 12)), rng.normal(size=(12, 3))
    hidden = np.linspace(-1, 1, 12)
    off = hidden < 0
    fig, ax = plt.subplots()
    lit = network3d.draw_columns(ax, (W1, W2), hidden, off=off, k=5)
    assert lit.get_array().tolist() == hidden.tolist() and lit.get_clim() == (-1.0, 1.0)
    assert len(ax.collections) == 2 + 3 + 1                       # two edge sets, three layers, the crosses
    assert len(ax.collections[0].get_segments()) == 5            # the 5 strongest edges of W1
    with pytest.raises(ValueError, match=r"off has shape \(11,\); expected \(12,\)"):
        network3d.mark_off(ax, pos[1], off[:11])
    assert network3d.mark_off(ax, pos[1], np.zeros(12, dtype=bool)) == 0
    labels = [label for _, label in network3d.key(off=True)]
    assert labels == ["weight > 0", "weight < 0", "off: passes at most 10% of its input"]
    plt.close(fig)
