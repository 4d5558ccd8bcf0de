"""The claims ledger: every numeric claim of the source posts, and the notebook cell that checks it.

A claim is checked by a code cell of its notebook that contains an `assert` and names the
claim's key in its metadata (`"claims": ["llama-widths"]`), so that rewording a cell or
renaming a variable keeps the ledger. This script scans the notebooks and writes docs/CLAIMS.md.

    python tools/claims.py           # write docs/CLAIMS.md
    python tools/claims.py --check   # exit 1 if the ledger is stale or a claim lost its check
"""

import re
import sys
from dataclasses import dataclass

import nbformat

from course_paths import ROOT, notebook_paths

LEDGER = ROOT / "docs" / "CLAIMS.md"
# The source posts, in course order: source post 1 is file 000 in ../shared/seeds, post 2 is
# 002, post 3 is 003 (Korean blog posts; titles are their first lines).
POSTS = {
    1: ("[LLM] LLM 서빙과 최적화 - 2.6. Transformer: MLP와 트랜스포머 블록 마무리",
        "LLM serving and optimisation 2.6: the MLP and the Transformer block (GPT-2's MLP, GELU, "
        "the GPT-3 parameter table, serving)"),
    2: ("Attention과 MLP: 토큰 사이의 정보와 토큰 내부의 변환",
        "Attention and MLP: information between tokens and the transformation within a token "
        "(a worked matrix multiply, ReLU, SwiGLU)"),
    3: ("GPT는 어디에 지식을 저장하나요?",
        "Where does GPT store knowledge? Part 3 of a series on Transformer, Attention and FFN (MLP): "
        "the FFN as key-value memory, ReLU/GELU/SiLU, the 4x expansion, three hands-on exercises"),
}


@dataclass(frozen=True)
class Claim:
    post: int        # 1, 2 or 3: the source post that states it
    notebook: str    # "01", "02", ...: the notebook whose cells check it
    key: str         # what the checking cell's metadata "claims" list names
    text: str


