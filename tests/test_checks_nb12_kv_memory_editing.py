"""Notebook 12's checks accept a right answer and name typical mistakes."""

import pytest
import torch

from helpers import hooks, kv_memory
from helpers.checks import nb12_kv_memory_editing as checks
from helpers.checks.nb12_kv_memory_editing import ex3_tracing, ex4_updates, shipped


def run_with(module_of, edit, remove=True, give_back=True):
    """ablated_logits(model, idx, neurons): a hook on module_of(model) applying edit(output, neurons)."""
    def ablated_logits(model, idx, neurons):
        def hook(module, inputs, output):
            changed = edit(output.clone(), neurons)
            return changed if give_back else None
        handle = module_of(model).register_forward_hook(hook)
        try:
            with torch.no_grad():
                return model(idx)
        finally:
            if remove:
                handle.remove()
    return ablated_logits


def act(model):
    return model.blocks[1].mlp.act


def zero(output, neurons):
    output[..., neurons] = 0.0
    return output


def zero_with_a_mask(output, neurons):
    keep = torch.ones(output.shape[-1])
    keep[neurons] = 0.0
    return output * keep


def in_place(model, idx, neurons):
    def hook(module, inputs, output):
        output[..., neurons] = 0.0
    with torch.no_grad(), hooks.attached({act(model): hook}):
        return model(idx)


def zero_before_gelu(model, idx, neurons):
    """GELU(0) = 0: zeroing the up-projection's output is the same ablation."""
    return run_with(lambda m: m.blocks[1].mlp.c_fc, zero)(model, idx, neurons)


def test_not_attempted():
    for fb in [checks.check_ablation(None), checks.check_ablation(lambda m, i, n: None),
               checks.check_tracing(None), checks.check_tracing(lambda *a: None),
               checks.check_memit(None), checks.check_memit(lambda *a: None),
               checks.check_ablation_guess(None, "B")]:
        assert fb.status == "not attempted" and "not attempted yet" in str(fb) and "Hint" not in str(fb)


def test_ablation_hooks_are_correct():
    for fn in (run_with(act, zero), run_with(act, zero_with_a_mask), in_place, zero_before_gelu):
        fb = checks.check_ablation(fn)
        assert fb and str(fb).startswith("[correct] Exercise 1"), fb


def test_ablation_mistakes_are_named():
    def keep_only_the_chosen(output, neurons):
        return output - zero_with_a_mask(output, neurons)

    def wrong_dimension(output, neurons):
        output[:, neurons] = 0.0
        return output

    def last_only(output, neurons):
        output[:, -1, neurons] = 0.0
        return output

    def edits_the_weights(model, idx, neurons):
        with torch.no_grad():
            model.blocks[1].mlp.c_proj.weight[:, neurons] = 0.0
            return model(idx)

    cases = [(run_with(act, zero, give_back=False), "changed nothing"),
             (run_with(act, lambda out, n: out * 0), "every neuron"),
             (run_with(act, keep_only_the_chosen), "other way round"),
             (run_with(act, wrong_dimension), "last dimension"),
             (run_with(act, last_only), "last position only"),
             (run_with(lambda m: m.blocks[0].mlp.act, zero), "MLP 0's neurons"),
             (run_with(lambda m: m.blocks[1].mlp, zero), "d_model = 64 entries"),
             (run_with(lambda m: m.blocks[1].mlp.c_proj, zero), "d_model = 64 entries"),
             (run_with(lambda m: m.blocks[1], zero), "d_model = 64 entries"),
             (run_with(act, zero, remove=False), "left a hook registered on blocks.1.mlp.act"),
             (edits_the_weights, "changed the model's weights"),
             (lambda m, i, n: 3, "ablated_logits")]
    for fn, words in cases:
        fb = checks.check_ablation(fn)
        assert not fb and words in fb.message, (words, fb.message)


def trace(model, prompts, noise, layer, position):
    """The notebook's solution: a clean run saves the MLP output; a corrupted run restores one word of it."""
    rows = torch.arange(len(prompts.last))
    seen = {}

    def save(module, inputs, output):
        seen["clean"] = output

    def corrupt(module, inputs, output):
        output = output.clone()
        output[rows, prompts.subject] += noise
        return output

    def restore(module, inputs, output):
        output = output.clone()
        output[:, position] = seen["clean"][:, position]
        return output

    with torch.no_grad():
        with hooks.attached({model.blocks[layer].mlp: save}):
            model(prompts.idx)
        with hooks.attached({model.wte: corrupt, model.blocks[layer].mlp: restore}):
            logits = kv_memory.answer_logits(model(prompts.idx), prompts)
    return logits.softmax(-1)[rows, prompts.answer].mean()


