"""Notebook 08's check sentences (helpers/checks/nb08_the_block.py) in Korean."""

from helpers.checks.korean.cases import filled
from helpers.checks.nb08_the_block import (
    _LAYERNORM,
    _LAYERS_NAME,
    _LLAMA_NAMES,
    _NO_BIAS,
    _NO_WEIGHT,
    check_llama_block,
    check_llama_stack,
)

MESSAGES = {
    # Exercise 1
    "{said} {message}": "{said} {message}",
    "Exercise 1 (predict the stream's length)": "연습 1 (stream의 길이 예측하기)",
    "Each update points in a direction almost unrelated to the stream, so lengths add like the sides of a right "
    "triangle: |x_24|^2 is about |x_0|^2 plus the sum of the 48 squared update lengths (the dashed line), far "
    "less than |x_0| plus the sum of the lengths.":
        "각 업데이트는 stream과 거의 관계없는 방향을 가리키므로, 길이는 직각삼각형의 변처럼 더해집니다: "
        "|x_24|^2은 대략 |x_0|^2에 업데이트 48개의 길이의 제곱을 모두 더한 값(점선)이고, |x_0|에 길이들을 모두 "
        "더한 값보다 훨씬 작습니다.",
    "You added the lengths in a line, as if every update pointed the way the stream does.":
        "모든 업데이트가 stream과 같은 방향을 가리키는 것처럼, 길이를 한 줄로 이어 붙이듯 더했습니다.",
    "You kept the stream near its input's length, as if a norm rescaled it: in a pre-LN stack the norms only "
    "feed the branches, and the stream itself is never normalised.":
        "정규화가 stream의 크기를 다시 맞추는 것처럼, stream을 입력의 길이 근처에 두었습니다: pre-LN 스택에서 "
        "정규화는 분기에 들어가는 입력만 만들 뿐이고, stream 자체는 한 번도 정규화되지 않습니다.",
    # Exercise 2: the wiring
    "Exercise 2 (Llama's block as a module)": "연습 2 (모듈로 만드는 Llama의 블록)",
    "your block": "여러분의 블록",
    "you used input_layernorm twice: the MLP reads post_attention_layernorm(x), a norm with its own weights.":
        "input_layernorm을 두 번 썼습니다: MLP는 자기 가중치를 가진 별도의 정규화인 "
        "post_attention_layernorm(x)를 읽습니다.",
    "ln_1 and ln_2 are swapped, in Llama's names: input_layernorm goes before self_attn, "
    "post_attention_layernorm before the MLP.":
        "Llama의 이름으로 쓰면 ln_1과 ln_2가 서로 바뀌었습니다: input_layernorm은 self_attn 앞에, "
        "post_attention_layernorm은 MLP 앞에 옵니다.",
    "the MLP's update replaces the stream: add it, x = x + mlp(post_attention_layernorm(x)), as attention's is.":
        "MLP의 업데이트가 stream을 대체합니다: 어텐션의 업데이트처럼 더하세요, "
        "x = x + mlp(post_attention_layernorm(x)).",
    "your MLP reads attention's output alone. It reads the stream after attention's output was added to it: "
    "x = x + self_attn(input_layernorm(x)), then mlp(post_attention_layernorm(x)).":
        "여러분의 MLP는 어텐션의 출력만 읽습니다. MLP는 어텐션의 출력이 더해진 뒤의 stream을 읽습니다: "
        "x = x + self_attn(input_layernorm(x)), 그다음 mlp(post_attention_layernorm(x)).",
    "your MLP reads attention's output alone, without its norm. It reads the normalised stream after "
    "attention's output was added: mlp(post_attention_layernorm(x)).":
        "여러분의 MLP는 정규화 없이 어텐션의 출력만 읽습니다. MLP는 어텐션의 출력이 더해진 뒤 정규화된 "
        "stream을 읽습니다: mlp(post_attention_layernorm(x)).",
    "your MLP reads x from before the attention update: that is the parallel block. In Llama's block the MLP "
    "reads the stream after attention was added.":
        "여러분의 MLP는 어텐션 업데이트 전의 x를 읽습니다: 그것은 parallel block입니다. Llama의 블록에서 MLP는 "
        "어텐션이 더해진 뒤의 stream을 읽습니다.",
    "you normalised after the add (post-norm, the original Transformer); Llama normalises each sublayer's input "
    "inside the branch: x = x + self_attn(input_layernorm(x)).":
        "덧셈 뒤에 정규화했습니다(post-norm, 원래의 Transformer). Llama는 분기 안에서 각 서브레이어의 입력을 "
        "정규화합니다: x = x + self_attn(input_layernorm(x)).",
    "there is no residual add: each sublayer's result must be added to x, not replace it.":
        "잔차 덧셈이 없습니다: 각 서브레이어의 결과는 x를 대체하지 않고 x에 더해져야 합니다.",
    "you added the update to the normalised x; the residual adds it to x itself: "
    "x = x + self_attn(input_layernorm(x)).":
        "업데이트를 정규화된 x에 더했습니다. 잔차는 업데이트를 x 자체에 더합니다: "
        "x = x + self_attn(input_layernorm(x)).",
    "only attention is there: the block's second line adds the MLP's update, "
    "x = x + mlp(post_attention_layernorm(x)).":
        "어텐션만 있습니다: 블록의 두 번째 줄은 MLP의 업데이트를 더합니다, "
        "x = x + mlp(post_attention_layernorm(x)).",
    "the MLP runs before attention; the block gathers first (attention), then processes (MLP).":
        "MLP가 어텐션보다 먼저 실행됩니다. 블록은 먼저 모으고(어텐션), 그다음 처리합니다(MLP).",
    "the norms are missing: each sublayer reads a normalised copy of the stream, self_attn(input_layernorm(x)) "
    "and mlp(post_attention_layernorm(x)).":
        "정규화가 빠졌습니다: 각 서브레이어는 stream을 정규화한 사본을 읽습니다, "
        "self_attn(input_layernorm(x))와 mlp(post_attention_layernorm(x)).",
    # Exercise 2: the parts
    "your RMSNorm subtracts the mean: that is LayerNorm. RMSNorm divides x by its root mean square, "
    "x / sqrt(mean(x^2) + eps), and multiplies by the weight.":
        "여러분의 RMSNorm은 평균을 뺍니다: 그것은 LayerNorm입니다. RMSNorm은 x를 제곱평균제곱근으로 나누고, "
        "x / sqrt(mean(x^2) + eps), 가중치를 곱합니다.",
    "your RMSNorm adds eps outside the square root; Llama's is x / sqrt(mean(x^2) + eps), eps inside.":
        "여러분의 RMSNorm은 eps를 제곱근 밖에서 더합니다. Llama의 것은 x / sqrt(mean(x^2) + eps)로, eps가 "
        "제곱근 안에 있습니다.",
    "your RMSNorm's eps is 1e-5 (Llama-2's config value); this check's model uses 1e-6, LlamaConfig's default: "
    "RMSNorm(d_model, eps=1e-6).":
        "여러분의 RMSNorm의 eps는 1e-5(Llama-2의 config 값)입니다. 이 검사의 모델은 LlamaConfig의 기본값인 "
        "1e-6을 씁니다: RMSNorm(d_model, eps=1e-6).",
    "your RMSNorm has no eps (torch.nn.RMSNorm's default is the dtype's own eps, about 2e-16 in float64); the "
    "check's model uses eps = 1e-6 inside the square root: RMSNorm(d_model, eps=1e-6).":
        "여러분의 RMSNorm에는 eps가 없습니다(torch.nn.RMSNorm의 기본값은 dtype 자체의 eps로, float64에서 약 "
        "2e-16입니다). 검사의 모델은 제곱근 안에 eps = 1e-6을 씁니다: RMSNorm(d_model, eps=1e-6).",
    "your RMSNorm takes the mean over the tokens (dim 1); each token is normalised over its own d_model "
    "numbers: mean(dim=-1, keepdim=True).":
        "여러분의 RMSNorm은 토큰들에 대해(dim 1) 평균을 냅니다. 각 토큰은 자기 숫자 d_model개에 대해 "
        "정규화됩니다: mean(dim=-1, keepdim=True).",
    "SiLU sits on the up-projection; Llama puts it on the gate: down_proj(act_fn(gate_proj(x)) * up_proj(x)) "
    "(notebook 05).":
        "SiLU가 up-projection에 있습니다. Llama는 SiLU를 게이트에 둡니다: "
        "down_proj(act_fn(gate_proj(x)) * up_proj(x))(노트북 05).",
    "your MLP uses GELU; Llama's act_fn is SiLU: down_proj(silu(gate_proj(x)) * up_proj(x)).":
        "여러분의 MLP는 GELU를 씁니다. Llama의 act_fn은 SiLU입니다: down_proj(silu(gate_proj(x)) * up_proj(x)).",
    "your MLP has no activation: the gate is act_fn(gate_proj(x)), with act_fn = SiLU.":
        "여러분의 MLP에는 활성화 함수가 없습니다: 게이트는 act_fn(gate_proj(x))이고, act_fn = SiLU입니다.",
    "your MLP adds gate and up; SwiGLU multiplies them: act_fn(gate_proj(x)) * up_proj(x).":
        "여러분의 MLP는 gate와 up을 더합니다. SwiGLU는 둘을 곱합니다: act_fn(gate_proj(x)) * up_proj(x).",
    # Exercise 2: the parameters' names
    _NO_BIAS: "Llama의 선형 층에는 bias가 없습니다: bias=False로 만드세요(GatedMLP가 그렇게 합니다).",
    _LAYERNORM:
        "{name}에 가중치와 bias가 있습니다: 그것은 GPT-2의 nn.LayerNorm입니다. Llama의 RMSNorm에는 가중치만 "
        "있습니다.",
    _NO_WEIGHT:
        "{name}에 파라미터가 없습니다: RMSNorm은 학습되는 가중치 self.weight = nn.Parameter(torch.ones(d_model))를 "
        "가지고, 이 가중치가 d_model개의 숫자 하나하나의 크기를 조정합니다.",
    _LLAMA_NAMES:
        "여러분의 블록에는 GPT-2의 이름({name})이 있습니다. 가중치에 붙은 Llama의 이름은 input_layernorm, "
        "self_attn, post_attention_layernorm, mlp입니다.",
    "helpers.block.LlamaBlock's weights load into your block and give the same output: x = x + "
    "self_attn(input_layernorm(x)); x = x + mlp(post_attention_layernorm(x)), with RMSNorm and SwiGLU, under "
    "Hugging Face's LlamaDecoderLayer names.":
        "helpers.block.LlamaBlock의 가중치가 여러분의 블록에 로드되고 같은 출력을 냅니다: x = x + "
        "self_attn(input_layernorm(x)); x = x + mlp(post_attention_layernorm(x)), RMSNorm과 SwiGLU를 쓰고, "
        "Hugging Face의 LlamaDecoderLayer 이름을 따릅니다.",
    # Exercise 3
    "Exercise 3 (a stack of Llama blocks)": "연습 3 (Llama 블록의 스택)",
    "your stack": "여러분의 스택",
    "your layers share one block: [block] * n_layers (or the same block appended n times) puts one set of "
    "weights in every slot, and the last layer's weights load into all of them. Build a new block for each "
    "layer: nn.ModuleList(LlamaBlock(...) for _ in range(n_layers)).":
        "여러분의 층들이 블록 하나를 함께 씁니다: [block] * n_layers(또는 같은 블록을 n번 append한 것)는 모든 "
        "자리에 가중치 한 벌을 넣으므로, 마지막 층의 가중치가 모든 자리에 로드됩니다. 층마다 새 블록을 만드세요: "
        "nn.ModuleList(LlamaBlock(...) for _ in range(n_layers)).",
    "there is no final norm after the last layer: LlamaModel ends with self.norm(x), as GPT-2 ends with ln_f.":
        "마지막 층 뒤에 마지막 정규화가 없습니다: GPT-2가 ln_f로 끝나듯, LlamaModel은 self.norm(x)로 끝납니다.",
    "you normalised the stream after every layer; the stream is normalised only once, by self.norm after the "
    "last layer (each block normalises its sublayers' inputs itself).":
        "층마다 stream을 정규화했습니다. stream은 마지막 층 뒤에 self.norm으로 한 번만 정규화됩니다(각 블록은 "
        "서브레이어의 입력을 스스로 정규화합니다).",
    "only the first layer ran: is the `return` inside your loop over self.layers?":
        "첫 번째 층만 실행되었습니다: `return`이 self.layers에 대한 반복문 안에 있지 않나요?",
    "each layer read the stack's input instead of the previous layer's output: write x = layer(x) in the loop.":
        "각 층이 앞 층의 출력 대신 스택의 입력을 읽었습니다: 반복문 안에 x = layer(x)라고 쓰세요.",
    "there is no final norm: LlamaModel ends with self.norm = RMSNorm(d_model), applied after the last layer "
    "(GPT-2's ln_f).":
        "마지막 정규화가 없습니다: LlamaModel은 마지막 층 뒤에 적용하는 self.norm = RMSNorm(d_model)로 "
        "끝납니다(GPT-2의 ln_f).",
    _LAYERS_NAME:
        "여러분의 블록 리스트 이름은 {name}입니다. LlamaModel은 그것을 layers라고 부릅니다: self.layers = "
        "nn.ModuleList(...)로 써야 키가 layers.0.input_layernorm.weight가 됩니다.",
    "helpers.block.LlamaStack's weights load into your stack and give the same output: {n_layers} blocks, each "
    "with its own weights, then the final norm, under LlamaModel's names.":
        "helpers.block.LlamaStack의 가중치가 여러분의 스택에 로드되고 같은 출력을 냅니다: 각자 자기 가중치를 가진 "
        "블록 {n_layers}개, 그다음 마지막 정규화가 LlamaModel의 이름으로 있습니다.",
}

# Sentences the checks hold already filled: the parameters' hints with their names, the stack's success line.
MESSAGES |= filled(MESSAGES, *check_llama_block.key_hints.values(), *check_llama_stack.key_hints.values(),
                   check_llama_stack.success)