C = Claim
# One block per notebook, so that a change to one notebook touches one block.
CLAIMS = [
    # notebook 01
    C(2, "01", 'dot-product-0.5',
      '1 x 2 + 2 x (-1) + (-1) x (-0.5) + 0 x 1 = 0.5 (input times the third column)'),
    C(2, "01", 'worked-product',
      'x = [1, 2, -1, 0] through a 4 x 8 matrix gives [-2, 1, 0.5, -1, 3, 0, -0.5, 2]'),
    C(2, "01", 'relu-of-worked-product',
      'ReLU of that output is [0, 1, 0.5, 0, 3, 0, 0, 2]'),
    C(2, "01", 'rows-independent',
      'X (T x d) @ W (d x m): each output row depends only on its own input row'),
    C(2, "01", 'linear-maps-fold',
      'two linear maps without an activation fold into one (W1 @ W2)'),
    # notebook 02
    C(3, "02", 'tanh-gelu-error',
      "GELU's tanh formula 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) approximates x Phi(x) (largest error 0.000473)"),
    C(3, "02", 'negative-values-pass',
      'GELU and SiLU pass small negative values where ReLU gives 0'),
    C(3, "02", 'relu-dead-neurons',
      'dead neurons: a ReLU unit with negative inputs gets no gradient and never learns'),
    C(1, "02", 'gelu-gradient-nonzero',
      "GELU's derivative is not 0 for negative inputs (negative in the valley); ReLU's is exactly 0"),
    # notebook 03
    C(3, "03", 'hands-on-1-shapes',
      'hands-on 1: d_model = 512 -> d_ff = 2048 -> 512, each shape printed'),
    C(3, "03", 'four-x-expansion',
      '4x expansion: GPT-2 small 768 -> 3072, GPT-3 12,288 -> 49,152'),
    C(3, "03", 'dff-sweep-ratios',
      'the d_ff sweep 512 / 2048 / 8192 is 1x / 4x / 16x of d_model = 512'),
    C(1, "03", 'gpt2-mlp-params',
      "GPT-2 small's MLP: 768 -> 3072 -> 768, 8d^2 + biases = 4,722,432 parameters per layer"),
    # notebook 04
    C(3, "04", 'widen-and-back',
      "the FFN widens d to 4d and back (hands-on 2 draws this shape): 512 -> 2048, 768 -> 3072, 12,288 -> 49,152; 4,718,592 weights in GPT-2 small's MLP"),
    C(3, "04", 'relu-vs-gelu-off-units',
      'ReLU gives exactly 0 for negative inputs where GELU passes small negative values: for one token, the same 1,543 of 3,072 units'),
    # notebook 05
    C(2, "05", 'swiglu-formula',
      'SwiGLU: g = SiLU(x W_gate), u = x W_up, out = (g * u) W_down, back to d'),
    C(2, "05", 'gate-times-up-numbers',
      'gate x up, component by component: 2 x 0.1 = 0.2, -1 x 1.5 = -1.5, x 0 = 0, 0.5 x 2 = 1'),
    C(2, "05", 'gate-unbounded',
      'the gate is not bounded to [0, 1]: values above 1 and below 0 occur'),
    C(1, "05", 'fused-gate-up',
      'serving engines fuse gate and up into one GEMM: the same output'),
    C(2, "05", 'llama-widths',
      "the intermediate width is a design choice: Llama's rule (2/3 of 4d, times ffn_dim_multiplier, rounded up to multiple_of) gives 11008 (Llama-2-7B), 14336 (Llama-3-8B: 1.3, 1024) and 28672 (Llama-2-70B: 1.3, 4096)"),
    # notebook 06
    C(1, "06", 'gpt3-dimensions',
      'GPT-3: d_embed 12,288 = 96 heads x 128; n_neurons 49,152 = 4 x d_embed'),
    C(1, "06", 'gpt3-table-rows',
      'GPT-3 table: every row (617,558,016; 14,495,514,624 x 4; 57,982,058,496 x 2) and the total 175,181,291,520'),
    C(1, "06", 'attention-equals-up',
      "attention's four rows sum to the up-projection's (58.0B)"),
    C(1, "06", 'mlp-two-thirds',
      'MLP about 116.0B of 175B, about 2/3'),
    C(1, "06", 'per-layer-4d2-8d2',
      'per layer: attention 4d^2, MLP 8d^2, exactly 2x'),
    C(1, "06", 'gpt3-exact-totals',
      "the table's 175,181,291,520 is an approximation: weight matrices only, two embedding matrices (token embedding and unembedding), no biases, norms or position embeddings; counted exactly, GPT-3 holds 174,604,259,328 with a tied unembedding and 175,221,817,344 with its own, and the paper's 175B fits every count"),
    C(1, "06", 'attention-flops-crossover',
      "attention's parameter-free QK^T and AV terms overtake the MLP's FLOPs at long context"),
    C(1, "06", 'moe-total-vs-active',
      'MoE makes the MLP (2/3 of the parameters) sparse: Mixtral 8x7B total vs active parameters'),
    C(1, "06", 'moe-mlp-share',
      'MoE models (Mixtral, DeepSeek) keep most parameters in the MLP: 93-98% of all, 54-88% of those one token uses (DeepSeek-V3: 98% and 64%), against 46-78% in dense models'),
    # notebook 07
    C(1, "07", 'mlp-input',
      "the MLP's input is attention's output after W^O (not Q, K or V); in GPT-2's pre-LN code, ln_2(x + attn(ln_1(x)))"),
    C(2, "07", 'token-dependencies',
      "token 3's output uses tokens 1, 2, 3 in (causal) attention and only token 3 in the MLP"),
    C(1, "07", 'attention-weighted-average',
      "attention's output is a weighted average of V rows (weights >= 0, summing to 1)"),
    C(1, "07", 'attention-linear-in-v',
      'with the weights fixed, attention mixes V linearly; softmax only makes the ratios'),
    C(1, "07", 'gelu-breaks-fold',
      "stacked linear maps fold into one; GELU breaks the fold, so the MLP's nonlinearity is needed"),
    C(1, "07", 'position-wise-mlp',
      'position-wise: the MLP applies the same weights to each token, no information between positions'),
    C(1, "07", 'fixed-vs-dynamic-weights',
      "fixed vs dynamic: the MLP's weights are fixed at inference; attention's mixing weights are computed per input"),
    # notebook 08
    C(2, "08", 'within-one-token',
      "RMSNorm and the residual add work within one token's d components"),
    C(3, "08", 'depths-of-models',
      'GPT-2 small has 12 layers, GPT-3 96, Llama-3 405B 126'),
    C(1, "08", 'pre-ln-block',
      "nanoGPT's block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)); 12d^2 + 13d parameters"),
    C(1, "08", 'parallel-block',
      'the parallel block (GPT-J, PaLM): x + attn(ln(x)) + mlp(ln(x))'),
    C(1, "08", 'sequential-depth',
      'sequential steps = number of blocks, not tokens (training and prefill; generation adds one pass per new token)'),
    C(3, "08", 'post-ln-order',
      'Attention -> Add & Norm -> FFN -> Add & Norm is the original post-LN order; GPT-2 normalises inside each branch (pre-LN)'),
    C(1, "08", 'residual-edits-stream',
      'the residual adds an edit to the stream instead of rewriting it (each update under a third of the stream)'),
    # notebook 09
    C(1, "09", 'decode-reads-weights-mlp-share',
      "decode reads every weight once per token; about 2/3 of those bytes are the MLP's"),
    C(1, "09", 'no-kv-cache-for-mlp',
      "the MLP has no KV cache; attention's KV cache size follows from the architecture constants"),
    C(1, "09", 'decode-memory-bound',
      "decode is memory-bandwidth-bound: one token reads the FFN's weights at memory speed"),
    C(1, "09", 'decode-bytes-from-config',
      "a decode step's bytes follow from the config: Llama-2-7B reads 13,214,695,424 bytes in bfloat16"),
    # notebook 10
    C(1, "10", 'megatron-split',
      'Megatron: up-projection column-parallel, down-projection row-parallel, one all-reduce'),
    C(1, "10", 'ring-all-reduce-bytes',
      'the one all-reduce in a ring sends 2(N-1)/N of its buffer per worker: 48 KiB at N=2, 72 KiB at N=4'),
    C(1, "10", 'parallelize-module',
      "PyTorch's parallelize_module (ColwiseParallel c_fc, RowwiseParallel c_proj) runs the same one all-reduce"),
    C(1, "10", 'tp-cuts-bytes',
      'tensor parallelism cuts the MLP bytes each GPU reads per decode step to 1/N (Llama-2-7B: 1.08 GB on 8)'),
    # notebook 11
    C(1, "11", 'moe-sparsifies-mlp',
      'MoE makes the MLP sparse because it holds 2/3 of a block (8d^2 of 12d^2; 66.2% of GPT-3)'),
    C(1, "11", 'moe-dispatch-equals-dense',
      'the MoE layer runs each expert on its own tokens only and equals the dense loop over all experts'),
    C(1, "11", 'mixtral-params',
      'Mixtral 8x7B: 46,702,792,704 parameters held, 12,879,925,248 used per token'),
    C(1, "11", 'not-eight-copies',
      '"8x7B" is not 8 copies: only the MLP is copied; 8 x Mistral 7B would be 57.9B'),
    C(1, "11", 'experts-resident',
      'every expert stays resident: Mixtral is 93.4 GB in bf16, more than one 80 GB GPU'),
    C(1, "11", 'decode-batch-reads-experts',
      'a decode batch of 16 reads E(1 - (1 - k/E)^B) = 7.9 of 8 experts per layer: most of the weights'),
    # notebook 12
    C(3, "12", 'knockout-removes-fact',
      "FFN neurons as key-value memories: knocking out a fact's top neurons removes that fact"),
    C(3, "12", 'rank-one-edit',
      'knowledge editing (ROME-style): change one fact by a rank-one edit of the down-projection'),
    C(3, "12", 'neuron-contributions-add-up',
      "neurons as key-value memory: activation x value vector, read through the head, adds up to the MLP's logit"),
    C(3, "12", 'where-facts-recalled',
      'where facts are recalled: knocking out MLP outputs by layer and word (ROME: middle-layer MLPs at the subject)'),
    C(3, "12", 'top-k-vs-random-ablation',
      "a fact's own top-k neurons remove it at every k, k random neurons do not, and other facts survive"),
    # notebook 13
    C(1, "13", 'gpt2-small-checkpoint',
      "GPT-2 small as transformers builds it: Transformer Block x 12, each MLP 768 -> 3072 (GELU) -> 768 and Q/K/V fused 768 -> 2304; the calculator gives its 124,439,808 parameters"),
    C(3, "13", 'gpt2-fact-sources-add-up',
      "where a fact comes from: the embeddings, every attention layer and every MLP add up to the answer's logit, and the logit lens after the last block is the output"),
    C(3, "13", 'gpt2-rank-one-edit',
      "knowledge editing (ROME) on GPT-2: one rank-one update of one down-projection maps the subject's key to the new value"),
]


