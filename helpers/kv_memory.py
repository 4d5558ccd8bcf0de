"""A tiny word-level GPT that notebook 12 trains on the fact set, and its plumbing.

FactModel is token + position embeddings, a stack of the course's pre-LN
`helpers.block.Block`s (each with a GELU `helpers.ffn.FFN` whose activation is the
submodule `mlp.act`), a final LayerNorm and an untied head. `train` is the training
run behind the shipped weights (`tools/train_fact_model.py` calls it); they ship in
data/fact_model/ as safetensors with a JSON config and vocabulary (no pickle).
Notebook 12 reads and changes the hidden neurons with forward hooks (`helpers.hooks.attached`).
Its prompts (Vocab, Prompts, make_prompts) come from helpers.fact_prompts.
"""

import json
from dataclasses import asdict, dataclass

import torch
from torch import nn

from helpers import facts, validate
from helpers.block import Block
from helpers.data import data_path
from helpers.fact_prompts import Prompts, Vocab, make_prompts  # noqa: F401 - exported
from helpers.hooks import attached

WEIGHTS, CONFIG, VOCAB = ("fact_model/model.safetensors", "fact_model/config.json",
                          "fact_model/vocab.json")


@dataclass
class FactModelConfig:
    vocab_size: int = 248
    n_ctx: int = 12
    d_model: int = 64
    n_head: int = 4
    n_layers: int = 2
    d_ff: int = 256

    def __post_init__(self):
        for name, value in asdict(self).items():
            validate.positive_int(value, f"FactModelConfig.{name}")


class FactModel(nn.Module):
    """idx (B, T) word ids -> logits (B, T, vocab_size)."""

    def __init__(self, config):
        super().__init__()
        validate.instance_of(config, "config", FactModelConfig)
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.d_model)
        self.wpe = nn.Embedding(config.n_ctx, config.d_model)
        self.blocks = nn.ModuleList(
            Block(config.d_model, config.n_head, config.d_ff) for _ in range(config.n_layers))
        self.ln_f = nn.LayerNorm(config.d_model)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)

    def forward(self, idx):
        validate.tensor(idx, "idx")
        validate.ndim(idx, "idx", 2)
        if idx.is_floating_point() or idx.is_complex() or idx.dtype == torch.bool:
            raise TypeError(f"idx must hold integer word ids (torch.long), got dtype {idx.dtype}")
        if idx.numel():
            low, high = (int(v) for v in torch.aminmax(idx))
            if low < 0 or high >= self.config.vocab_size:
                raise ValueError(f"idx holds word id {low if low < 0 else high} but the vocabulary "
                                 f"has {self.config.vocab_size} words (ids 0 to "
                                 f"{self.config.vocab_size - 1})")
        if idx.shape[1] > self.config.n_ctx:
            raise ValueError(f"idx has {idx.shape[1]} positions but the model has "
                             f"n_ctx={self.config.n_ctx}")
        # (B, T, d_model)
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            # attention, then the MLP (mlp.act: the neurons)
            x = block(x)
        return self.lm_head(self.ln_f(x))                 # (B, T, vocab_size)


def subject_noise(model, prompts, scale=3.0, seed=0):
    """(N, d_model) Gaussian noise for each prompt's subject: `scale` times the std of the subjects'
    embeddings (ROME's causal tracing uses 3), from its own generator (the global one is left
    alone)."""
    validate.instance_of(prompts, "prompts", Prompts, "(from make_prompts)")
    validate.positive_number(scale, "scale")
    validate.non_negative_int(seed, "seed")
    subjects = prompts.idx[torch.arange(len(prompts.last)), prompts.subject]
    std = model.wte.weight.detach()[subjects].std().item()
    generator = torch.Generator().manual_seed(seed)
    return scale * std * torch.randn(len(subjects), model.config.d_model, generator=generator)


_THREADS_BEFORE = []   # torch's thread count before use_one_thread(), until restore_threads()


