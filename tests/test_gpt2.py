"""helpers.gpt2: GPT-2's MLPs in the course's FFN, exact; the offline model; the edit; no stray hooks."""

import copy
import os
import re
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn.functional as F
from nbclient import NotebookClient

pytest.importorskip("transformers")
from transformers import GPT2Config, GPT2LMHeadModel  # noqa: E402

from helpers import gpt2, hooks, kv_memory  # noqa: E402
from helpers.ffn import FFN  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def random_gpt2(seed, **config):
    """A random GPT-2 in float64, its weights drawn large enough that every part matters."""
    defaults = dict(vocab_size=97, n_positions=24, n_embd=24, n_layer=3, n_head=4, bos_token_id=0, eos_token_id=0)
    with torch.random.fork_rng(devices=[]):
        model = GPT2LMHeadModel(GPT2Config(**{**defaults, **config}))
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    ids = torch.randint(0, defaults["vocab_size"], (2, 20), generator=g)
    return model.double().eval(), ids


CONFIGS = [dict(), dict(n_inner=40), dict(n_inner=24), dict(activation_function="gelu"),
           dict(activation_function="gelu", n_inner=56), dict(activation_function="gelu_pytorch_tanh"),
           dict(activation_function="relu", n_inner=32)]


@pytest.mark.parametrize("config", CONFIGS, ids=[str(c) or "default" for c in CONFIGS])
def test_replace_mlps_with_mlp_from_hf_is_exact_in_float64(config):
    model, ids = random_gpt2(len(str(config)), **config)
    with torch.no_grad():
        expected = model(ids).logits
    swapped = gpt2.replace_mlps(copy.deepcopy(model), gpt2.mlp_from_hf)
    for block, original in zip(swapped.transformer.h, model.transformer.h, strict=True):
        assert type(block.mlp) is FFN and block.mlp.c_fc.weight.dtype == torch.float64
        assert block.mlp.d_ff == (config.get("n_inner") or 4 * 24)
        x = torch.randn(5, 24, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            assert (block.mlp(x) - original.mlp(x)).abs().max() < 1e-12
    with torch.no_grad():
        assert (swapped(ids).logits - expected).abs().max() < 1e-12


def test_mlp_from_hf_reads_the_activation_and_transposes():
    model, _ = random_gpt2(0, n_inner=40)
    hf_mlp = model.transformer.h[0].mlp
    ffn = gpt2.mlp_from_hf(hf_mlp)
    assert ffn.activation == "gelu_tanh" and torch.equal(ffn.c_fc.weight, hf_mlp.c_fc.weight.T)
    assert torch.equal(ffn.c_proj.weight, hf_mlp.c_proj.weight.T) and torch.equal(ffn.c_proj.bias, hf_mlp.c_proj.bias)
    exact, _ = random_gpt2(0, activation_function="gelu")
    assert gpt2.mlp_from_hf(exact.transformer.h[0].mlp).activation == "gelu"
    # an untransposed copy of the square MLP loads without an error, and is wrong
    square, ids = random_gpt2(2, n_inner=24)
    wrong = copy.deepcopy(square)
    for block in wrong.transformer.h:
        block.mlp.c_fc.weight.data = block.mlp.c_fc.weight.data.T.contiguous()
    with torch.no_grad():
        assert (wrong(ids).logits - square(ids).logits).abs().max() > 1e-3


def test_mlp_from_hf_leaves_the_global_generator_alone():
    model, _ = random_gpt2(3)
    state = torch.random.get_rng_state()
    gpt2.replace_mlps(model, gpt2.mlp_from_hf)
    assert torch.equal(state, torch.random.get_rng_state())


def test_activation_name_refuses_an_unknown_activation():
    with pytest.raises(ValueError, match="none of gelu_tanh"):
        gpt2.activation_name(torch.nn.Tanh())


def test_replace_mlps_refuses_bad_builds():
    model, _ = random_gpt2(4)
    with pytest.raises(TypeError, match="returned NoneType for block 0"):
        gpt2.replace_mlps(model, lambda mlp: None)
    with pytest.raises(TypeError, match="build must be a function"):
        gpt2.replace_mlps(model, 3)
    with pytest.raises(TypeError, match="with .transformer.h"):
        gpt2.replace_mlps(torch.nn.Linear(2, 2), gpt2.mlp_from_hf)


def test_choose_never_needs_the_network(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("COURSE_GPT2", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert gpt2.choose()[0] == "tiny"
    monkeypatch.delenv("HF_HUB_OFFLINE")
    assert gpt2.choose()[0] == "tiny" and "offline here" in gpt2.choose()[1]
    monkeypatch.setitem(__import__("sys").modules, "google.colab", object())
    assert gpt2.choose()[0] == "real"
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    assert gpt2.choose() == ("tiny", "COURSE_GPT2=tiny")
    monkeypatch.setenv("COURSE_GPT2", str(tmp_path))
    with pytest.raises(ValueError, match="names a folder without a config.json"):
        gpt2.choose()
    model, _ = random_gpt2(0)
    model.save_pretrained(tmp_path)
    assert gpt2.choose()[0] == str(tmp_path)
    monkeypatch.setenv("COURSE_GPT2", "gpt-5")
    with pytest.raises(ValueError, match="none of auto, real, tiny"):
        gpt2.choose()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = gpt2.build_tiny(tmp_path_factory.mktemp("cache") / "tiny")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with gpt2.no_progress_bars():
        return AutoModelForCausalLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder), folder


def test_the_tiny_model_is_built_the_same_every_time(tiny, tmp_path):
    model, tokenizer, _ = tiny
    again = gpt2.build_tiny(tmp_path / "again")
    from safetensors.torch import load_file

    assert (again / "tokenizer.json").read_text() == (tiny[2] / "tokenizer.json").read_text()
    first, second = load_file(tiny[2] / "model.safetensors"), load_file(again / "model.safetensors")
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    assert model.config.n_layer == gpt2.TINY["n_layer"] and len(tokenizer) == gpt2.TINY_VOCAB
    assert [len(tokenizer(w).input_ids) for w in (" Paris", " Rome", " London")] == [1, 1, 1]
    assert sum(p.numel() for p in model.parameters()) == 339_328


def test_load_offline_gives_the_tiny_model_with_a_banner(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    state = torch.random.get_rng_state()
    model, tokenizer, real = gpt2.load(device="cpu")
    assert torch.equal(state, torch.random.get_rng_state())
    out = capsys.readouterr()
    assert not real and out.err == "" and out.out.count("\n") == 2 and "RANDOM weights" in out.out
    assert out.out.splitlines()[1] == "Why this model: COURSE_GPT2=tiny."
    assert not model.training and gpt2.registered_hooks(model) == 0
    assert list(tmp_path.iterdir())[0].name.startswith("tiny-gpt2-")


def edit(model, tokenizer, prompt, target, layer, position):
    """The notebook's edit in short: k* and v* at `position`, C from the sample, kv_memory.rome_update."""
    ids = tokenizer(prompt, return_tensors="pt").input_ids
    mlp = model.transformer.h[layer].mlp
    seen = {}
    stream = torch.tensor([i for line in gpt2.sample_lines() for i in tokenizer(line + "\n").input_ids])
    with torch.no_grad(), hooks.attached({mlp.act: lambda m, i, out: seen.update(all=out[0])}):
        model(stream[:128][None])
        K = seen["all"].double()
        C = K.T @ K / len(K) + 1e-3 * torch.eye(K.shape[1], dtype=torch.float64)
        model(ids)
        k_star = seen["all"][position]
        v0 = mlp.c_proj(k_star)
    v = v0.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([v], lr=0.05)
    goal = torch.tensor([tokenizer(target).input_ids[0]])

    def write(module, inputs, output):
        output = output.clone()
        output[:, position] = v
        return output

    for _ in range(30):
        with hooks.attached({mlp: write}):
            loss = F.cross_entropy(model(ids).logits[:, -1], goal)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    W = mlp.c_proj.weight
    with torch.no_grad():
        W.copy_(kv_memory.rome_update(W.double(), k_star.double(), (v.detach() - mlp.c_proj.bias).double(), C).float())


def top(model, tokenizer, text):
    with torch.no_grad():
        return tokenizer.decode(model(tokenizer(text, return_tensors="pt").input_ids).logits[0, -1].argmax())


@pytest.mark.skipif(not hasattr(kv_memory, "rome_update"), reason="kv_memory.rome_update is notebook 12's")
def test_the_edit_on_the_tiny_model_moves_its_prompt_and_spares_a_neighbour(tiny):
    model, tokenizer, _ = tiny
    model = gpt2.replace_mlps(copy.deepcopy(model), gpt2.mlp_from_hf).requires_grad_(False)
    prompt, neighbour = "The Eiffel Tower is located in the city of", "The Colosseum stands in"
    before = top(model, tokenizer, neighbour)
    assert top(model, tokenizer, prompt) != " Rome"
    # a random model carries nothing from the subject to the last token, so the edit goes where its
    # answer is read: the prompt's last token (ROME's code calls this fact_token="last")
    position = len(tokenizer(prompt).input_ids) - 1
    edit(model, tokenizer, prompt, " Rome", layer=2, position=position)
    assert top(model, tokenizer, prompt) == " Rome"
    assert top(model, tokenizer, neighbour) == before
    assert gpt2.registered_hooks(model) == 0


def test_no_hook_is_left_after_any_section_of_notebook_13(monkeypatch, tmp_path):
    """Run notebook 13 with a cell after every section that counts the hooks left on both models."""
    path = ROOT / "notebooks" / "13_real_gpt2.ipynb"
    nb = nbformat.read(path, as_version=4)
    probe = ("print('hooks left:', sum(gpt2.registered_hooks(m) for m in [globals().get(n) for n in "
             "('hf_model', 'model')] if m is not None))")
    cells, sections = [], 0
    for cell in nb.cells:
        if cell.cell_type == "markdown" and re.match(r"## (\d+\.|Summary)", cell.source) and sections:
            cells.append(nbformat.v4.new_code_cell(probe))
        sections += cell.cell_type == "markdown" and cell.source.startswith("## ")
        cells.append(cell)
    nb.cells = cells
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    monkeypatch.setenv("COURSE_GPT2", "tiny")
    monkeypatch.setitem(os.environ, "COURSE_CACHE", str(tmp_path))
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    counts = [re.search(r"hooks left: (\d+)", "".join(o.get("text", "") for o in c.outputs))
              for c in nb.cells if c.cell_type == "code" and c.source == probe]
    assert len(counts) >= 8 and all(m and m.group(1) == "0" for m in counts), counts


def test_tokens_of_refuses_an_id_outside_the_vocabulary(tiny):
    _, tokenizer, _ = tiny
    assert gpt2.tokens_of(tokenizer, [0, len(tokenizer) - 1])[0] == gpt2.END
    with pytest.raises(ValueError, match=r"ids holds 2048, which is not a token id of this tokenizer \(0 to 2,047\)"):
        gpt2.tokens_of(tokenizer, torch.tensor([5, len(tokenizer)]))
    with pytest.raises(ValueError, match="ids holds -1"):
        gpt2.tokens_of(tokenizer, [-1])
