"""helpers.sparsity against the dense MLP, bytes against hand counts, and bad inputs refused by name.

Every module is built on the meta device and filled from a local torch.Generator, so no test
draws from (or changes) the global generator; one test checks the helpers do not either.
"""

import numpy as np
import pytest
import torch

import helpers.sparsity as sp
from helpers import facts, hooks, kv_memory
from helpers.ffn import FFN
from helpers.gated import GatedMLP

F64 = torch.float64


def filled(module, seed, scale=0.5):
    """module with every parameter drawn from N(0, scale^2) by its own generator, in float64."""
    generator = torch.Generator().manual_seed(seed)
    module = module.to_empty(device="cpu").to(F64)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(scale * torch.randn(p.shape, generator=generator, dtype=F64))
    return module


def ffn(activation="relu", d_model=16, d_ff=64, seed=0):
    with torch.device("meta"):                                    # no draw from the global generator
        module = FFN(d_model, d_ff, activation=activation)
    return filled(module, seed)


def gated(d_model=16, d_ff=64, seed=0):
    with torch.device("meta"):
        module = GatedMLP(d_model, d_ff)
    return filled(module, seed)


def inputs(n=6, d_model=16, seed=1):
    return torch.randn(n, d_model, generator=torch.Generator().manual_seed(seed), dtype=F64)


def hidden(mlp, x):
    return mlp.act(mlp.c_fc(x))                                    # written out, not sp.hidden


def test_relu_sparse_forward_equals_the_dense_mlp():
    mlp, x = ffn("relu"), inputs()
    with torch.no_grad():
        active = sp.active_units(hidden(mlp, x))                   # (6, 64): ReLU's exact zeros are off
        dense = mlp(x)
        assert 0 < active.sum() < active.numel()
        tol = dict(rtol=0, atol=1e-12)
        torch.testing.assert_close(sp.sparse_mlp(x, mlp, active), dense, **tol)            # a set per token
        torch.testing.assert_close(sp.sparse_mlp(x[2], mlp, active[2]), dense[2], **tol)   # one token, mask
        indices = active[2].nonzero().flatten()
        torch.testing.assert_close(sp.sparse_mlp(x[2], mlp, indices), dense[2], **tol)     # one token, indices
        union = active.any(0)                                      # one set for the batch: still exact for ReLU
        torch.testing.assert_close(sp.sparse_mlp(x, mlp, union), dense, **tol)


def test_an_empty_set_is_refused_even_where_every_unit_is_off():
    mlp, x = ffn("relu"), inputs()
    with torch.no_grad():
        mlp.c_fc.bias.fill_(-100.0)                                # every pre-activation negative
        h = hidden(mlp, x)
        assert not sp.active_units(h).any()
        torch.testing.assert_close(mlp(x), mlp.c_proj.bias.expand_as(mlp(x)), rtol=0, atol=0)  # what is left
        for active in (torch.zeros(64, dtype=torch.bool), torch.tensor([], dtype=torch.long)):
            with pytest.raises(ValueError, match=r"active is empty: expected at least 1 of the d_ff=64 units"):
                sp.sparse_mlp(x[0], mlp, active)
        with pytest.raises(ValueError, match=r"active\[0\] is empty"):
            sp.sparse_mlp(x, mlp, sp.active_units(h))
        with pytest.raises(ValueError, match=r"active is empty"):
            sp.bytes_read(sp.active_units(h), 16, 64)


def test_a_per_token_set_names_the_token_that_has_no_unit():
    mlp, x = ffn("relu"), inputs()
    active = torch.ones(6, 64, dtype=torch.bool)
    active[4] = False
    with pytest.raises(ValueError, match=r"active\[4\] is empty: expected at least 1 .* got 0"):
        sp.sparse_mlp(x, mlp, active)


def test_gelu_sparse_forward_error_is_within_the_dropped_units_bound():
    mlp, x = ffn("gelu"), inputs()
    with torch.no_grad():
        h, dense = hidden(mlp, x), mlp(x)
        torch.testing.assert_close(sp.sparse_mlp(x, mlp, sp.active_units(h)), dense, rtol=0, atol=1e-12)
        column_norms = torch.linalg.vector_norm(mlp.c_proj.weight, dim=0)      # (d_ff,)
        for threshold in (0.05, 0.2, 0.5):
            active = sp.active_units(h, threshold)
            error = torch.linalg.vector_norm(sp.sparse_mlp(x, mlp, active) - dense, dim=-1)
            # the dropped units' terms h_i * c_proj[:, i], by the triangle inequality
            bound = (h.abs() * ~active * column_norms).sum(-1)
            assert torch.all(error <= bound + 1e-12), (threshold, error, bound)
            assert torch.all(error > 0)                             # GELU's small values are not zeros


