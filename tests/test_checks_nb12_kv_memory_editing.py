"""Notebook 12's checks accept a right answer and name typical mistakes."""

import torch

from helpers.checks import nb12_kv_memory_editing as checks


def hook_maker(edit, give_back=True):
    """ablate(neurons) -> hook that applies edit(output, neurons) to a copy, and returns it or not."""
    def ablate(neurons):
        def hook(module, inputs, output):
            changed = edit(output.clone(), neurons)
            return changed if give_back else None
        return hook
    return ablate


def zero(output, neurons):
    output[..., neurons] = 0.0
    return output


def zero_with_a_mask(output, neurons):
    keep = torch.ones(output.shape[-1])
    keep[neurons] = 0.0
    return output * keep


def ablate_in_place(neurons):
    def hook(module, inputs, output):
        output[..., neurons] = 0.0
    return hook


def test_not_attempted():
    for fb in [checks.check_ablation_hook(None), checks.check_ablation_hook(lambda n: None),
               checks.check_edit_many(None), checks.check_edit_many(lambda *a: None),
               checks.check_ablation_guess(None, "B")]:
        assert fb.status == "not attempted" and "not attempted yet" in str(fb) and "Hint" not in str(fb)


def test_ablation_hooks_are_correct():
    for fn in (hook_maker(zero), hook_maker(zero_with_a_mask), ablate_in_place):
        fb = checks.check_ablation_hook(fn)
        assert fb and str(fb).startswith("[correct] Exercise 1"), fb


def test_ablation_mistakes_are_named():
    def keep_only_the_chosen(output, neurons):
        return output - zero_with_a_mask(output, neurons)

    def wrong_dimension(output, neurons):
        output[:, neurons] = 0.0
        return output

    cases = [(hook_maker(zero, give_back=False), "changed nothing"),
             (hook_maker(lambda out, n: out * 0), "every neuron"),
             (hook_maker(keep_only_the_chosen), "other way round"),
             (hook_maker(wrong_dimension), "last dimension"),
             (lambda n: 3, "not a hook function")]
    for fn, words in cases:
        fb = checks.check_ablation_hook(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_edit_many():
    assert checks.check_edit_many(checks.edit_many)

    def in_place(W, K, V, C):
        W += checks.edit_many(W, K, V, C) - W
        return W

    assert checks.check_edit_many(in_place)
    cases = [(checks._one_after_another, "one rank-one edit after another"),
             (checks._without_C, "key covariance C"), (checks._adds_V, "not V itself"),
             (lambda W, K, V, C: checks.edit_many(W, K, V, C).T, "has shape (8, 5)")]
    for fn, words in cases:
        fb = checks.check_edit_many(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_rank_one_is_the_r_equals_1_case():
    W, K, V, C = checks._edit_case(4, 1)
    k, v = K[:, 0], V[:, 0]
    C_inv_k = torch.linalg.solve(C, k)
    rank_one = W + torch.outer(v - W @ k, C_inv_k) / (k @ C_inv_k)
    torch.testing.assert_close(checks.edit_many(W, K, V, C), rank_one, rtol=0, atol=1e-12)


def test_ablation_prediction():
    assert checks.check_ablation_guess("B", "B")
    fb = checks.check_ablation_guess("A", "B")
    assert not fb and "you predicted 'A', the run gives 'B'" in fb.message
    assert "is not one of" in checks.check_ablation_guess("paris", "B").message
