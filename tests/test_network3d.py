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


def test_edges_show_sign_by_line_style_and_strength_by_opacity():
    """Colour is the nodes' alone: every edge is grey, its sign is solid or dashed."""
    w = np.array([1.0, -1.0, 0.25])
    rgba = network3d.edge_colors(w)
    np.testing.assert_allclose(rgba[:, :3], np.tile(network3d.EDGE_RGB, (3, 1)))   # one colour for both signs
    assert rgba[0, 3] == rgba[1, 3] > rgba[2, 3]
    assert network3d.edge_colors(w, fade=0.5)[0, 3] == 0.5 * rgba[0, 3]
    assert network3d.edge_styles(w) == [network3d.POSITIVE, network3d.NEGATIVE, network3d.POSITIVE]
    fig, ax = plt.subplots()
    pos = network3d.column_positions([1, 3])
    network3d.draw_edges(ax, pos[0], pos[1], w[None, :])
    (lines,) = ax.collections
    dashes = [offset_and_pattern[1] for offset_and_pattern in lines.get_linestyles()]
    assert dashes[0] is None and dashes[1] is not None and dashes[2] is None        # solid, dashed, solid
    widths = lines.get_linewidths()
    assert widths[0] == widths[1] > widths[2]                                          # |w| sets the width too
    with pytest.raises(ValueError, match=r"fade must be an opacity factor in \(0, 1\], got 2"):
        network3d.draw_edges(ax, pos[0], pos[1], w[None, :], fade=2)
    plt.close(fig)


def test_faces_lay_the_grids_side_by_side_at_one_scale():
    faces = network3d.face_positions([24, 96, 24], gap=2.0)
    assert [f.shape for f in faces] == [(24, 2), (96, 2), (24, 2)]
    widths = [np.ptp(f[:, 0]) for f in faces]
    heights = [np.ptp(f[:, 1]) for f in faces]
    assert widths == [4.0, 9.0, 4.0] and heights == [4.0, 9.0, 4.0]          # 5x5 and 10x10 grids, one step apart
    assert faces[1][:, 0].min() - faces[0][:, 0].max() == 2.0                # the gap between two grids
    assert faces[2][:, 0].min() - faces[1][:, 0].max() == 2.0
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots()
    drawn = network3d.draw_faces(ax, [rng.normal(size=(24, 96)), rng.normal(size=(96, 24))], k=10)
    assert all(np.array_equal(a, b) for a, b in zip(drawn, network3d.face_positions([24, 96, 24]), strict=True))
    assert [len(c.get_segments()) for c in ax.collections[:2]] == [10, 10]   # the 10 strongest of each matrix
    assert len(ax.get_xticks()) == 3
    with pytest.raises(TypeError, match="weights must be a list of weight matrices"):
        network3d.draw_faces(ax, np.ones((2, 3)))
    plt.close(fig)


def test_project_matches_the_view_of_view_init():
    points = np.eye(3)                                     # the x, y and z unit vectors
    side, depth = network3d.project(points, elev=0, azim=-90)
    np.testing.assert_allclose(side, [[1, 0], [0, 0], [0, 1]], atol=1e-12)   # x right, y into the screen, z up
    np.testing.assert_allclose(depth, [0, -1, 0], atol=1e-12)                # +y is away from the viewer
    top, _ = network3d.project(points, elev=90, azim=-90)
    np.testing.assert_allclose(top, [[1, 0], [0, 1], [0, 0]], atol=1e-12)    # from above: y points up the screen
    screen, depth = network3d.project(np.random.default_rng(1).normal(size=(50, 3)), elev=22, azim=-58)
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d", proj_type="ortho")
    ax.view_init(elev=22, azim=-58)
    ax.set(xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1))
    ax.set_box_aspect((1, 1, 1))
    # matplotlib's own orthographic projection of the same points: equal to ours up to one scale and shift
    from mpl_toolkits.mplot3d import proj3d
    xs, ys, _ = proj3d.proj_transform(*np.random.default_rng(1).normal(size=(50, 3)).T, ax.get_proj())
    theirs = np.column_stack([xs, ys])
    fit, *_ = np.linalg.lstsq(np.column_stack([screen, np.ones(50)]), theirs, rcond=None)
    np.testing.assert_allclose(np.column_stack([screen, np.ones(50)]) @ fit, theirs, atol=1e-9)
    np.testing.assert_allclose(fit[:2] / fit[0, 0], np.eye(2), atol=1e-9)    # no rotation or shear between the two
    with pytest.raises(ValueError, match=r"points must have shape \(n, 3\)"):
        network3d.project(np.ones((4, 2)))
    plt.close(fig)


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
