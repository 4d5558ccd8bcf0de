"""helpers.kv_memory's editing and tracing plumbing: rome_update, subject_noise, Prompts.to, threads."""

import pytest
import torch

from helpers import facts, kv_memory


def case(seed=0, d_model=5, d_ff=8, r=3):
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(d_model, d_ff, generator=g, dtype=torch.float64)
    A = torch.randn(d_ff, d_ff, generator=g, dtype=torch.float64)
    C = A @ A.T / d_ff + 0.5 * torch.eye(d_ff, dtype=torch.float64)
    K = torch.randn(d_ff, r, generator=g, dtype=torch.float64)
    V = torch.randn(d_model, r, generator=g, dtype=torch.float64)
    return W, K, V, C


def test_rome_update_meets_every_key_and_moves_others_least():
    W, K, V, C = case()
    W_new = kv_memory.rome_update(W, K, V, C)
    torch.testing.assert_close(W_new @ K, V, rtol=0, atol=1e-12)
    assert torch.linalg.matrix_rank(W_new - W).item() == 3
    # A key x with x^T C^-1 K = 0 keeps its value: build one by projecting a random key.
    x = torch.randn(8, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    C_inv_K = torch.linalg.solve(C, K)
    x = x - K @ torch.linalg.solve(C_inv_K.T @ K, C_inv_K.T @ x)      # now C_inv_K.T @ x = 0
    torch.testing.assert_close(W_new @ x, W @ x, rtol=0, atol=1e-12)
    # Among all W' with W' K = V, it is the nearest to W in the metric of C: another solution is farther.
    other = W_new + torch.randn(5, 8, generator=torch.Generator().manual_seed(2), dtype=torch.float64) @ (
        torch.eye(8, dtype=torch.float64) - K @ torch.linalg.pinv(K))
    torch.testing.assert_close(other @ K, V, rtol=0, atol=1e-10)

    def cost(Wp):
        return torch.trace((Wp - W) @ C @ (Wp - W).T)
    assert cost(W_new) < cost(other)


def test_rome_update_one_key_is_the_rank_one_formula_and_leaves_W_alone():
    W, K, V, C = case(r=1)
    k, v = K[:, 0], V[:, 0]
    before = W.clone()
    C_inv_k = torch.linalg.solve(C, k)
    expected = W + torch.outer(v - W @ k, C_inv_k) / (k @ C_inv_k)
    torch.testing.assert_close(kv_memory.rome_update(W, k, v, C), expected, rtol=0, atol=1e-12)
    assert torch.equal(W, before)


def test_rome_update_names_bad_inputs():
    W, K, V, C = case()
    with pytest.raises(ValueError, match=r"keys must be \(8,\) or \(8, r\)"):
        kv_memory.rome_update(W, K[:5], V, C)
    with pytest.raises(ValueError, match=r"values \(5,\) or \(5, r\)"):
        kv_memory.rome_update(W, K, V[:, :2], C)
    with pytest.raises(ValueError, match="C .8, 8."):
        kv_memory.rome_update(W, K, V, C[:4, :4])
    with pytest.raises(ValueError, match="keys must be 1-D or 2-D"):
        kv_memory.rome_update(W, K[None], V, C)
    with pytest.raises(TypeError, match="W must be a floating-point torch tensor, got list"):
        kv_memory.rome_update(W.tolist(), K, V, C)
    with pytest.raises(TypeError, match="keys must be a floating-point torch tensor, got Tensor of dtype torch.int64"):
        kv_memory.rome_update(W, K.long(), V, C)


@pytest.fixture(scope="module")
def shipped():
    return kv_memory.load()


def test_subject_noise_is_seeded_scaled_and_leaves_the_global_generator(shipped):
    model, vocab = shipped
    prompts = kv_memory.make_prompts(vocab, ["the capital of {} is"])
    state = torch.random.get_rng_state()
    noise = kv_memory.subject_noise(model, prompts)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert noise.shape == (len(facts.FACTS), model.config.d_model)
    assert torch.equal(noise, kv_memory.subject_noise(model, prompts))
    assert not torch.equal(noise, kv_memory.subject_noise(model, prompts, seed=1))
    subjects = prompts.idx[torch.arange(len(prompts.last)), prompts.subject]
    std = model.wte.weight[subjects].std().item()
    assert abs(noise.std().item() / std - 3.0) < 0.1        # 3 sigma, up to the sampling error of 7,552 draws


def test_prompts_move_to_a_device_and_answer_logits_follow_the_logits(shipped):
    model, vocab = shipped
    prompts = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], [0, 1])
    moved = prompts.to("cpu")
    for name in ("idx", "last", "subject", "answer", "fact"):
        assert torch.equal(getattr(moved, name), getattr(prompts, name))
    assert moved.template == prompts.template
    with torch.no_grad():
        logits = kv_memory.answer_logits(model(moved.idx), prompts)
    assert logits.shape == (2, len(vocab))


def test_one_thread_until_restored():
    start = torch.get_num_threads()
    try:
        kv_memory.use_one_thread()
        kv_memory.use_one_thread()                    # a cell run twice keeps the first count to restore
        assert torch.get_num_threads() == 1
        kv_memory.restore_threads()
        assert torch.get_num_threads() == start
        kv_memory.restore_threads()                   # nothing left to restore: no change
        assert torch.get_num_threads() == start
    finally:
        torch.set_num_threads(start)