def use_one_thread():
    """Put torch on one CPU thread until restore_threads(); calling it again keeps the first count
    to restore.

    Notebook 12 calls it at its start and restore_threads() at its end: this model's matmuls are
    tiny, a second thread costs more to wake than it saves, and on a busy machine two threads wait
    for each other (ten times slower, measured). helpers.capacity.one_thread does the same for a
    `with` block.
    """
    if not _THREADS_BEFORE:
        _THREADS_BEFORE.append(torch.get_num_threads())
    torch.set_num_threads(1)


def restore_threads():
    """Give torch back the thread count it had before use_one_thread() (nothing to do if it was not
    called)."""
    if _THREADS_BEFORE:
        torch.set_num_threads(_THREADS_BEFORE.pop())


def neuron_contributions(model, prompts, layer):
    """(N, d_ff): activation x value vector . unembedding of the answer, at each prompt's last word.

    The final LayerNorm is folded in: it centres a vector, divides by the residual's
    standard deviation s (measured on the prompt) and multiplies by its gain g, so neuron i adds
    h_i * (g * u_answer) . (w_i - mean(w_i)) / s to the answer's logit.
    """
    validate.instance_of(model, "model", FactModel)
    validate.instance_of(prompts, "prompts", Prompts, "(from make_prompts)")
    layer = validate.index(layer, "layer", len(model.blocks))
    rows = torch.arange(len(prompts.last))
    seen = {}

    def keep_neurons(module, inputs, output):
        seen["h"] = output                                                   # (N, T, d_ff)

    def keep_residual(module, inputs, output):
        seen["resid"] = inputs[0]                                            # (N, T, d_model)

    with torch.no_grad(), attached({model.blocks[layer].mlp.act: keep_neurons,
                                    model.ln_f: keep_residual}):
        model(prompts.idx)
        resid = seen["resid"][rows, prompts.last]                            # (N, d_model)
        s = (resid.var(-1, unbiased=False) + model.ln_f.eps).sqrt()          # (N,)
        W = model.blocks[layer].mlp.c_proj.weight                            # (d_model, d_ff)
        W_centred = W - W.mean(0, keepdim=True)
        u = model.lm_head.weight[prompts.answer] * model.ln_f.weight         # (N, d_model)
        return seen["h"][rows, prompts.last] * (u @ W_centred) / s[:, None]


def rome_update(W, keys, values, C):
    """ROME's edit (Meng et al. 2022, eq. 2): the W' nearest W, in C's metric, with W' keys =
    values.

    W: (d_model, d_ff), a down-projection's weight. keys: (d_ff,) one key k*, or (d_ff, r) r keys
    as columns. values: (d_model,) or (d_model, r), what W' must map them to (a bias, if the layer
    has one, subtracted first). C: (d_ff, d_ff), the keys' uncentred covariance E[k k^T].
    Returns the new W (W is not changed). With one key it is the rank-one update
        W' = W + (v* - W k*) (C^-1 k*)^T / (k*^T C^-1 k*);
    with r keys, W' = W + (V - W K) (K^T C^-1 K)^-1 (C^-1 K)^T, which meets all r at once.
    """
    for name, x in [("W", W), ("keys", keys), ("values", values), ("C", C)]:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            raise TypeError(f"{name} must be a floating-point torch tensor, got {type(x).__name__}"
                            + (f" of dtype {x.dtype}" if isinstance(x, torch.Tensor) else ""))
    validate.ndim(W, "W", 2)
    validate.ndim(keys, "keys", (1, 2))
    validate.ndim(values, "values", (1, 2))
    validate.ndim(C, "C", 2)
    K = keys[:, None] if keys.ndim == 1 else keys                     # (d_ff, r)
    V = values[:, None] if values.ndim == 1 else values               # (d_model, r)
    d_model, d_ff = W.shape
    if K.shape[0] != d_ff or C.shape != (d_ff, d_ff) or V.shape != (d_model, K.shape[1]):
        raise ValueError(f"W is (d_model, d_ff) = {tuple(W.shape)}, so keys must be ({d_ff},) or "
                         f"({d_ff}, r), values ({d_model},) or ({d_model}, r) and C ({d_ff}, "
                         f"{d_ff}); got keys {tuple(keys.shape)}, values {tuple(values.shape)}, C "
                         f"{tuple(C.shape)}")
    C_inv_K = torch.linalg.solve(C, K)                              # C^-1 K, without forming C^-1
    residual = V - W @ K                                            # what each key still lacks
    return W + residual @ torch.linalg.solve(K.T @ C_inv_K, C_inv_K.T)