def checking_cells(paths):
    """(notebook name, execution count, claim keys, whether it asserts) of every code cell with keys."""
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            keys = cell.metadata.get("claims", [])
            if cell.cell_type == "code" and keys:
                asserts = re.search(r"^\s*assert\b", cell.source, re.M) is not None
                yield path.name, cell.execution_count, list(keys), asserts


def ledger(paths):
    """Each claim with the asserting cells that check it: [(claim, [(notebook, count), ...])]."""
    cells = list(checking_cells(paths))
    rows = []
    for claim in CLAIMS:
        hits = [(name, count) for name, count, keys, asserts in cells
                if name.startswith(claim.notebook) and claim.key in keys and asserts]
        rows.append((claim, hits))
    return rows


def unknown_keys(paths):
    """Claim keys that cells name but the ledger does not hold: [(notebook, key)]."""
    known = {claim.key for claim in CLAIMS}
    return [(name, key) for name, _, keys, _ in checking_cells(paths) for key in keys
            if key not in known]


def render(rows):
    lines = [
        "# Claims ledger",
        "",
        "Every numeric claim of the source posts that the course checks, and the notebook cell",
        "(by execution count) whose `assert` checks it. Generated by `python tools/claims.py`;",
        "`tests/test_claims.py` fails when a claim loses its checking cell or this file is stale.",
        "",
        "The source posts (Korean blog posts; see [SOURCES.md](SOURCES.md)):",
        "",
        *[f"- **Source post {n}**: {title} ({gist})" for n, (title, gist) in POSTS.items()],
        "",
        "| Post | Claim | Checked in |",
        "|---|---|---|",
    ]
    for claim, hits in rows:
        where = ", ".join(f"[{n}](../notebooks/{n}) cell [{c}]" for n, c in hits) or "**not checked**"
        lines.append(f"| {claim.post} | {claim.text} | {where} |")
    return "\n".join(lines) + "\n"


def main(argv):
    rows = ledger(notebook_paths())
    text = render(rows)
    unchecked = [c.text for c, hits in rows if not hits]
    unknown = unknown_keys(notebook_paths())
    for name, key in unknown:
        print(f"{name}: a cell names the claim {key!r}, which tools/claims.py does not hold")
    if "--check" in argv:
        stale = not LEDGER.exists() or LEDGER.read_text() != text
        for t in unchecked:
            print(f"claim without a checking cell: {t}")
        if stale:
            print("docs/CLAIMS.md is stale: run `python tools/claims.py`")
        return 1 if (stale or unchecked or unknown) else 0
    LEDGER.write_text(text)
    print(f"{len(rows)} claims, {len(rows) - len(unchecked)} checked -> {LEDGER.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
