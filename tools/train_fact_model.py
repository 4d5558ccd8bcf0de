"""Train notebook 12's tiny fact model on CPU and write it to data/fact_model/.

    python tools/train_fact_model.py            # the shipped model (make train-model)
    python tools/train_fact_model.py --steps 50 --out /tmp/fact_model

Full-batch AdamW on the six training phrasings of every fact; the loss is the
cross-entropy of the capital at the prompt's last word. Seeded: the same
command gives the same weights on the same torch version.
"""

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers import facts, kv_memory  # noqa: E402


def freeze_all_but_mlps_and_routing(model):
    """Leave word codes, the head and what attention carries at their random start.

    Word vectors in and out are fixed random codes; attention may learn where to look
    (queries and keys) but not what it carries (values and output projection). A learned
    map country -> capital then has nowhere to live but the MLPs: the lesson's claim,
    made testable in a model this small.
    """
    torch.nn.init.normal_(model.lm_head.weight, std=0.25)  # room for confident logits
    for p in (model.wte.weight, model.lm_head.weight):
        p.requires_grad_(False)
    d_model = model.config.d_model
    for block in model.blocks:
        block.attn.c_proj.requires_grad_(False)
        keep = torch.ones(3 * d_model, 1)
        keep[2 * d_model:] = 0                          # rows of c_attn that make V
        block.attn.c_attn.weight.register_hook(lambda g, keep=keep: g * keep)
        block.attn.c_attn.bias.register_hook(lambda g, keep=keep[:, 0]: g * keep)


def train(config=None, steps=400, lr=5e-3, seed=0, log_every=0):
    """Train a FactModel; return (model, vocab, losses per step)."""
    torch.manual_seed(seed)
    vocab = kv_memory.Vocab(facts.vocabulary())
    config = config or kv_memory.FactModelConfig(vocab_size=len(vocab))
    model = kv_memory.FactModel(config)
    freeze_all_but_mlps_and_routing(model)
    data = kv_memory.make_prompts(vocab, facts.TRAIN_TEMPLATES)
    # No weight decay: it would shrink the frozen value rows of c_attn too.
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    losses = []
    for step in range(steps):
        logits = kv_memory.answer_logits(model(data.idx), data)
        loss = torch.nn.functional.cross_entropy(logits, data.answer)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
        if log_every and (step % log_every == 0 or step == steps - 1):
            print(f"step {step:5d}  loss {loss.item():.4f}", flush=True)
    return model.eval(), vocab, losses


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "fact_model")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small matmuls: one thread is fastest and reproducible
    start = time.perf_counter()
    model, vocab, _ = train(steps=args.steps, seed=args.seed, log_every=100)
    seconds = time.perf_counter() - start
    for name, templates in [("training phrasings", facts.TRAIN_TEMPLATES),
                            ("held-out phrasings", facts.HELD_OUT_TEMPLATES)]:
        acc = kv_memory.accuracy(model, kv_memory.make_prompts(vocab, templates))
        print(f"accuracy on {name}: {acc:.1%}")
    kv_memory.save(model, vocab, args.out)
    print(f"trained in {seconds:.1f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
