"""The demos speak the notebook's language: made in the Korean edition, a demo's title, labels, legend and
controls are Korean (from checks.po); made in English, they are the English strings, unchanged."""

import re

import matplotlib
import pytest

from helpers import config_params, language, plots
from helpers.demos import (
    nb01_matrix_multiply,
    nb02_activations,
    nb03_ffn_forward,
    nb04_network_3d,
    nb05_swiglu_gate,
    nb06_parameter_table,
    nb07_position_wise,
    nb08_the_block,
    nb09_decode_bandwidth,
    nb10_tensor_parallel,
    nb11_mixture_of_experts,
    nb12_kv_memory_editing,
    nb13_real_gpt2,
    nb14_quantization,
    nb15_activation_sparsity,
    nb16_superposition,
    nb17_fusing_the_mlp,
)

HANGUL = re.compile("[\uac00-\ud7a3]")
SPEAKING = [nb01_matrix_multiply, nb02_activations, nb03_ffn_forward, nb04_network_3d, nb05_swiglu_gate,
            nb06_parameter_table, nb07_position_wise, nb08_the_block, nb09_decode_bandwidth, nb10_tensor_parallel,
            nb11_mixture_of_experts, nb12_kv_memory_editing, nb13_real_gpt2, nb14_quantization,
            nb15_activation_sparsity, nb16_superposition, nb17_fusing_the_mlp]


@pytest.fixture
def korean():
    language.MISSES.clear()
    language.use("ko")
    with matplotlib.rc_context():   # the Hangul font only for these figures
        plots.use_hangul_font()
        yield
    language.use("en")


def drawn(module):
    """(the live figure, its figure at SAMPLE, the title of each of its axes)."""
    live = module.make()
    fig = live.render(**module.SAMPLE)
    return live, fig, [ax.get_title() for ax in fig.axes]