def test_gated_sparse_forward_and_cats_agree_and_threshold_zero_is_exact():
    mlp, x = gated(), inputs()
    with torch.no_grad():
        dense = mlp(x)
        all_units = torch.ones(64, dtype=torch.bool)
        torch.testing.assert_close(sp.sparse_mlp(x, mlp, all_units), dense, rtol=0, atol=1e-12)
        gate = mlp.act_fn(mlp.gate_proj(x))
        torch.testing.assert_close(sp.hidden(x, mlp), gate * mlp.up_proj(x), rtol=0, atol=0)
        t = sp.calibrate_threshold(gate, 0.5)
        out, error = sp.cats(x, mlp, t)
        active = sp.active_units(gate, t, relative=False)
        assert active.double().mean() == 0.5                       # 192 of 384 values, no ties in random data
        torch.testing.assert_close(sp.sparse_mlp(x, mlp, active), out, rtol=0, atol=1e-12)
        torch.testing.assert_close(error, sp.relative_error(out, dense))
        assert torch.all(error > 0)
        assert torch.equal(sp.cats(x, mlp, 0.0)[1], torch.zeros(6, dtype=F64))
        assert torch.equal(sp.teal(x, mlp, 0.0)[1], torch.zeros(6, dtype=F64))
        out, error = sp.teal(x, mlp, sp.calibrate_threshold(x, 0.5))
        torch.testing.assert_close(out, mlp(torch.where(x.abs() > sp.calibrate_threshold(x, 0.5), x, 0.0)))
        assert torch.all(error > 0)