def test_tracing_is_correct_and_says_what_it_found():
    fb = checks.check_tracing(trace)
    assert fb and str(fb).startswith("[correct] Exercise 3"), fb
    assert "restoring MLP 1 at the last word brings it back" in fb.message


def test_tracing_mistakes_are_named():
    def leaves_a_hook(model, prompts, noise, layer, position):
        p = trace(model, prompts, noise, layer, position)
        model.wte.register_forward_hook(lambda m, i, o: None)
        return p

    cases = [(ex3_tracing._traced(corrupt=False), "not corrupted"),
             (ex3_tracing._traced(restore=False), "nothing was restored"),
             (ex3_tracing._traced(clean_from_noisy=True), "saved in a run without the noise"),
             (ex3_tracing._traced(all_positions=True), "at every word"),
             (ex3_tracing._traced(everywhere=True), "onto every word"),
             (ex3_tracing._traced(top=True), "top word"),
             (ex3_tracing._traced(shift=1), "position + 1"),
             (ex3_tracing._traced(at_subject=True), "prompts.subject"),
             (ex3_tracing._traced(total=True), "sum of p(answer)"),
             (leaves_a_hook, "left a hook registered on wte"),
             (lambda *a: "0.5", "trace_mlp(0, 3)")]
    for fn, words in cases:
        fb = checks.check_tracing(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_tracing_hands_the_learner_copies_of_its_prompts_and_noise():
    def zeroes_the_noise(model, prompts, noise, layer, position):
        noise.mul_(0)                             # in place: without copies, every later call would see 0
        prompts.subject.zero_()
        return checks.trace_mlp(model, prompts, noise, layer, position)

    prompts, noise = ex3_tracing._tracing_case()
    kept = noise.clone(), prompts.subject.clone()
    right = checks.check_tracing(trace)
    fb = checks.check_tracing(zeroes_the_noise)
    assert not fb and "not corrupted" in fb.message, fb.message
    assert torch.equal(noise, kept[0]) and torch.equal(prompts.subject, kept[1]), "the check's own case changed"
    again = checks.check_tracing(trace)
    assert again and again.message == right.message, (right.message, again.message)


def test_tracing_finds_the_late_site_and_the_subject_site():
    model, _, _ = shipped._shipped()
    prompts, noise = ex3_tracing._tracing_case()
    p_noisy = ex3_tracing._traced(restore=False)(model, prompts, noise, 0, 0)
    table = {(layer, pos): checks.trace_mlp(model, prompts, noise, layer, pos) for layer in (0, 1) for pos in range(5)}
    for pos in range(3):                      # words before the subject: the noise has not reached them
        assert table[0, pos] == pytest.approx(p_noisy, abs=1e-6) and table[1, pos] == pytest.approx(p_noisy, abs=1e-6)
    assert table[1, 4] > 0.5 > 2 * table[0, 3] > 2 * (2 * p_noisy)


def test_memit():
    assert checks.check_memit(checks.memit_update)
    cases = [(lambda W, K, V, C, lam: kv_memory.rome_update(W, K, V, C), "hard-constrained"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ K.T @ (lam * C + K @ K.T), "instead of by its inverse"),
             (ex4_updates._one_after_another, "one edit after another"),
             (lambda W, K, V, C, lam: checks.memit_update(W, K, V, C, 1.0), "lam was left out"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(C + lam * K @ K.T, K).T, "weights C"),
             (lambda W, K, V, C, lam: checks.memit_update(W, K, V + W @ K, C, lam), "adds V itself"),
             (lambda W, K, V, C, lam: checks.memit_update(W, K, V, torch.eye(len(C), dtype=C.dtype), lam),
              "covariance C was left out"),
             (lambda W, K, V, C, lam: checks.memit_update(W, K, V, C, lam).T, "has shape (8, 5)"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(C, K).T, "C^-1 stands where"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(lam * torch.linalg.inv(C) + K @ K.T, K).T,
              "lam C^-1 + K K^T"),
             (lambda W, K, V, C, lam: W - (V - W @ K) @ torch.linalg.solve(lam * C + K @ K.T, K).T, "wrong sign"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ K.T, "there is no inverse"),
             (ex4_updates._per_fact(lambda k, C, lam: lam + k @ torch.linalg.solve(C, k)), "its own rank-one update"),
             (ex4_updates._per_fact(lambda k, C, lam: k @ torch.linalg.solve(C, k)), "its own rank-one update"),
             (ex4_updates._per_fact(lambda k, C, lam: lam + k @ k), "normaliser is lam + k^T k"),
             (ex4_updates._per_fact(lambda k, C, lam: lam + k @ k, c_inv=False), "neither C^-1"),
             # shape errors, traced to the product that made them
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(lam * C + K.T @ K, K).T, "K^T K is (r, r)"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(lam * C + K @ K.T, K), "needs its transpose"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(lam * C + K @ K.T, K.T), "not K^T"),
             (lambda W, K, V, C, lam: W + (K - W @ V) @ torch.linalg.solve(lam * C + K @ K.T, K).T, "W @ V"),
             (lambda W, K, V, C, lam: W + (V - W @ K) @ torch.linalg.solve(lam * C + K @ K.T, V).T,
              "the values V went into the solve")]
    for fn, words in cases:
        fb = checks.check_memit(fn)
        assert not fb and words in fb.message, (words, fb.message)


