"""Notebook 12's fact set, model, shipped weights and training script."""

import json
import os

import pytest
import torch

import train_fact_model
from helpers import data, facts, hooks, kv_memory


@pytest.fixture(scope="module")
def shipped():
    torch.set_num_threads(1)
    return kv_memory.load()


def test_fact_set_is_one_attribute_per_subject_with_unique_names():
    countries = [c for c, _ in facts.FACTS]
    capitals = [c for _, c in facts.FACTS]
    assert len(facts.FACTS) >= 100
    assert len(set(countries)) == len(countries) and len(set(capitals)) == len(capitals)
    assert not set(countries) & set(capitals)
    assert all(" " not in w for w in countries + capitals), "names are single word-level tokens"
    assert ("france", "paris") in facts.FACTS and ("india", "new_delhi") in facts.FACTS


def test_held_out_phrasings_are_new_combinations_of_known_words():
    train_words = {w for t in facts.TRAIN_TEMPLATES for w in t.split()}
    for template in facts.HELD_OUT_TEMPLATES:
        assert template not in facts.TRAIN_TEMPLATES
        assert set(template.split()) <= train_words, template


def test_prompt_words_and_bad_templates():
    assert facts.prompt_words("the capital of {} is", "peru") == (["the", "capital", "of", "peru", "is"], 3)
    with pytest.raises(ValueError, match="exactly one"):
        facts.prompt_words("the capital of france is", "france")


def test_prompts_point_at_subject_last_word_and_answer():
    vocab = kv_memory.Vocab(facts.vocabulary())
    p = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES)
    n = len(facts.FACTS) * len(facts.TRAIN_TEMPLATES)
    assert p.idx.shape[0] == n and p.last.shape == p.subject.shape == p.answer.shape == (n,)
    rows = torch.arange(n)
    countries = torch.tensor([vocab.ids[facts.FACTS[f][0]] for f in p.fact.tolist()])
    assert torch.equal(p.idx[rows, p.subject], countries)
    assert (p.idx[rows, p.last] != 0).all()
    assert (p.idx[:, 1:][p.last[:, None] < rows.new_tensor(range(1, p.idx.shape[1]))] == 0).all()
    swapped = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], [0], {0: "tokyo"})
    assert swapped.answer.tolist() == [vocab.ids["tokyo"]]
    with pytest.raises(KeyError, match="unknown word"):
        vocab.encode(["atlantis"])


def test_forward_is_the_course_blocks_and_a_hook_reads_the_neurons(shipped):
    model, vocab = shipped
    idx = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:2], range(5)).idx
    seen = []
    with torch.no_grad(), hooks.attached({model.blocks[1].mlp.act: lambda m, i, out: seen.append(out)}):
        logits = model(idx)
    with torch.no_grad():
        x = model.wte(idx) + model.wpe(torch.arange(idx.shape[1]))
        x = model.blocks[0](x)                                       # block 0 as a whole
        b = model.blocks[1]
        x = x + b.attn(b.ln_1(x))
        h = torch.nn.functional.gelu(b.mlp.c_fc(b.ln_2(x)))          # the neurons, written out
        x = x + b.mlp.c_proj(h)
        reference = model.lm_head(model.ln_f(x))
    assert len(seen) == 1 and seen[0].shape == (idx.shape[0], idx.shape[1], 256)
    assert torch.allclose(seen[0], h, atol=1e-6) and torch.allclose(logits, reference, atol=1e-5)
    assert isinstance(model.blocks[0].mlp.act, torch.nn.GELU)
    with torch.no_grad():
        model(idx)
    assert len(seen) == 1, "the hook is removed when the with-block ends"


def test_hooks_are_removed_after_an_error(shipped):
    model, vocab = shipped
    calls = []
    with pytest.raises(RuntimeError, match="stop"), hooks.attached({model.ln_f: lambda *a: calls.append(1)}):
        raise RuntimeError("stop")
    with torch.no_grad():
        model(kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], [0]).idx)
    assert calls == []


def test_hooks_that_zero_or_patch_change_the_output(shipped):
    model, vocab = shipped
    p = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], range(4))
    rows = torch.arange(4)
    with torch.no_grad():
        logits = model(p.idx)

        def patch(vectors):
            def hook(module, inputs, output):
                output = output.clone()
                output[rows, p.subject] = vectors
                return output
            return hook

        seen = {}
        with hooks.attached({model.blocks[0].mlp: lambda m, i, out: seen.setdefault("out", out)}):
            model(p.idx)
        with hooks.attached({model.blocks[0].mlp: patch(seen["out"][rows, p.subject])}):
            again = model(p.idx)
        with hooks.attached({model.blocks[0].mlp: patch(torch.zeros(4, 64))}):
            zeroed = model(p.idx)
        with hooks.attached({model.blocks[1].mlp.act: lambda m, i, out: out * 0}):
            no_mlp = model(p.idx)
        c_proj = model.blocks[1].mlp.c_proj
        bias_only = c_proj.bias.expand(4, -1)
    assert torch.allclose(again, logits, atol=1e-5) and not torch.allclose(zeroed, logits)
    assert not torch.allclose(no_mlp, logits)
    assert torch.equal(bias_only, c_proj(torch.zeros(4, 256)))


