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
               checks.check_value_guess(None, "no", False), checks.check_undo_guess(None, "A")]:
        assert fb.status == "not attempted" and "not attempted yet" in str(fb) and "Hint" not in str(fb)


@pytest.mark.parametrize("fn", [ffn_from, by_state_dict,
                                lambda m: ffn_from(m, dtype=torch.float64)])
def test_right_ways_to_load_the_mlp(fn):
    fb = checks.check_mlp_from_hf(fn)
    assert fb and str(fb).startswith("[correct] Exercise 1"), fb


def half_transposed(hf_mlp, which):
    """Only `which` of the two weights transposed: a square MLP loads it without an error."""
    ffn = ffn_from(hf_mlp)
    other = "c_proj" if which == "c_fc" else "c_fc"
    with torch.no_grad():
        getattr(ffn, other).weight.copy_(getattr(hf_mlp, other).weight)
    return ffn


def crossed(hf_mlp, transpose):
    """c_fc's weight from hf_mlp.c_proj and c_proj's from hf_mlp.c_fc (shapes fit when not transposed)."""
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    ffn = FFN(d_model, d_ff, activation="gelu_tanh")
    with torch.no_grad():
        for mine, theirs in (("c_fc", "c_proj"), ("c_proj", "c_fc")):
            weight = getattr(hf_mlp, theirs).weight
            getattr(ffn, mine).weight.copy_(weight.T if transpose else weight)
            getattr(ffn, mine).bias.copy_(getattr(hf_mlp, mine).bias)
    return ffn


def swapped_sizes(hf_mlp):
    """d_ff, d_model = c_fc.weight.shape: right in the square MLP, a shape error in the 4x one."""
    d_ff, d_model = hf_mlp.c_fc.weight.shape
    ffn = FFN(d_model, d_ff, activation="gelu_tanh")
    with torch.no_grad():
        ffn.c_fc.weight.copy_(hf_mlp.c_fc.weight.T)
        ffn.c_fc.bias.copy_(hf_mlp.c_fc.bias)
        ffn.c_proj.weight.copy_(hf_mlp.c_proj.weight.T)
        ffn.c_proj.bias.copy_(hf_mlp.c_proj.bias)
    return ffn


def square_ok_then_half_transposed(hf_mlp):
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    return ffn_from(hf_mlp) if d_model == d_ff else half_transposed(hf_mlp, "c_fc")


def square_ok_then_biases_crossed(hf_mlp):
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    ffn = ffn_from(hf_mlp)
    if d_model != d_ff:
        with torch.no_grad():
            ffn.c_proj.bias.copy_(hf_mlp.c_fc.bias)
    return ffn


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
    (lambda m: ffn_from(m, activation="relu"), "activation is ReLU"),
    (lambda m: ffn_from(m, activation="silu"), "activation is SiLU"),
    (lambda m: half_transposed(m, "c_fc"), "c_fc's weight was transposed but c_proj's went in as stored"),
    (lambda m: half_transposed(m, "c_proj"), "c_proj's weight was transposed but c_fc's went in as stored"),
    (lambda m: crossed(m, transpose=False), "hf_mlp.c_proj.weight, (d_ff, d_model) as Conv1D stores it"),
    (lambda m: crossed(m, transpose=True), "c_fc got hf_mlp.c_proj's weight"),
    (swapped_sizes, "built with d_model and d_ff swapped, as FFN(64, 16)"),
    (square_ok_then_half_transposed, "hf_mlp.c_proj.weight went in as Conv1D stores it, (in, out) = (64, 16)"),
    (square_ok_then_half_transposed, "You transposed the other weight"),
    (square_ok_then_biases_crossed, "hf_mlp.c_fc.bias has 64 entries but went into a bias of (16,)"),
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
        return ffn_from(hf_mlp)

    assert checks.check_mlp_from_hf(spoil).status == "wrong"
    assert checks.check_mlp_from_hf(ffn_from)    # the reference's model is untouched


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


def run_dimension(output, clean, position):
    output[position] = clean[position]
    return output


def diagonal(output, clean, position):
    runs = torch.arange(len(output))
    output[runs, runs] = clean[: len(output)]
    return output


def into_clean(output, clean, position):
    clean[position] = output[0, position]      # the clean cache patched; the corrupted run left alone
    return output


def column_of_clean(output, clean, position):
    output[:, position] = clean[:, position]    # clean is (T, d_model): that is a column
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
    (restore_maker(lambda out, clean, p: set_all_runs(out, clean, p + 1)), "position + 1"),
    (restore_maker(run_dimension), "picks run `position` of the batch"),
    (restore_maker(diagonal), "output[i, i]"),
    (restore_maker(into_clean), "wrote into `clean`"),
    (restore_maker(lambda out, clean, p: set_all_runs(out, clean, p)[:, p]), "replaces the module's whole output"),
    (restore_maker(column_of_clean), "clean[position] is the (d_model,) vector"),
    (lambda clean, position: 7, "not a hook"),
])
def test_restoring_mistakes_are_named(fn, words):
    fb = checks.check_restore_hook(fn)
    assert fb.status == "wrong" and words in str(fb), fb


