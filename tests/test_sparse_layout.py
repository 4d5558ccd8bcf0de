"""helpers.sparse_layout: the unit-major copy gives the stored layout's numbers, the cache lines each
gather pulls in are counted by hand, and the decode timing refuses what it cannot measure."""

import pytest
import torch
from test_sparsity import F64, ffn, gated, inputs

import helpers.sparsity as sp
from helpers import sparse_layout as sl


@pytest.mark.parametrize("make", [lambda: ffn("gelu"), gated])
def test_unit_major_gives_the_stored_layouts_output(make):
    mlp, x = make(), inputs()
    layout = sl.unit_major(mlp)
    assert layout.unit_major and layout.down.shape == (64, 16) and layout.down.is_contiguous()
    torch.testing.assert_close(layout.down, sl.projections(mlp)[2].weight.T, rtol=0, atol=0)
    idx = torch.tensor([1, 5, 9, 40])
    with torch.no_grad():
        torch.testing.assert_close(sp.sparse_mlp(x, layout, idx), sp.sparse_mlp(x, mlp, idx), rtol=0, atol=1e-12)
        torch.testing.assert_close(sl.sparse_forward(layout, x, idx), sl.sparse_forward(sl.stored(mlp), x, idx),
                                   rtol=0, atol=1e-12)
        every = torch.arange(64)
        torch.testing.assert_close(sp.sparse_mlp(x, layout, every), mlp(x), rtol=0, atol=1e-12)


def test_unit_major_is_a_copy_made_once():
    mlp = ffn("relu")
    layout = sl.unit_major(mlp)
    with torch.no_grad():
        mlp.c_proj.weight.zero_()
    assert layout.down.abs().sum() > 0                             # made at load time, not a view


def test_a_per_token_set_runs_on_the_unit_major_copy():
    mlp, x = ffn("relu"), inputs()
    with torch.no_grad():
        active = sp.active_units(mlp.act(mlp.c_fc(x)))
        torch.testing.assert_close(sp.sparse_mlp(x, sl.unit_major(mlp), active), mlp(x), rtol=0, atol=1e-12)


def test_lines_touched_by_hand():
    # d_ff 64 float32: 16 units share a 64-byte line of each row of c_proj (d_model 4 rows)
    columns, rows = sl.lines_touched(torch.tensor([0, 1, 17]), d_model=4, d_ff=64)
    assert columns == 4 * 2 * 64                                   # blocks 0 and 1, in each of the 4 rows
    assert rows == 3 * 64                                          # a row of 4 float32 is 16 bytes: one line each
    columns, rows = sl.lines_touched(torch.arange(0, 64, 16), d_model=32, d_ff=64, dtype=F64)
    assert columns == 32 * 4 * 64 and rows == 4 * 4 * 64           # 8 doubles a line; a row of 32 is 4 lines


def test_decode_times_names_each_variant():
    times = sl.decode_times([0.5], d_model=8, d_ff=32, weight_bytes=1, rounds=1)
    assert set(times) == {"dense", "columns 0.5", "unit-major 0.5"} and all(t > 0 for t in times.values())


@pytest.mark.parametrize("call, error, message", [
    (lambda: sl.decode_times([1.0]), ValueError, r"offs must be shares of units off"),
    (lambda: sl.decode_times([]), ValueError, r"offs must be shares"),
    (lambda: sl.decode_times([0.5], weight_bytes=2**40), ValueError, r"weight_bytes is .*under 2 GiB"),
    (lambda: sl.lines_touched([0, 1], 4, 8), TypeError, r"idx must be a torch tensor"),
    (lambda: sl.unit_major(torch.nn.Linear(4, 4)), TypeError, r"mlp must be an FFN"),
])
def test_bad_inputs_are_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
