"""A tiny word-level GPT that notebook 12 trains on the fact set, and its plumbing.

FactModel is token + position embeddings, a stack of the course's pre-LN
`helpers.block.Block`s (each with a GELU `helpers.ffn.FFN`), a final LayerNorm
and an untied head. `tools/train_fact_model.py` trains it; the weights ship in
data/fact_model/ as safetensors with a JSON config and vocabulary (no pickle).
"""

import json
from dataclasses import asdict, dataclass

import torch
from torch import nn

from helpers import activations, facts, validate
from helpers.block import Block
from helpers.data import data_path

WEIGHTS, CONFIG, VOCAB = "fact_model/model.safetensors", "fact_model/config.json", "fact_model/vocab.json"


@dataclass
class FactModelConfig:
    vocab_size: int = 248
    n_ctx: int = 12
    d_model: int = 64
    n_head: int = 4
    n_layers: int = 2
    d_ff: int = 256


class FactModel(nn.Module):
    """idx (B, T) word ids -> logits (B, T, vocab_size)."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.d_model)
        self.wpe = nn.Embedding(config.n_ctx, config.d_model)
        self.blocks = nn.ModuleList(
            Block(config.d_model, config.n_head, config.d_ff) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)

    def forward(self, idx):
        return forward_with_neurons(self, idx)[0]


def forward_with_neurons(model, idx, neuron_scale=None, mlp_out_at=None):
    """Logits (B, T, V), each layer's neuron activations [(B, T, d_ff)] * n_layers, and
    the residual stream before the final LayerNorm (B, T, d_model).

    neuron_scale: {layer: (d_ff,) tensor} multiplied into that layer's activations
    (zeros ablate neurons). mlp_out_at: {layer: (positions (B,), vectors (B, d_model))}
    replaces that layer's MLP output at one position per row (used to find v* for an edit).
    """
    validate.ndim(idx, "idx", 2)
    if idx.shape[1] > model.config.n_ctx:
        raise ValueError(f"idx has {idx.shape[1]} positions but the model has n_ctx={model.config.n_ctx}")
    positions = torch.arange(idx.shape[1], device=idx.device)
    x = model.wte(idx) + model.wpe(positions)                      # (B, T, d_model)
    hidden = []
    for layer, block in enumerate(model.blocks):
        x = x + block.attn(block.ln_1(x))
        mlp = block.mlp
        h = activations.get(mlp.activation)(mlp.c_fc(block.ln_2(x)))  # keys fire: (B, T, d_ff)
        if neuron_scale is not None and layer in neuron_scale:
            h = h * neuron_scale[layer]
        hidden.append(h)
        out = mlp.c_proj(h)                                          # values summed: (B, T, d_model)
        if mlp_out_at is not None and layer in mlp_out_at:
            where, vectors = mlp_out_at[layer]
            out = out.clone()
            out[torch.arange(idx.shape[0]), where] = vectors
        x = x + out
    return model.lm_head(model.ln_f(x)), hidden, x


def neuron_contributions(model, prompts, layer):
    """(N, d_ff): activation x value vector . unembedding of the answer, at each prompt's last word.

    The final LayerNorm is folded in: it centres a vector, divides by the residual's
    standard deviation s (measured on the prompt) and multiplies by its gain g, so neuron i adds
    h_i * (g * u_answer) . (w_i - mean(w_i)) / s to the answer's logit.
    """
    rows = torch.arange(len(prompts.last))
    with torch.no_grad():
        _, hidden, resid = forward_with_neurons(model, prompts.idx)
        resid = resid[rows, prompts.last]                                    # (N, d_model)
        s = (resid.var(-1, unbiased=False) + model.ln_f.eps).sqrt()          # (N,)
        W = model.blocks[layer].mlp.c_proj.weight                            # (d_model, d_ff)
        W_centred = W - W.mean(0, keepdim=True)
        u = model.lm_head.weight[prompts.answer] * model.ln_f.weight         # (N, d_model)
        return hidden[layer][rows, prompts.last] * (u @ W_centred) / s[:, None]


class Vocab:
    """Word <-> id for the fact set; id 0 is padding."""

    def __init__(self, words):
        self.words = list(words)
        self.ids = {w: i for i, w in enumerate(self.words)}
        if len(self.ids) != len(self.words):
            raise ValueError("words must be unique")

    def __len__(self):
        return len(self.words)

    def encode(self, words):
        missing = [w for w in words if w not in self.ids]
        if missing:
            raise KeyError(f"unknown word(s) {missing}; the vocabulary has {len(self)} words")
        return [self.ids[w] for w in words]


@dataclass
class Prompts:
    """A right-padded batch of prompts: idx (N, T), last (N,), subject (N,), answer (N,)."""

    idx: torch.Tensor
    last: torch.Tensor      # position of each prompt's last word (where the answer is read)
    subject: torch.Tensor   # position of the subject word (the subject's last token)
    answer: torch.Tensor    # id of the correct capital
    fact: torch.Tensor      # row of facts.FACTS
    template: list


def make_prompts(vocab, templates, fact_rows=None, answers=None):
    """Every (fact, template) pair as one batch; answers overrides the capital of some facts."""
    rows = range(len(facts.FACTS)) if fact_rows is None else fact_rows
    answers = answers or {}
    encoded, last, subject, answer, fact, template = [], [], [], [], [], []
    for t in templates:
        for r in rows:
            country, capital = facts.FACTS[r]
            words, s = facts.prompt_words(t, country)
            encoded.append(vocab.encode(words))
            last.append(len(words) - 1)
            subject.append(s)
            answer.append(vocab.ids[answers.get(r, capital)])
            fact.append(r)
            template.append(t)
    idx = torch.zeros(len(encoded), max(map(len, encoded)), dtype=torch.long)
    for i, ids in enumerate(encoded):
        idx[i, : len(ids)] = torch.tensor(ids)
    return Prompts(idx, torch.tensor(last), torch.tensor(subject), torch.tensor(answer),
                   torch.tensor(fact), template)


def answer_logits(logits, prompts):
    """Logits at each prompt's last word: (N, T, V) -> (N, V)."""
    return logits[torch.arange(len(prompts.last)), prompts.last]


def accuracy(model, prompts, **kwargs):
    """Share of prompts whose top prediction is the answer (kwargs go to forward_with_neurons)."""
    with torch.no_grad():
        logits = answer_logits(forward_with_neurons(model, prompts.idx, **kwargs)[0], prompts)
    return (logits.argmax(-1) == prompts.answer).float().mean().item()


def save(model, vocab, folder):
    """Write model.safetensors, config.json and vocab.json into folder (a pathlib.Path)."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(asdict(model.config), indent=2) + "\n")
    (folder / "vocab.json").write_text(json.dumps(vocab.words, indent=0) + "\n")


def load():
    """The shipped model (in eval mode) and its vocabulary; safetensors + JSON, no pickle."""
    from safetensors.torch import load_file

    config = FactModelConfig(**json.loads(data_path(CONFIG).read_text()))
    vocab = Vocab(json.loads(data_path(VOCAB).read_text()))
    model = FactModel(config)
    model.load_state_dict(load_file(str(data_path(WEIGHTS))))
    return model.eval(), vocab
