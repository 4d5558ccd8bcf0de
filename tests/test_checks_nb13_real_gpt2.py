"""Notebook 13's checks accept right answers and name typical mistakes."""

import pytest
import torch

pytest.importorskip("transformers")

from helpers import gpt2  # noqa: E402
from helpers.checks import nb13_real_gpt2 as checks  # noqa: E402
from helpers.ffn import FFN  # noqa: E402


def ffn_from(hf_mlp, activation="gelu_tanh", bias=True, copy_bias=True, transpose=True, dtype=None):
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    ffn = FFN(d_model, d_ff, activation=activation, bias=bias)
    with torch.no_grad():
        for name in ("c_fc", "c_proj"):
            mine, theirs = getattr(ffn, name), getattr(hf_mlp, name)
            mine.weight.copy_(theirs.weight.T if transpose else theirs.weight)
            if bias and copy_bias:
                mine.bias.copy_(theirs.bias)
    return ffn if dtype is None else ffn.to(dtype)


def by_state_dict(hf_mlp):
    """Another right answer: load a transposed state_dict, in float64 (replace_mlps casts it back)."""
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    ffn = FFN(d_model, d_ff, activation="gelu_tanh").double()
    state = {k: (v.T if k.endswith("weight") else v).double() for k, v in hf_mlp.state_dict().items()}
    ffn.load_state_dict(state)
    return ffn


def test_not_attempted():
    for fb in [checks.check_mlp_from_hf(None), checks.check_mlp_from_hf(lambda m: None),
               checks.check_restore_hook(None), checks.check_restore_hook(lambda c, p: None),
               checks.check_value_guess(None, "no"), checks.check_undo_guess(None, "A")]:
        assert fb.status == "not attempted" and "not attempted yet" in str(fb) and "Hint" not in str(fb)


@pytest.mark.parametrize("fn", [gpt2.mlp_from_hf, ffn_from, by_state_dict,
                                lambda m: ffn_from(m, dtype=torch.float64)])
def test_right_ways_to_load_the_mlp(fn):
    fb = checks.check_mlp_from_hf(fn)
    assert fb and str(fb).startswith("[correct] Exercise 1"), fb


def untransposed_parameters(hf_mlp):
    """Assigning Conv1D's weights as they are: no copy_, so no shape error until the forward pass."""
    ffn = ffn_from(hf_mlp)
    ffn.c_fc.weight = torch.nn.Parameter(hf_mlp.c_fc.weight.detach().clone())
    ffn.c_proj.weight = torch.nn.Parameter(hf_mlp.c_proj.weight.detach().clone())
    return ffn


@pytest.mark.parametrize("fn, words", [
    (lambda m: ffn_from(m, transpose=False), "square MLP"),
    (untransposed_parameters, "square MLP"),
    (lambda m: ffn_from(m, activation="gelu"), "exact GELU"),
    (lambda m: ffn_from(m, bias=False), "biases are not"),
    (lambda m: ffn_from(m, copy_bias=False), "biases are not"),
    (lambda m: ffn_from(m, activation="relu"), "differ from GPT-2's own"),
    (lambda m: m, "expected a course FFN"),
    (lambda m: torch.nn.Linear(2, 2), "expected a course FFN"),
    (lambda m: "ffn", "returned str"),
])
def test_mlp_mistakes_are_named(fn, words):
    fb = checks.check_mlp_from_hf(fn)
    assert fb.status == "wrong" and words in str(fb), fb


def test_the_untransposed_copy_of_a_4x_mlp_says_why_it_fails():
    calls = []

    def square_ok_then_untransposed(hf_mlp):
        calls.append(tuple(hf_mlp.c_fc.weight.shape))
        d_model, d_ff = hf_mlp.c_fc.weight.shape
        return ffn_from(hf_mlp) if d_model == d_ff else ffn_from(hf_mlp, transpose=False)

    fb = checks.check_mlp_from_hf(square_ok_then_untransposed)
    assert fb.status == "wrong" and "(in, out)" in str(fb) and ".T" in str(fb), fb
    assert (16, 16) in calls and (16, 64) in calls


def test_the_check_hands_out_copies():
    def spoil(hf_mlp):
        with torch.no_grad():
            hf_mlp.c_fc.weight.zero_()
        return gpt2.mlp_from_hf(hf_mlp)

    assert checks.check_mlp_from_hf(spoil).status == "wrong"
    assert checks.check_mlp_from_hf(gpt2.mlp_from_hf)    # the reference's model is untouched


def restore_maker(change):
    def restore(clean, position):
        def hook(module, inputs, output):
            return change(output.clone(), clean, position)
        return hook
    return restore


def set_all_runs(output, clean, position):
    output[:, position] = clean[position]
    return output


def in_place(clean, position):
    def hook(module, inputs, output):
        output[:, position] = clean[position]
    return hook


def with_a_mask(clean, position):
    def hook(module, inputs, output):
        mask = torch.zeros(output.shape[1], 1)
        mask[position] = 1.0
        return output * (1 - mask) + clean * mask
    return hook


@pytest.mark.parametrize("fn", [checks.restore, restore_maker(set_all_runs), in_place, with_a_mask])
def test_right_restoring_hooks(fn):
    fb = checks.check_restore_hook(fn)
    assert fb and str(fb).startswith("[correct] Exercise 3"), fb


def only_first_run(output, clean, position):
    output[0, position] = clean[position]
    return output


def everywhere(output, clean, position):
    output[:] = clean
    return output


def added(output, clean, position):
    output[:, position] += clean[position]
    return output


def last_position(output, clean, position):
    output[:, -1] = clean[-1]
    return output


@pytest.mark.parametrize("fn, words", [
    (restore_maker(lambda out, clean, p: out), "nothing was restored"),
    (lambda clean, position: (lambda m, i, out: None), "nothing was restored"),
    (restore_maker(everywhere), "every position"),
    (restore_maker(only_first_run), "first run"),
    (restore_maker(added), "added"),
    (restore_maker(last_position), "last position"),
    (lambda clean, position: 7, "not a hook"),
])
def test_restoring_mistakes_are_named(fn, words):
    fb = checks.check_restore_hook(fn)
    assert fb.status == "wrong" and words in str(fb), fb


def test_predictions():
    assert checks.check_value_guess("no", "no") and not checks.check_value_guess("yes", "no")
    assert "random weights store nothing" in str(checks.check_value_guess("yes", "no"))
    assert checks.check_value_guess("maybe", "no").status == "wrong"
    assert checks.check_undo_guess("A", "A") and not checks.check_undo_guess("B", "A")
    assert "bit for bit" in str(checks.check_undo_guess("C", "A"))


def test_checks_leave_the_global_generator_alone():
    state = torch.random.get_rng_state()
    exact_gelu = gpt2.mlp_from_hf        # builds on the meta device: no draw of its own
    checks.check_mlp_from_hf(lambda m: setattr(ffn := exact_gelu(m), "act", torch.nn.GELU()) or ffn)
    checks.check_restore_hook(restore_maker(only_first_run))
    assert torch.equal(state, torch.random.get_rng_state())