def test_active_units_and_sparsity_by_hand():
    h = torch.tensor([[0.0, 1.0, -0.5, 0.05, 2.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    assert sp.active_units(h).tolist() == [[False, True, True, True, True], [False] * 5]
    assert sp.active_units(h, 0.25).tolist()[0] == [False, True, False, False, True]   # |h| > 0.5
    assert sp.active_units(h, 0.5, relative=False).tolist()[0] == [False, True, False, False, True]
    assert sp.sparsity(h).tolist() == [0.2, 1.0]
    assert sp.sparsity(h, 0.25).tolist() == [0.6, 1.0]


def test_bytes_read_by_hand():
    three = torch.tensor([1, 4, 6])                                # k = 3 of d_ff = 8, d_model = 4
    # float32, no bias: dense 2*4*8 elements; exact: c_fc whole (8 rows of 4) + 3 columns of 4;
    # predicted: 3 rows + 3 columns of 4
    assert sp.bytes_read(three, 4, 8) == (256, 4 * (32 + 12), 4 * 24)
    # float16 with bias: each unit also has its c_fc bias; the c_proj bias (4) is read once
    assert sp.bytes_read(three, 4, 8, torch.float16, bias=True) == (2 * (8 * 9 + 4), 2 * (8 * 5 + 3 * 4 + 4),
                                                                   2 * (3 * 9 + 4))
    # gated, bfloat16: gate_proj whole to learn the set, then 3 rows of up_proj and 3 columns of down_proj
    assert sp.bytes_read(three, 4, 8, torch.bfloat16, gated=True) == (2 * 96, 2 * (32 + 24), 2 * 36)
    # a batch reads the union of its tokens' sets: {1, 4} and {4, 6}
    mask = torch.zeros(2, 8, dtype=torch.bool)
    mask[0, [1, 4]] = mask[1, [4, 6]] = True
    assert sp.bytes_read(mask, 4, 8) == sp.bytes_read(three, 4, 8)
    full = torch.ones(3072, dtype=torch.bool)                       # GPT-2 small's MLP, every unit on
    assert sp.bytes_read(full, 768, 3072, torch.float16) == (2 * 768 * 3072 * 2,) * 3
    one = torch.tensor([0])                                         # one unit on: c_fc whole, one column
    assert sp.bytes_read(one, 768, 3072, torch.float16) == (4718592 * 2, 2 * (768 * 3072 + 768), 2 * 2 * 768)
    result = sp.bytes_read(three, 4, 8)
    assert (result.dense, result.exact, result.predicted) == tuple(result)


def test_firing_frequency_and_hot_units_by_hand():
    active = torch.tensor([[1, 0, 0, 1], [1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 0, 0]], dtype=torch.bool)
    frequency = sp.firing_frequency(active)
    assert frequency.tolist() == [1.0, 0.5, 0.0, 0.25]
    assert sp.firing_frequency(active.reshape(2, 2, 4)).tolist() == frequency.tolist()
    # 7 firings in all: unit 0 holds 4 (57 %), units 0 and 1 hold 6 (86 %), with unit 3 all 7
    assert sp.hot_units(frequency, 0.5).tolist() == [0]
    assert sp.hot_units(frequency, 0.8).tolist() == [0, 1]
    assert sp.hot_units(frequency, 1.0).tolist() == [0, 1, 3]


def test_predictor_recovers_a_known_low_rank_structure():
    generator = torch.Generator().manual_seed(3)
    d_model, d_ff, rank = 16, 64, 4
    # the truth: unit i is on when (x @ V @ U)_i > 0, a rank-4 map from d_model to d_ff
    V = torch.randn(d_model, rank, generator=generator)
    U = torch.randn(rank, d_ff, generator=generator)
    x = torch.randn(1200, d_model, generator=generator)
    active = (x @ V @ U) > 0
    train, test = slice(0, 1000), slice(1000, None)
    predictor = sp.LowRankPredictor(d_model, d_ff, rank=rank, seed=0)
    losses = predictor.fit(x[train], active[train], steps=150, lr=0.05)
    assert len(losses) == 150 and losses[-1] < losses[0] / 4
    recall, precision = sp.recall_precision(predictor.predict(x[test]), active[test])
    assert recall > 0.95 and precision > 0.9, (recall, precision)             # 0.995 and 0.994 here
    assert predictor.n_bytes() == 4 * rank * (d_model + d_ff)
    assert predictor.n_bytes(torch.float16) == 2 * rank * (d_model + d_ff)
    again = sp.LowRankPredictor(d_model, d_ff, rank=rank, seed=0)   # its own generator: the same start
    assert torch.equal(again.to_units.weight, sp.LowRankPredictor(d_model, d_ff, rank, seed=0).to_units.weight)


def test_recall_precision_by_hand():
    exact = torch.tensor([[True, True, False, False], [True, False, False, False]])
    predicted = torch.tensor([[True, False, True, False], [True, False, False, True]])
    assert sp.recall_precision(predicted, exact) == (2 / 3, 2 / 4)
    nothing = torch.zeros(2, 4, dtype=torch.bool)
    assert sp.recall_precision(nothing, nothing) == (1.0, 1.0)      # nothing to miss, nothing read in vain


def test_calibrate_threshold_switches_off_the_asked_share():
    values = torch.tensor([-4.0, 3.0, -2.0, 1.0, 0.5, -0.25, 6.0, 5.0])
    assert sp.calibrate_threshold(values, 0.5) == 2.0
    assert sp.active_units(values, 2.0, relative=False).double().mean() == 0.5
    assert sp.calibrate_threshold(values, 0.0) == 0.0


def test_fact_model_records_and_sparse_forward():
    model, vocab = kv_memory.load()
    prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], list(range(8)))
    outputs = []
    with hooks.attached({block.mlp: lambda m, i, out: outputs.append(out) for block in model.blocks}):
        records = sp.record_mlps(model, prompts.idx)
    assert len(records) == len(outputs) == model.config.n_layers
    for block, (x, h), y in zip(model.blocks, records, outputs, strict=True):
        assert x.shape == (8, prompts.idx.shape[1], model.config.d_model)
        assert h.shape == (8, prompts.idx.shape[1], model.config.d_ff)
        with torch.no_grad():
            torch.testing.assert_close(block.mlp(x), y, rtol=0, atol=0)        # x is what the MLP read
            torch.testing.assert_close(h, block.mlp.act(block.mlp.c_fc(x)), rtol=0, atol=0)
            token = x[0, -1]
            dense = block.mlp(token)
            shares = [sp.sparsity(h, t).mean().item() for t in (0.0, 0.05, 0.1, 0.2)]
            assert shares == sorted(shares) and shares[-1] > 0.3, shares      # more off as the bar rises
            exact = sp.sparse_mlp(token, block.mlp, sp.active_units(h[0, -1]))
            torch.testing.assert_close(exact, dense, rtol=1e-5, atol=1e-6)   # float32: GELU drops only zeros


def test_no_global_random_state_is_touched():
    before = torch.get_rng_state()
    mlp, x = ffn("relu"), inputs()
    active = sp.active_units(hidden(mlp, x).detach())
    predictor = sp.LowRankPredictor(16, 64, rank=4, seed=5)
    predictor.fit(x.float(), active, steps=3)
    predictor.predict(x.float())
    sp.cats(x, gated(), 0.1)
    assert torch.equal(torch.get_rng_state(), before)


MLP = ffn("relu")
X1 = inputs(1)[0]
H = torch.zeros(3, 64)
BAD = [
    (lambda: sp.sparse_mlp(X1, MLP, torch.ones(65, dtype=torch.bool)), ValueError, r"active is a mask of 65 .*d_ff=64"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.ones(64)), TypeError, r"active must be a bool mask \(64,\) or integer"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([])), TypeError, r"active must be a bool mask \(64,\) .*got dtype torch.float32"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.zeros(64, dtype=torch.bool)), ValueError, r"active is empty: .*d_ff=64 .*got 0"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([], dtype=torch.long)), ValueError, r"active is empty"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([[0, 1]])), ValueError, r"2-D active must be a bool mask"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor(3)), ValueError, r"active must be 1-D, got 0-D"),
    (lambda: sp.bytes_read(torch.zeros(8, dtype=torch.bool), 4, 8), ValueError, r"active is empty: .*d_ff=8"),
    (lambda: sp.bytes_read(torch.zeros(3, 8, dtype=torch.bool), 4, 8), ValueError, r"active is empty"),
    (lambda: sp.bytes_read(torch.tensor([0.0, 1.0]), 4, 8), TypeError, r"active must be a bool mask \(8,\) or integer"),
    (lambda: sp.sparse_mlp(X1, MLP, [0, 1]), TypeError, r"active must be a torch tensor"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([0, 64])), ValueError, r"active holds the unit index 64 .*0 to 63"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([-1, 3])), ValueError, r"active holds the unit index -1"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.tensor([3, 3])), ValueError, r"active lists a unit more than once"),
    (lambda: sp.sparse_mlp(X1, MLP, torch.ones(2, 64, dtype=torch.bool)), ValueError, r"2-D active .*\(T, d_ff\)"),
    (lambda: sp.sparse_mlp(inputs(2), MLP, torch.ones(3, 64, dtype=torch.bool)), ValueError, r"\(2, 64\)"),
    (lambda: sp.sparse_mlp(torch.zeros(8, dtype=F64), MLP, torch.tensor([0])), ValueError, r"x has last dimension 8"),
    (lambda: sp.sparse_mlp(X1, torch.nn.Linear(16, 64), torch.tensor([0])), TypeError, r"mlp must be an FFN"),
    (lambda: sp.active_units(H, 1.0), ValueError, r"threshold is a fraction of the token's largest \|h\|, from 0 up to \(not including\) 1, got 1.0"),
    (lambda: sp.active_units(H, -0.1), ValueError, r"threshold must be a finite number >= 0"),
    (lambda: sp.active_units(H, float("nan")), ValueError, r"threshold must be a finite number"),
    (lambda: sp.active_units(H, 0.1, relative="no"), TypeError, r"relative must be True or False"),
    (lambda: sp.active_units(H.long(), 0.1), TypeError, r"h must be floating-point"),
    (lambda: sp.bytes_read(torch.tensor([0]), 0, 8), ValueError, r"d_model must be a positive integer"),
    (lambda: sp.bytes_read(torch.tensor([0]), 4, 8, "float32"), TypeError, r"dtype must be a torch.dtype"),
    (lambda: sp.bytes_read(torch.ones(9, dtype=torch.bool), 4, 8), ValueError, r"active is a mask of 9"),
    (lambda: sp.recall_precision(torch.ones(2, 4), torch.ones(2, 4, dtype=torch.bool)), TypeError, r"predicted must be a bool"),
    (lambda: sp.recall_precision(torch.ones(2, 4, dtype=torch.bool), torch.ones(2, 5, dtype=torch.bool)), ValueError,
     r"predicted has shape \(2, 4\) but exact has \(2, 5\)"),
    (lambda: sp.LowRankPredictor(16, 64, rank=0), ValueError, r"rank must be a positive integer"),
    (lambda: sp.LowRankPredictor(16, 64).predict(torch.zeros(16), 1.5), ValueError, r"threshold is a fraction \(a probability\)"),
    (lambda: sp.LowRankPredictor(16, 64).fit(torch.zeros(5, 16), torch.ones(5, 63, dtype=torch.bool)), ValueError,
     r"active must be a bool mask \(N, d_ff\) = \(5, 64\)"),
    (lambda: sp.firing_frequency(torch.ones(3, 4)), TypeError, r"active must be a bool mask"),
    (lambda: sp.hot_units(torch.ones(4), 0.0), ValueError, r"share must be a finite number > 0"),
    (lambda: sp.hot_units(torch.ones(4), 1.5), ValueError, r"share is a fraction of all firings, .*got 1.5"),
    (lambda: sp.LowRankPredictor(16, 64).fit(torch.zeros(5, 16).long(), torch.ones(5, 64, dtype=torch.bool)),
     TypeError, r"x must hold floating-point numbers"),
    (lambda: sp.record_mlps(torch.nn.Identity(), torch.zeros(1, 16), [torch.nn.Linear(16, 16)]), TypeError,
     r"mlp must be an FFN"),
    (lambda: sp.record_mlps(torch.nn.Identity(), torch.zeros(1, 16), [MLP]), ValueError, r"mlps\[0\] did not run"),
    (lambda: sp.calibrate_threshold(torch.ones(4), 1.0), ValueError, r"share is a fraction of the values to switch off, from 0 up to \(not including\) 1, got 1.0"),
    (lambda: sp.cats(X1, MLP, 0.1), TypeError, r"mlp must be a GatedMLP"),
    (lambda: sp.teal(X1, MLP, -1.0), ValueError, r"threshold must be a finite number >= 0"),
    # NaN and empty inputs that used to give an answer without a word
    (lambda: sp.sparsity(torch.tensor([[1.0, float("nan"), 0.5]])), ValueError, r"h holds 1 non-finite .*1 NaN.*neither on nor off"),
    (lambda: sp.active_units(torch.tensor([float("inf"), 1.0]), 0.1), ValueError, r"h holds 1 non-finite value"),
    (lambda: sp.hot_units(torch.tensor([0.5, float("nan")])), ValueError, r"frequency holds 1 non-finite .*share of tokens"),
    (lambda: sp.hot_units(torch.tensor([0.5, -0.2])), ValueError, r"frequency holds -0.2; .*from 0 to 1"),
    (lambda: sp.hot_units(torch.tensor([0.5, 1.5])), ValueError, r"frequency holds 1.5"),
    (lambda: sp.hot_units(torch.zeros(4)), ValueError, r"no unit fired"),
    (lambda: sp.hot_units(torch.ones(4, dtype=torch.long)), TypeError, r"frequency must be shares of tokens"),
    (lambda: sp.firing_frequency(torch.zeros(0, 8, dtype=torch.bool)), ValueError, r"active holds no token"),
    (lambda: sp.calibrate_threshold(torch.tensor([]), 0.5), ValueError, r"values is empty"),
    (lambda: sp.calibrate_threshold(torch.tensor([1.0, float("nan")]), 0.5), ValueError, r"values holds 1 non-finite"),
    (lambda: sp.relative_error(torch.ones(2, 3), torch.tensor([[1.0, 2, 3], [0, 0, 0]])), ValueError,
     r"exact is all zeros for token 1: an error relative to it is undefined"),
    (lambda: sp.LowRankPredictor(16, 64).fit(torch.full((5, 16), float("nan")), torch.ones(5, 64, dtype=torch.bool)),
     ValueError, r"x holds 80 non-finite .*predictor's weights turn NaN"),
    (lambda: sp.cats(torch.ones(2, 15, dtype=F64), gated(), 0.1), ValueError, r"x has last dimension 15 but this GatedMLP expects d_model=16"),
    (lambda: sp.cats(torch.ones(2, 16), gated(), 0.1), TypeError, r"x has dtype torch.float32 but this GatedMLP's weights are torch.float64"),
    (lambda: sp.cats(np.ones((2, 16)), gated(), 0.1), TypeError, r"x must be a torch tensor, got ndarray"),
    (lambda: sp.teal(np.ones((2, 16)), gated(), 0.1), TypeError, r"x must be a torch tensor, got ndarray"),
    (lambda: sp.teal(torch.ones(2, 15, dtype=F64), MLP, 0.1), ValueError, r"x has last dimension 15 but this FFN"),
]


@pytest.mark.parametrize("call, error, message", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_inputs_are_refused_by_name(call, error, message):
    with pytest.raises(error, match=message):
        call()
