"""The claims ledger: every numeric claim of the source posts, and the notebook cell that checks it.

A claim is checked by a code cell of its notebook that contains an `assert` and matches
all of the claim's patterns. This script scans the notebooks and writes docs/CLAIMS.md.

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
    notebook: str    # "01".."12": the notebook whose cells check it
    text: str
    patterns: tuple  # regexes that must all match one asserting cell of that notebook


C = Claim
# One block per notebook, so that a change to one notebook touches one block.
CLAIMS = [
    # notebook 01
    C(2, "01", '1 x 2 + 2 x (-1) + (-1) x (-0.5) + 0 x 1 = 0.5 (input times the third column)',
      (r"== 0\.5", r"column_3")),
    C(2, "01", 'x = [1, 2, -1, 0] through a 4 x 8 matrix gives [-2, 1, 0.5, -1, 3, 0, -0.5, 2]',
      (r"post_output", r"-2, 1, 0\.5, -1, 3, 0, -0\.5, 2")),
    C(2, "01", 'ReLU of that output is [0, 1, 0.5, 0, 3, 0, 0, 2]',
      (r"\[0, 1, 0\.5, 0, 3, 0, 0, 2\]",)),
    C(2, "01", 'X (T x d) @ W (d x m): each output row depends only on its own input row',
      (r"rows_moved == \[3\]",)),
    C(2, "01", 'two linear maps without an activation fold into one (W1 @ W2)',
      (r"W1 @ W2",)),
    # notebook 02
    C(3, "02", "GELU's tanh formula 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) approximates x Phi(x) (largest error 0.000473)",
      (r"0\.000473",)),
    C(3, "02", 'GELU and SiLU pass small negative values where ReLU gives 0',
      (r"gelu\(z\)\[z < 0\] < 0", r"silu\(z\)\[z < 0\] < 0")),
    C(3, "02", 'dead neurons: a ReLU unit with negative inputs gets no gradient and never learns',
      (r'moved\[\"relu\"\] == 0',)),
    C(1, "02", "GELU's derivative is not 0 for negative inputs (negative in the valley); ReLU's is exactly 0",
      (r'grads\[\"relu\"\] == 0', r'grads\[\"gelu\"\]\[:4\] < 0')),
    # notebook 03
    C(3, "03", 'hands-on 1: d_model = 512 -> d_ff = 2048 -> 512, each shape printed',
      (r"\(512, 2048\)", r"\(4, 2048\)")),
    C(3, "03", '4x expansion: GPT-2 small 768 -> 3072, GPT-3 12,288 -> 49,152',
      (r"f == 4 \* d",)),
    C(3, "03", 'the d_ff sweep 512 / 2048 / 8192 is 1x / 4x / 16x of d_model = 512',
      (r"\[1, 4, 16\]",)),
    C(1, "03", "GPT-2 small's MLP: 768 -> 3072 -> 768, 8d^2 + biases = 4,722,432 parameters per layer",
      (r"4_722_432", r"8 \* d\*\*2")),
    # notebook 04
    C(3, "04", 'the FFN widens d to 4d and back (hands-on 2 draws this shape): 512 -> 2048, 768 -> 3072, 12,288 -> 49,152; 4,718,592 weights in GPT-2 small\'s MLP',
      (r"d_ff == 4 \* d_model", r"4_718_592")),
    C(3, "04", 'ReLU gives exactly 0 for negative inputs where GELU passes small negative values: for one token, the same 1,543 of 3,072 units',
      (r"off_relu == negative_gelu == int\(negative.sum\(\)\) == 1543",)),
    # notebook 05
    C(2, "05", 'SwiGLU: g = SiLU(x W_gate), u = x W_up, out = (g * u) W_down, back to d',
      (r"silu\(z\)", r"out.shape == x.shape")),
    C(2, "05", 'gate x up, component by component: 2 x 0.1 = 0.2, -1 x 1.5 = -1.5, x 0 = 0, 0.5 x 2 = 1',
      (r"2 \* 0\.1 == 0\.2", r"-1 \* 1\.5 == -1\.5", r"0\.5 \* 2 == 1")),
    C(2, "05", 'the gate is not bounded to [0, 1]: values above 1 and below 0 occur',
      (r"below > 0 and above > 0",)),
    C(1, "05", 'serving engines fuse gate and up into one GEMM: the same output',
      (r"fused_mlp\(X\), mlp\(X\)",)),
    C(2, "05", "the intermediate width is a design choice: Llama's rule (2/3 of 4d, times ffn_dim_multiplier, rounded up to multiple_of) gives 11008 (Llama-2-7B), 14336 (Llama-3-8B: 1.3, 1024) and 28672 (Llama-2-70B: 1.3, 4096)",
      (r"llama_d_ff\(4096\) == 11008", r"llama_d_ff\(4096, 1024, 1\.3\) == 14336", r"llama_d_ff\(8192, 4096, 1\.3\) == 28672")),
    # notebook 06
    C(1, "06", 'GPT-3: d_embed 12,288 = 96 heads x 128; n_neurons 49,152 = 4 x d_embed',
      (r"12_288", r"49_152")),
    C(1, "06", 'GPT-3 table: every row (617,558,016; 14,495,514,624 x 4; 57,982,058,496 x 2) and the total 175,181,291,520',
      (r"175_181_291_520", r"post_rows")),
    C(1, "06", "attention's four rows sum to the up-projection's (58.0B)",
      (r'attention == table\[\"Up-projection\"\]',)),
    C(1, "06", 'MLP about 116.0B of 175B, about 2/3',
      (r"116\.0", r"2 / 3")),
    C(1, "06", 'per layer: attention 4d^2, MLP 8d^2, exactly 2x',
      (r"mlp_per_block == 2 \* attention_per_block",)),
    C(1, "06", "the table's 175,181,291,520 is an approximation: weight matrices only, two embedding matrices "
               "(token embedding and unembedding), no biases, norms or position embeddings; counted exactly, "
               "GPT-3 holds 174,604,259,328 with a tied unembedding and 175,221,817,344 with its own, "
               "and the paper's 175B fits every count",
      (r"174_604_259_328", r"175_221_817_344", r"position_embedding\"\] == post_count\.components\[\"norms\"\] == 0",
       r"agrees\(b\.total, paper\)")),
    C(1, "06", "attention's parameter-free QK^T and AV terms overtake the MLP's FLOPs at long context",
      (r"crossover_seq_len",)),
    C(1, "06", 'MoE makes the MLP (2/3 of the parameters) sparse: Mixtral 8x7B total vs active parameters',
      (r"12_879_925_248", r"46_702_792_704")),
    C(1, "06", 'MoE models (Mixtral, DeepSeek) keep most parameters in the MLP: 93-98% of all, 54-88% of '
               'those one token uses (DeepSeek-V3: 98% and 64%), against 46-78% in dense models',
      (r'"46%-78%", "93%-98%", "54%-88%"', r"deepseek\.mlp_active_share, 2\) == 0\.64")),
    # notebook 07
    C(2, "07", "token 3's output uses tokens 1, 2, 3 in (causal) attention and only token 3 in the MLP",
      (r"uses_attn == \[1, 2, 3\] and uses_mlp == \[3\]",)),
    C(1, "07", "attention's output is a weighted average of V rows (weights >= 0, summing to 1)",
      (r"A\.sum\(dim=-1\)", r"A >= 0")),
    C(1, "07", 'with the weights fixed, attention mixes V linearly; softmax only makes the ratios',
      (r"mix\(a \* V1 \+ b \* V2\)",)),
    C(1, "07", "stacked linear maps fold into one; GELU breaks the fold, so the MLP's nonlinearity is needed",
      (r"err_linear < 1e-10 and err_gelu > 0\.2",)),
    C(1, "07", 'position-wise: the MLP applies the same weights to each token, no information between positions',
      (r"moves_mlp, torch\.eye",)),
    C(1, "07", "fixed vs dynamic: the MLP's weights are fixed at inference; attention's mixing weights are computed per input",
      (r"weights_moved > 0\.1", r"changes\(mlp, X_other\)")),
    # notebook 08
    C(2, "08", "RMSNorm and the residual add work within one token's d components",
      (r"moved_tokens\(layer, x, j\) == \[j\]",)),
    C(3, "08", 'GPT-2 small has 12 layers, GPT-3 96, Llama-3 405B 126',
      (r"405e9", r"175_181_291_520")),
    C(1, "08", "nanoGPT's block: x = x + attn(ln_1(x)); x = x + mlp(ln_2(x)); 12d^2 + 13d parameters",
      (r"pre_ln_block\(x\), block\(x\)",)),
    C(1, "08", 'the parallel block (GPT-J, PaLM): x + attn(ln(x)) + mlp(ln(x))',
      (r"parallel_block\(x\), par\(x\)",)),
    C(1, "08", 'sequential steps = number of blocks, not tokens (training and prefill; generation adds one pass per new token)',
      (r"calls == \[n_tokens\]",)),
    C(3, "08", "Attention -> Add & Norm -> FFN -> Add & Norm is the original post-LN order; GPT-2 normalises inside each branch (pre-LN)",
      (r"post_ln_block\(x\), post\(x\)", r"pre_ln_block\(x\), block\(x\)")),
    C(1, "08", "the residual adds an edit to the stream instead of rewriting it (each update under a third of the stream)",
      (r"edit_ratio < 1 / 3",)),
    # notebook 09
    C(1, "09", "decode reads every weight once per token; about 2/3 of those bytes are the MLP's",
      (r"bytes_per_step", r"mlp_share - 2 / 3")),
    C(1, "09", "the MLP has no KV cache; attention's KV cache size follows from the architecture constants",
      (r"kv_per_token == 4_718_592", r"one_by_one")),
    C(1, "09", "decode is memory-bandwidth-bound: one token reads the FFN's weights at memory speed",
      (r"decode_gbs > 0\.25 \* stream_gbs",)),
    C(1, "09", "a decode step's bytes follow from the config: Llama-2-7B reads 13,214,695,424 bytes in bfloat16",
      (r"13_214_695_424",)),
    # notebook 10
    C(1, "10", 'Megatron: up-projection column-parallel, down-projection row-parallel, one all-reduce',
      (r"res\.sent_bytes ==",)),
    C(1, "10", "the one all-reduce in a ring sends 2(N-1)/N of its buffer per worker: 48 KiB at N=2, 72 KiB at N=4",
      (r"wire\[2\] == 48 \* 1024", r"wire\[4\] == 72 \* 1024")),
    C(1, "10", "PyTorch's parallelize_module (ColwiseParallel c_fc, RowwiseParallel c_proj) runs the same one all-reduce",
      (r'collectives == \{"all_reduce": 1\}',)),
    C(1, "10", "tensor parallelism cuts the MLP bytes each GPU reads per decode step to 1/N (Llama-2-7B: 1.08 GB on 8)",
      (r"mlp_bytes / 8 == 1_082_130_432",)),
    # notebook 11
    C(1, "11", 'MoE makes the MLP sparse because it holds 2/3 of a block (8d^2 of 12d^2; 66.2% of GPT-3)',
      (r"Fraction\(8, 4 \+ 8\) == Fraction\(2, 3\)", r"175_181_291_520")),
    C(1, "11", 'the MoE layer runs each expert on its own tokens only and equals the dense loop over all experts',
      (r"allclose\(out, dense", r"T \* top_k == 32")),
    C(1, "11", 'Mixtral 8x7B: 46,702,792,704 parameters held, 12,879,925,248 used per token',
      (r"46_702_792_704", r"12_879_925_248")),
    C(1, "11", '"8x7B" is not 8 copies: only the MLP is copied; 8 x Mistral 7B would be 57.9B',
      (r"round\(eight / 1e9, 1\) == 57\.9",)),
    C(1, "11", 'every expert stays resident: Mixtral is 93.4 GB in bf16, more than one 80 GB GPU',
      (r"held_bytes > 80e9",)),
    C(1, "11", 'a decode batch of 16 reads E(1 - (1 - k/E)^B) = 7.9 of 8 experts per layer: most of the weights',
      (r"read_bytes\[16\] > 0\.95 \* held_bytes", r"expected_experts\(B\)")),
    # notebook 12
    C(3, "12", "FFN neurons as key-value memories: knocking out a fact's top neurons removes that fact",
      (r"p_top < 0\.5 \* p_before",)),
    C(3, "12", 'knowledge editing (ROME-style): change one fact by a rank-one edit of the down-projection',
      (r"efficacy >= 0\.95", r"specificity >= 0\.97")),
    C(3, "12", "neurons as key-value memory: activation x value vector, read through the head, adds up to the MLP's logit",
      (r"contribution\.sum\(\), whole",)),
    C(3, "12", 'where facts are recalled: knocking out MLP outputs by layer and word (ROME: middle-layer MLPs at the subject)',
      (r"knockout\[0, 3\] < 0\.8", r"no_mlp_acc < 0\.05")),
    C(3, "12", "a fact's own top-k neurons remove it at every k, k random neurons do not, and other facts survive",
      (r'sweep\["random"\]\[at30\] > 0\.95',)),
]


def checking_cells(paths):
    """(notebook name, execution count, source) of every code cell that asserts."""
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and re.search(r"^\s*assert\b", cell.source, re.M):
                yield path.name, cell.execution_count, cell.source


def ledger(paths):
    """Each claim with the cells that check it: [(claim, [(notebook, count), ...])]."""
    cells = list(checking_cells(paths))
    rows = []
    for claim in CLAIMS:
        hits = [(name, count) for name, count, src in cells if name.startswith(claim.notebook)
                and all(re.search(p, src) for p in claim.patterns)]
        rows.append((claim, hits))
    return rows


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
    if "--check" in argv:
        stale = not LEDGER.exists() or LEDGER.read_text() != text
        for t in unchecked:
            print(f"claim without a checking cell: {t}")
        if stale:
            print("docs/CLAIMS.md is stale: run `python tools/claims.py`")
        return 1 if (stale or unchecked) else 0
    LEDGER.write_text(text)
    print(f"{len(rows)} claims, {len(rows) - len(unchecked)} checked -> {LEDGER.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