@pytest.mark.parametrize("module", SPEAKING, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_a_korean_demo_draws_korean(module, korean):
    live, fig, titles = drawn(module)
    labels = [ax.get_xlabel() + ax.get_ylabel() for ax in fig.axes] + [live.title]
    labels += [c.description for c in live.controls.values()] if hasattr(live, "controls") else []
    assert any(HANGUL.search(text) for text in titles + labels), f"{module.__name__}: no Korean in {titles + labels}"
    assert not language.MISSES, f"{module.__name__}: no Korean for {sorted(language.MISSES)}"


def test_the_swiglu_demo_in_korean_and_in_english(korean):
    _, fig, (title,) = drawn(nb05_swiglu_gate)
    assert title == "g = SiLU(-1.28) = -0.278, u의 부호를 뒤집는다:  -0.278 x -1.00 = 0.278"
    assert fig.axes[0].get_ylabel() == "특징 j의 값"
    language.use("en")
    live, fig, (title,) = drawn(nb05_swiglu_gate)
    assert title == "g = SiLU(-1.28) = -0.278 flips the sign of u:  -0.278 x -1.00 = 0.278"
    assert fig.axes[0].get_ylabel() == "value of feature j"
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == [
        "a switch would stay in [0, 1]", "gate g = SiLU(z)", "output g * u", "u itself (gate = 1)"]
    assert live.title == "SiLU(gate) * up"


def test_the_matrix_demo_titles_are_translated_once_and_filled_per_move(korean):
    live = nb01_matrix_multiply.make()
    fig = live.render(T=1, d=2, m=3)
    assert fig.axes[0].get_title() == "X @ W = Z: 2·T·d·m = 12 FLOPs; W의 가중치 6개를 토큰 1개가 모두 공유"
    language.use("en")
    fig = nb01_matrix_multiply.make().render(T=1, d=1, m=1)
    assert fig.axes[0].get_title() == "X @ W = Z: 2·T·d·m = 2 FLOPs; W holds 1 weight, shared by all 1 token"


def test_a_title_drawn_in_korean_is_not_kept_for_english():
    """nb03's demo caches its numbers per setting: the language is part of the key, so a Korean run
    earlier in the same process (these tests) leaves an English figure English."""
    settings = nb03_ffn_forward.SAMPLE
    language.use("ko")
    try:
        korean = nb03_ffn_forward._numbers(*settings.values(), language.current())["left_title"]
    finally:
        language.use("en")
    english = nb03_ffn_forward._numbers(*settings.values(), language.current())["left_title"]
    assert HANGUL.search(str(korean)) and not HANGUL.search(str(english)), (korean, english)


def test_the_ring_figure_in_korean_and_in_english(korean):
    fig = nb10_tensor_parallel.ring_steps(n_workers=3)
    assert fig.get_suptitle() == (
        "워커 3개의 ring all-reduce: reduce-scatter 2단계 뒤 워커마다 완성된 청크(테두리)가 하나씩 남고,\n"
        "all-gather 2단계가 그것을 돌린다. 워커마다 단계당 청크 하나, 모두 합쳐 버퍼의 2(3-1)/3을 보낸다")
    assert [ax.get_title() for ax in fig.axes] == ["시작", "reduce-scatter 1단계", "reduce-scatter 2단계",
                                                     "all-gather 1단계", "all-gather 2단계"]
    assert {(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes} == {("청크 c", "워커 r")}
    assert not language.MISSES, sorted(language.MISSES)
    language.use("en")
    fig = nb10_tensor_parallel.ring_steps(n_workers=3)
    assert fig.get_suptitle() == (
        "A ring all-reduce over 3 workers: 2 reduce-scatter steps leave one complete chunk (framed) on each worker,\n"
        "2 all-gather steps pass those around; every worker sends one chunk per step, 2(3-1)/3 of its buffer in all")


def test_the_parameter_table_header_in_korean_and_in_english(korean):
    breakdown = config_params.count_params("gpt2")
    first, header = config_params.format_table(breakdown).splitlines()[:2]
    assert first.startswith("gpt2 (gpt2, 정확한 수): d_model=768 d_ff=3,072")
    assert header == "구성 요소" + " " * 18 + "파라미터 수" + " " * 4 + "비율", repr(header)   # Hangul: two columns
    assert not language.MISSES, sorted(language.MISSES)
    language.use("en")
    first, header = config_params.format_table(breakdown).splitlines()[:2]
    assert first.startswith("gpt2 (gpt2, exact): d_model=768 d_ff=3,072")
    assert header == "component                   parameters   share"


def test_the_fusion_demo_says_which_implementation_each_time_ran_in_korean_and_in_english(korean):
    """Notebook 17's demo: the measured times name the GELU they ran (eight kernels eagerly, one compiled, as
    the middle bar counts), in the notebook's language; the English is unchanged by the translation."""
    from helpers.demos.stamps import Label

    def drawn_texts():
        live = nb17_fusing_the_mlp.make({128: {"eager": 0.01209, "compiled": 0.01148}})
        fig = live.render(model="GPT-2 small (GELU)", T=128, dtype="float32")
        ax = fig.axes[0]
        title = [label.get_text() for label in fig.findobj(Label) if "T = 128" in label.get_text()]
        return title, [t.get_text() for t in ax.get_yticklabels()], ax.get_xlabel()

    title, rows, xlabel = drawn_texts()
    assert title == ["T = 128, float32: 두 행렬 곱 사이에서 연산마다 커널 하나면\n가중치 바이트의 0.33배, 융합하면 0.17배가 오간다\n"
                     "여기서 잰 시간, eager: 12.09 ms, GELU가 커널 8개 (어느 막대보다 많이 오감)\n"
                     "여기서 잰 시간, 컴파일: 11.48 ms, GELU가 커널 1개 (가운데 막대만큼 오감)"]
    assert rows == ["가중치, 한 번 읽음", "두 행렬 곱 사이,\n연산마다 커널 하나", "두 행렬 곱 사이,\n행렬 곱에 융합"]
    assert xlabel == "MLP 호출 한 번의 바이트 (로그 눈금)"
    assert not language.MISSES, sorted(language.MISSES)
    language.use("en")
    title, rows, xlabel = drawn_texts()
    assert title == ["T = 128, float32: between the matmuls, one kernel per op moves\n0.33x the weights' bytes, fused 0.17x\n"
                     "measured here, eager: 12.09 ms, GELU in 8 kernels (more crossings than any bar)\n"
                     "measured here, compiled: 11.48 ms, GELU in 1 kernel (the middle bar's crossings)"]
    assert rows == ["weights, read once", "between,\none kernel per op", "between, fused\nin the matmul"]
    assert xlabel == "bytes per MLP call (log scale)"


def test_the_short_labels_of_the_korean_figures_are_korean(korean):
    """A row, an axis or a control named by one English word is a phrase in the catalog, so it reads in Korean."""
    fig = nb06_parameter_table.make().render(model="gpt3-175b")
    names = {a.get_text() for a in fig.artists if a.get_visible()}
    assert {"어텐션 층", "MLP", "기타 (각각 1% 미만)"} <= names, names
    assert any("토큰 임베딩, 위치 임베딩, 정규화 가중치, unembedding 행렬" in t.get_text() for t in fig.axes[0].texts)
    live = nb09_decode_bandwidth.make()
    rows = [t.get_text() for t in live.render(**nb09_decode_bandwidth.SAMPLE).axes[0].texts]
    assert {"어텐션 층", "나머지"} <= set(rows), rows
    assert [c.description for c in live.controls.values()] == ["모델 이름", "배치 크기", "문맥 토큰", "GPU 또는 CPU"]
    assert nb11_mixture_of_experts.make().render(**nb11_mixture_of_experts.SAMPLE).axes[0].get_xlabel() == "expert 번호"
    assert [c.description for c in nb08_the_block.make().controls.values()] == ["깊이 (블록 수)", "잔차 연결", "블록 종류"]
    assert not language.MISSES, sorted(language.MISSES)