def test_memit_tends_to_the_hard_constrained_edit_as_lam_goes_to_zero():
    W, K, V, C, _ = ex4_updates._edit_case(4, 3, 1.0)
    hard = kv_memory.rome_update(W, K, V, C)
    gaps = [(checks.memit_update(W, K, V, C, lam) - hard).abs().max().item() for lam in (1.0, 1e-3, 1e-6)]
    assert gaps[0] > 1e-2 and gaps[2] < 1e-4 and gaps[0] > gaps[1] > gaps[2]
    # ... and a larger lam meets the new facts less exactly.
    errors = [(checks.memit_update(W, K, V, C, lam) @ K - V).norm().item() for lam in (0.1, 1.0, 10.0)]
    assert errors[0] < errors[1] < errors[2]


def test_rome_update_is_the_rank_one_edit_for_one_key():
    W, K, V, C, _ = ex4_updates._edit_case(4, 1, 1.0)
    k, v = K[:, 0], V[:, 0]
    C_inv_k = torch.linalg.solve(C, k)
    rank_one = W + torch.outer(v - W @ k, C_inv_k) / (k @ C_inv_k)
    torch.testing.assert_close(kv_memory.rome_update(W, k, v, C), rank_one, rtol=0, atol=1e-12)
    torch.testing.assert_close(kv_memory.rome_update(W, K, V, C), rank_one, rtol=0, atol=1e-12)


def test_ablation_prediction():
    assert checks.check_ablation_guess("B", "B")
    fb = checks.check_ablation_guess("A", "B")
    assert not fb and "you predicted 'A', the run gives 'B'" in fb.message
    assert "is not one of" in checks.check_ablation_guess("paris", "B").message
    fb = checks.check_ablation_guess("A", "B")
    assert "carry the other facts too" in fb.message
    fb = checks.check_ablation_guess("c", "B")
    assert not fb and "spread thinly" in fb.message


def test_checks_leave_the_global_generator_and_threads_alone():
    state, threads = torch.random.get_rng_state(), torch.get_num_threads()
    checks.check_ablation(run_with(act, zero))
    checks.check_tracing(trace)
    checks.check_memit(checks.memit_update)
    assert torch.equal(torch.random.get_rng_state(), state) and torch.get_num_threads() == threads


def _zero_hook(neurons):
    def hook(module, inputs, output):
        output = output.clone()
        output[..., neurons] = 0.0
        return output
    return hook


def test_a_return_of_a_call_that_gives_none_names_that_call_not_a_stub():
    def returns_the_removal(model, idx, neurons):
        handle = model.blocks[1].mlp.act.register_forward_hook(_zero_hook(neurons))
        model(idx)
        return handle.remove()

    fb = checks.check_ablation(returns_the_removal)
    assert not fb and "ends in `return handle.remove()`" in fb.message, fb.message
    assert "stub" not in fb.message


def test_a_hook_called_by_hand_is_named():
    def calls_the_hook(model, idx, neurons):
        def hook(module, inputs, output):
            return output * 0
        return hook()

    fb = checks.check_ablation(calls_the_hook)
    assert not fb and "you called your hook yourself" in fb.message, fb.message
    assert "missing 3 required" not in fb.message
