"""Train notebook 12's tiny fact model on CPU and write it to build/fact_model/.

    python tools/train_fact_model.py            # the shipped recipe, beside the shipped weights
    REPLACE=1 python tools/train_fact_model.py  # over the shipped weights in data/fact_model/
    python tools/train_fact_model.py --steps 50 --out /tmp/fact_model

`make train-model` runs the first (`make train-model REPLACE=1` the second): the weights the
notebooks and the package use stay as they are until asked, and `cmp` tells whether a retrained
file equals the shipped one.

The training itself is `helpers.kv_memory.train` (full-batch Adam on the six
training phrasings of every fact, with word vectors, the head and attention's
values frozen), so that it also runs where only the installed package is (Colab).
Seeded, and run on portable CPU kernels (below): the same command gives the same weights,
bit for bit, with the same torch version.
"""

import argparse
import os
import sys
import time
from pathlib import Path

# The same weights on any x86 CPU: pin torch's own kernels, MKL's and oneDNN's to their
# portable code paths (set before torch loads; a variable already set is left alone). It costs
# speed, and without it the weights differ in the last bits between CPUs (AVX2 vs AVX-512,
# Intel vs AMD), so `make train-model` would not reproduce the shipped file elsewhere. Only when
# run as a script: a program that imports this module keeps its own settings.
if __name__ == "__main__":
    for name, value in {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE",
                        "ONEDNN_MAX_CPU_ISA": "SSE41"}.items():
        os.environ.setdefault(name, value)

import torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers import facts, kv_memory  # noqa: E402


def output_dir():
    """build/fact_model/, or the shipped data/fact_model/ with REPLACE=1."""
    if os.environ.get("REPLACE") == "1":
        return ROOT / "data" / "fact_model"
    return ROOT / "build" / "fact_model"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=output_dir())
    args = parser.parse_args(argv)
    torch.set_num_threads(1)  # small matmuls: one thread is fastest and reproducible
    start = time.perf_counter()
    model, vocab, _ = kv_memory.train(steps=args.steps, seed=args.seed, log_every=100)
    seconds = time.perf_counter() - start
    for name, templates in [("training phrasings", facts.TRAIN_TEMPLATES),
                            ("held-out phrasings", facts.HELD_OUT_TEMPLATES)]:
        acc = kv_memory.accuracy(model, kv_memory.make_prompts(vocab, templates))
        print(f"accuracy on {name}: {acc:.1%}")
    kv_memory.save(model, vocab, args.out)
    shipped = ROOT / "data" / "fact_model"
    print(f"trained in {seconds:.1f} s; wrote {args.out}"
          + ("" if args.out == shipped else " (the shipped model in data/fact_model/ is unchanged;"
             " REPLACE=1 writes there)"))


if __name__ == "__main__":
    main()
