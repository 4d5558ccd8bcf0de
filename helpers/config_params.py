"""Count a model's parameters from its Hugging Face `config.json`, component by component.

Reads the model families learners meet (model_type in the config), each as Hugging Face
transformers builds it, so that the count equals `sum(p.numel() for p in model.parameters())`
with tied weights counted once:

- classic MLP (up-projection, activation, down-projection): gpt2 (and gpt3, the GPT-3
  paper's constants in GPT-2's names), gptj, gpt_neox (Pythia), opt, bloom, falcon, phi,
  starcoder2;
- gated MLP (gate_proj, up_proj, down_proj), Llama-style: llama, mistral, granite, qwen2,
  qwen3, gemma, gemma2, gemma3_text, phi3, olmo, olmo2, stablelm, cohere;
- mixture of experts: mixtral, phimoe, olmoe, qwen2_moe, qwen3_moe, deepseek_v3.

Components: embedding, position_embedding, attention, mlp, router, norms, unembedding
(helpers.params.breakdown says what each holds). For an MoE, `active` and `mlp_active` count
what one token uses. `weights_only=True` counts the big matrices only (token embedding,
attention, MLP, router, unembedding): no biases, no norms, no position embeddings, the
convention of the GPT-3 table. A config that cannot be read exactly is refused with a
ConfigError naming the file (helpers.params.files) or the field (helpers.params.fields).

    python -m helpers params gpt2            # a shipped config, a config.json or its folder
"""

import argparse
import json
import os
import signal
import sys

from helpers.params.breakdown import (  # noqa: F401  (the calculator's public names)
    COMPONENTS,
    FAMILIES,
    Breakdown,
    count_params,
    crossover_seq_len,
    flops_per_token,
    format_table,
    human,
    to_json,
)
from helpers.params.fields import MAX_COUNT  # noqa: F401
from helpers.params.files import (  # noqa: F401
    MAX_FILE_BYTES,
    ConfigError,
    MissingConfig,
    load_config,
    shipped_configs,
)
from helpers.params.published import published_counts  # noqa: F401


def main(argv=None):
    """`python -m helpers params CONFIG [--json] [--weights-only]`: print the breakdown."""
    try:
        return _run(argv)
    except BrokenPipeError:
        return closed_stdout()


def _run(argv):
    parser = argparse.ArgumentParser(
        prog="python -m helpers params",
        description="Parameters of a model, by component (embedding, position_embedding, "
                    "attention, mlp, router, norms, unembedding), from its Hugging Face "
                    "config.json, counted as transformers builds the model. Model types: "
                    + ", ".join(sorted(FAMILIES)) + ".",
        epilog="A config that cannot be counted exactly is refused with a message naming the "
               "file or the field (exit status 2).")
    parser.add_argument("config", help="a config.json, a model folder holding one, or a shipped "
                        "name: " + ", ".join(shipped_configs()))
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--weights-only", action="store_true",
                        help="count the big matrices only (no biases, norms, position embeddings)")
    args = parser.parse_args(argv)
    try:
        breakdown = count_params(args.config, weights_only=args.weights_only)
    except (ConfigError, OSError) as err:
        parser.exit(2, f"error: {err}\n")
    text = json.dumps(to_json(breakdown), indent=2) if args.json else format_table(breakdown)
    try:
        print(text, flush=True)
    except BrokenPipeError:
        raise
    except OSError as err:  # a full disk, /dev/full: one line, not a traceback
        # nothing left for the exit's flush
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print(f"error: could not write the result to standard output: {err.strerror or err}",
              file=sys.stderr)
        return 1
    return 0


def closed_stdout():
    """End quietly when the reader of stdout has gone (`| head -1`), as cat does: status 141.

    stdout is pointed at devnull, so that Python's own flush at exit finds nothing to complain of.
    """
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 128 + getattr(signal, "SIGPIPE", 13)  # the status of a command a closed pipe ended


if __name__ == "__main__":
    raise SystemExit(main())