def test_predictions():
    assert checks.check_value_guess(("no", "yes"), "no", False)
    assert checks.check_value_guess(["No", " yes"], "no", False)
    assert checks.check_value_guess(("no", "yes"), "yes", True)
    named = {("yes", "yes"): "Random weights store nothing", ("no", "no"): "Trained values do promote",
             ("yes", "no"): "Both halves are the wrong way round"}
    for real, measured in ((False, "no"), (True, "yes")):
        for guess, words in named.items():
            fb = checks.check_value_guess(guess, measured, real)
            assert not fb and words in fb.message, (guess, real, fb.message)
    fb = checks.check_value_guess(("no", "no"), "no", False)
    assert "on the model running now the answer is 'no'" in fb.message   # the half this run measures
    fb = checks.check_value_guess("no", "no", False)
    assert not fb and "one answer; the question asks for two" in fb.message
    assert checks.check_value_guess("maybe", "no", False).status == "wrong"
    assert checks.check_undo_guess("A", "A") and not checks.check_undo_guess("B", "A")
    assert "bit for bit" in str(checks.check_undo_guess("C", "A"))
    assert "undoing by arithmetic" in checks.check_undo_guess("B", "A").message
    assert "leaves a trace" in checks.check_undo_guess("C", "A").message


def test_checks_leave_the_global_generator_alone():
    state = torch.random.get_rng_state()
    exact_gelu = gpt2.mlp_from_hf        # builds on the meta device: no draw of its own
    checks.check_mlp_from_hf(lambda m: setattr(ffn := exact_gelu(m), "act", torch.nn.GELU()) or ffn)
    checks.check_restore_hook(restore_maker(only_first_run))
    assert torch.equal(state, torch.random.get_rng_state())


def shared_views(hf_mlp):
    """Right numbers, but the FFN's weights are views of GPT-2's own tensors."""
    ffn = ffn_from(hf_mlp)
    ffn.c_fc.weight = torch.nn.Parameter(hf_mlp.c_fc.weight.T)
    ffn.c_proj.weight = torch.nn.Parameter(hf_mlp.c_proj.weight.T)
    return ffn


def nothing_copied(hf_mlp):
    d_model, d_ff = hf_mlp.c_fc.weight.shape
    return FFN(d_model, d_ff, activation="gelu_tanh")


@pytest.mark.parametrize("fn, words", [
    (gpt2.mlp_from_hf, "course's own gpt2.mlp_from_hf"),
    (lambda m: gpt2.mlp_from_hf(m), "course's own gpt2.mlp_from_hf"),
    (shared_views, "share memory with GPT-2's own tensors"),
    (nothing_copied, "nothing was copied"),
])
def test_answers_that_are_not_the_learners_own_copy_are_named(fn, words):
    fb = checks.check_mlp_from_hf(fn)
    assert fb.status == "wrong" and words in str(fb), str(fb)
    assert "biases are not" not in str(fb)


def test_my_neuron_is_read_as_a_person_writes_it(capsys):
    for written in [(10, 5), [10, 5], "neuron 10.5", "10.5", "(10, 5)", (torch.tensor(10), 5.0)]:
        assert checks.neuron_picked(written, 12, 3072, default=(1, 2)) == (10, 5), written
    assert capsys.readouterr().out == ""
    assert checks.neuron_picked(None, 12, 3072, default=(1, 2)) == (1, 2)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("written, words", [
    ((12, 5), "blocks are 0 to 11"),
    ((3, 3072), "units are 0 to 3071"),
    ("the fifth one", "is not a neuron"),
    (10.5, "is not a neuron"),
])
def test_a_neuron_that_is_not_one_is_named_and_replaced(capsys, written, words):
    assert checks.neuron_picked(written, 12, 3072, default=(1, 2)) == (1, 2)
    out = capsys.readouterr().out
    assert out.startswith("[not yet] Exercise 2") and words in out and "neuron 1.2 instead" in out, out


def test_the_value_bar_is_one_random_weights_clear_rarely():
    scipy_stats = pytest.importorskip("scipy.stats")
    neurons, p = 12 * 256, 10 / 50257                  # GPT-2 small, as the notebook counts it
    bar = int(scipy_stats.binom.isf(1e-3, neurons, p)) + 1
    assert scipy_stats.binom.sf(bar - 1, neurons, p) <= 1e-3 < scipy_stats.binom.sf(bar - 2, neurons, p)
    assert scipy_stats.binom.sf(1, neurons, p) > 0.1   # the old bar, 3x chance = 2 neurons, was cleared 1 in 8