def answer_logits(logits, prompts):
    """Logits at each prompt's last word: (N, T, V) -> (N, V)."""
    validate.instance_of(prompts, "prompts", Prompts, "(from make_prompts)")
    validate.tensor(logits, "logits")
    validate.ndim(logits, "logits", 3)
    if logits.shape[0] != len(prompts.last):
        raise ValueError(f"logits has {logits.shape[0]} rows but prompts holds {len(prompts.last)} "
                         "prompts: pass the logits of model(prompts.idx)")
    rows = torch.arange(len(prompts.last), device=logits.device)
    return logits[rows, prompts.last.to(logits.device)]


def accuracy(model, prompts):
    """Share of prompts whose top prediction is the answer (hooks in place apply)."""
    validate.function(model, "model")
    validate.instance_of(prompts, "prompts", Prompts, "(from make_prompts)")
    with torch.no_grad():
        logits = answer_logits(model(prompts.idx), prompts)
    return (logits.argmax(-1) == prompts.answer).float().mean().item()


def freeze_all_but_mlps_and_routing(model):
    """Leave word codes, the head and what attention carries at their random start.

    Word vectors in and out are fixed random codes; attention may learn where to look
    (queries and keys) but not what it carries (values and output projection). A learned
    map country -> capital then has nowhere to live but the MLPs: the lesson's claim,
    made testable in a model this small.
    """
    validate.instance_of(model, "model", FactModel)
    torch.nn.init.normal_(model.lm_head.weight, std=0.25)  # room for confident logits
    for p in (model.wte.weight, model.lm_head.weight):
        p.requires_grad_(False)
    d_model = model.config.d_model
    for block in model.blocks:
        block.attn.c_proj.requires_grad_(False)
        keep = torch.ones(3 * d_model, 1)
        keep[2 * d_model:] = 0                          # rows of c_attn that make V
        # keep follows the gradient's device, so a model moved to a GPU after this still trains
        block.attn.c_attn.weight.register_hook(lambda g, keep=keep: g * keep.to(g.device))
        block.attn.c_attn.bias.register_hook(lambda g, keep=keep[:, 0]: g * keep.to(g.device))


def train(config=None, steps=400, lr=5e-3, seed=0, log_every=0):
    """Train a FactModel on the six training phrasings; return (model, vocab, loss per step).

    Full-batch Adam with a cosine schedule; the loss is the cross-entropy of the capital
    at each prompt's last word. Seeded: the same call gives the same weights on the same
    machine and torch version.
    """
    if config is not None:
        validate.instance_of(config, "config", FactModelConfig)
    steps = validate.positive_int(steps, "steps")
    lr = validate.positive_number(lr, "lr")
    seed = validate.non_negative_int(seed, "seed")
    log_every = validate.non_negative_int(log_every, "log_every")
    torch.manual_seed(seed)
    vocab = Vocab(facts.vocabulary())
    config = config or FactModelConfig(vocab_size=len(vocab))
    model = FactModel(config)
    freeze_all_but_mlps_and_routing(model)
    data = make_prompts(vocab, facts.TRAIN_TEMPLATES)
    # No weight decay: it would shrink the frozen value rows of c_attn too.
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    losses = []
    for step in range(steps):
        logits = answer_logits(model(data.idx), data)             # (708, vocab): the next word
        loss = torch.nn.functional.cross_entropy(logits, data.answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:5d}  loss {loss.item():.4f}", flush=True)
    return model.eval(), vocab, losses


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