def test_contributions_add_up_to_the_mlp_through_the_final_layernorm(shipped):
    model, vocab = shipped
    p = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES[:1], range(6))
    c = kv_memory.neuron_contributions(model, p, layer=1)          # (6, 256)
    rows = torch.arange(6)
    seen = {}
    with torch.no_grad(), hooks.attached({model.blocks[1].mlp.act: lambda m, i, out: seen.setdefault("h", out),
                                           model.ln_f: lambda m, i, out: seen.setdefault("r", i[0])}):
        model(p.idx)
        # Remove the whole MLP 1 at the last word; with the LayerNorm scale held fixed,
        # the answer's logit falls by exactly the sum of the contributions.
        mlp = model.blocks[1].mlp
        out = mlp.c_proj(seen["h"][rows, p.last]) - mlp.c_proj.bias
        r = seen["r"][rows, p.last]
        s = (r.var(-1, unbiased=False) + model.ln_f.eps).sqrt()
        u = model.lm_head.weight[p.answer] * model.ln_f.weight
        expected = ((out - out.mean(-1, keepdim=True)) * u).sum(-1) / s
    assert c.shape == (6, 256)
    assert torch.allclose(c.sum(-1), expected, atol=1e-4)


def test_bad_inputs_name_the_argument(shipped):
    model, _ = shipped
    with pytest.raises(ValueError, match="idx must be 2-D"):
        model(torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="n_ctx=12"):
        model(torch.zeros(1, 13, dtype=torch.long))
    with pytest.raises(ValueError, match="unique"):
        kv_memory.Vocab(["a", "a"])


def test_shipped_model_is_small_safetensors_and_recalls_the_facts(shipped):
    model, vocab = shipped
    names = [n for n in data.list_data() if n.startswith("fact_model/")]
    assert sorted(names) == ["fact_model/config.json", "fact_model/model.safetensors",
                             "fact_model/vocab.json"]
    assert data.data_path(kv_memory.WEIGHTS).stat().st_size < 3_000_000
    assert json.loads(data.data_path(kv_memory.VOCAB).read_text()) == facts.vocabulary()
    train = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES)
    held_out = kv_memory.make_prompts(vocab, facts.HELD_OUT_TEMPLATES)
    assert kv_memory.accuracy(model, train) >= 0.95
    assert kv_memory.accuracy(model, held_out) > 0.5
    from safetensors.torch import load_file

    # The activation is a submodule without parameters: the checkpoint's names are the model's.
    assert sorted(load_file(str(data.data_path(kv_memory.WEIGHTS)))) == sorted(model.state_dict())


def test_save_and_load_round_trip(shipped, tmp_path):
    from safetensors.torch import load_file

    model, vocab = shipped
    kv_memory.save(model, vocab, tmp_path)
    state = load_file(str(tmp_path / "model.safetensors"))
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())
    assert json.loads((tmp_path / "config.json").read_text())["d_ff"] == 256
    assert json.loads((tmp_path / "vocab.json").read_text()) == vocab.words


def test_short_training_learns_and_keeps_the_frozen_parts():
    torch.set_num_threads(1)
    config = kv_memory.FactModelConfig(d_model=32, n_head=2, d_ff=128)
    torch.manual_seed(0)
    start = kv_memory.FactModel(config).state_dict()   # the same seed gives the same start
    model, vocab, losses = kv_memory.train(config, steps=100, lr=5e-3, seed=0)
    assert losses[-1] < 0.5 * losses[0]
    accuracy = kv_memory.accuracy(model, kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES))
    assert accuracy > 20 / len(facts.FACTS), accuracy          # chance is 1/118
    end = model.state_dict()
    assert torch.equal(end["wte.weight"], start["wte.weight"])
    v_rows = slice(2 * config.d_model, 3 * config.d_model)
    assert torch.equal(end["blocks.0.attn.c_attn.weight"][v_rows], start["blocks.0.attn.c_attn.weight"][v_rows])
    assert torch.equal(end["blocks.1.attn.c_proj.weight"], start["blocks.1.attn.c_proj.weight"])
    assert not torch.equal(end["blocks.0.mlp.c_fc.weight"], start["blocks.0.mlp.c_fc.weight"])


def test_the_training_script_writes_a_model_that_loads(tmp_path, capsys):
    train_fact_model.main(["--steps", "2", "--out", str(tmp_path)])
    assert "accuracy on training phrasings" in capsys.readouterr().out
    assert sorted(f.name for f in tmp_path.iterdir()) == ["config.json", "model.safetensors", "vocab.json"]


def test_importing_the_training_script_leaves_the_environment_alone():
    # Pinning the portable kernels is for `make train-model` only: tests and notebooks that
    # import the module (and the kernels they start) keep the machine's own settings.
    # (the AVX2-laptop test profile limits oneDNN to AVX2 itself; the script would set SSE41)
    assert os.environ.get("ONEDNN_MAX_CPU_ISA") != "SSE41" and "MKL_CBWR" not in os.environ
