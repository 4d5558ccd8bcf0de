"""Every exercise check is a referee the learner can neither fool nor break.

The checks are found in helpers/checks (tests/check_catalog.py), each with the notebook's
worked solution as its right answer. For each one:
- a learner function that changes its inputs in place (`X *= 2`, `config.pop(...)`,
  `experts.sort()`) and returns the reference's answer for the changed inputs never gets
  [correct], and the right answer still does afterwards: the check's cases are intact;
- whatever the learner's code returns (None after real work, an int, a string, an array,
  a 1-element tensor, a meta tensor, a generator, a float32 answer) or raises (an error,
  sys.exit(0), sys.exit(1), any BaseException) becomes a Feedback whose message is one
  sentence; KeyboardInterrupt alone goes through, so that a learner can stop a cell;
- the untouched stub is "not attempted"; a function that did work and returned None is
  told so.
"""

import copy
import dataclasses
import inspect
import sys
import warnings

import numpy as np
import pytest
import torch
from check_catalog import CHECK_MODULES, all_entries, solved
from torch import nn

from helpers.checks import Check, Feedback, ModuleCheck, Prediction, in_place

fresh = copy.deepcopy   # the test's own copies of a check's cases

ENTRIES = all_entries()


@pytest.fixture(autouse=True)
def no_warnings():
    """A check never warns: on a learner's screen a warning is a red box, and nbval fails on stderr."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert not caught, [f"{w.category.__name__}: {w.message}" for w in caught]
FUNCTIONS = [e for e in ENTRIES if e.kind == "function"]
MODULES = [e for e in ENTRIES if e.kind == "module"]
PREDICTIONS = [e for e in ENTRIES if e.kind == "prediction"]


def ids(entries):
    return [e.id for e in entries]


def assert_sentence(fb, what):
    """fb is a Feedback whose message is one readable sentence."""
    assert isinstance(fb, Feedback), f"{what}: the check returned {type(fb).__name__}, not a Feedback"
    message = fb.message
    assert isinstance(message, str) and 10 <= len(message) <= 900, (what, message)
    assert "\n" not in message and "Traceback" not in message and " at 0x" not in message, (what, message)
    assert message.rstrip().rstrip(")")[-1:] in tuple(".?!"), f"{what}: the message does not end a sentence: {message!r}"


# ---- the learner's in-place changes ------------------------------------------------------------


def walk(value):
    """Every tensor, array, module, list and dict inside value, once each."""
    seen, stack = set(), [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        yield v
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            stack.extend(getattr(v, f.name) for f in dataclasses.fields(v))


@torch.no_grad()
def scale_numbers(args):
    """X *= -1.5; X += 0.25 on every float tensor, array and module parameter."""
    for v in list(walk(args)):
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            v.mul_(-1.5).add_(0.25)
        elif isinstance(v, np.ndarray) and v.dtype.kind == "f":
            v *= -1.5
            v += 0.25
        elif isinstance(v, nn.Module):
            for p in v.parameters():
                p.mul_(-1.5).add_(0.25)


def sort_integers(args):
    """experts.sort(): every integer tensor, array or list sorted in place, largest first."""
    for v in list(walk(args)):
        if isinstance(v, torch.Tensor) and not v.is_floating_point() and v.dtype != torch.bool and v.numel() > 1:
            v.copy_(v.flatten().sort(descending=True).values.view_as(v))
        elif isinstance(v, np.ndarray) and v.dtype.kind in "iu" and v.size > 1:
            v[...] = np.sort(v, axis=None)[::-1].reshape(v.shape)
        elif isinstance(v, list) and v and all(isinstance(i, int) and not isinstance(i, bool) for i in v):
            v.sort(reverse=True)


def double_counts(args):
    """config["hidden_size"] *= 2, for every whole number in every dict."""
    for v in list(walk(args)):
        if isinstance(v, dict):
            for key, x in list(v.items()):
                if isinstance(x, int) and not isinstance(x, bool):
                    v[key] = 2 * x


def pop_flags(args):
    """config.pop("tie_word_embeddings"), for every True/False field of every dict."""
    for v in list(walk(args)):
        if isinstance(v, dict):
            for key in [k for k, x in v.items() if isinstance(x, bool)]:
                v.pop(key)


def grow_lists(args):
    """buffers.append(...): one more item, a copy of the last, in every list."""
    for v in list(walk(args)):
        if isinstance(v, list) and v:
            v.append(copy.deepcopy(v[-1]))


MUTATIONS = {f.__name__: f for f in (scale_numbers, sort_integers, double_counts, pop_flags, grow_lists)}


def differs(check, got, expected):
    try:
        return check.compare(got, expected) is not None
    except Exception:   # of another kind altogether
        return True


def effective(check, mutate):
    """True when the change makes the reference's answer differ for at least one case."""
    for case in check.cases:
        args = fresh(case)
        mutate(args)
        try:
            changed = check.reference(*args)
        except Exception:   # the changed case makes no sense to the reference: no answer to copy
            continue
        if differs(check, changed, check.reference(*fresh(case))):
            return True
    return False


def cheat(check, mutate):
    """A learner that changes its inputs in place, then returns the reference's answer for them."""
    def learner(*args):
        mutate(args)
        return check.reference(*args)
    return learner


def same_value(a, b):
    """a and b hold the same values, all the way down."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, nn.Module):
        return same_value(a.state_dict(), b.state_dict())
    if isinstance(a, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(same_value(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b or callable(a)


TABLE_CHECKS = [e for e in FUNCTIONS if isinstance(e.check, Check)]
MUTATION_CASES = [(e, name) for e in TABLE_CHECKS for name, mutate in MUTATIONS.items()
                  if effective(e.check, mutate)]


@pytest.mark.parametrize(("entry", "mutation"), MUTATION_CASES,
                         ids=[f"{e.id}-{m}" for e, m in MUTATION_CASES])
def test_changing_the_inputs_in_place_never_fools_a_check(entry, mutation):
    check = entry.check
    cases = copy.deepcopy(list(check.cases))   # a list: some modules build their cases on first use
    fb = check(cheat(check, MUTATIONS[mutation]))
    assert_sentence(fb, f"{entry.id} with {mutation}")
    assert fb.status == "wrong", f"{entry.id}: a learner that runs {mutation} on its inputs got {fb}"
    changes_a_case = handed_back = False
    for case in check.cases:
        args = fresh(case)
        MUTATIONS[mutation](args)
        changes_a_case = changes_a_case or not same_value(args, fresh(case))
        args = fresh(case)
        answer = check.reference(*args)
        handed_back = handed_back or any(in_place._handed_back(a, answer) for a in args)
    if changes_a_case and not handed_back:   # an input the answer is made of (an all-reduce's buffers) may change
        assert "in place" in fb.message, f"{entry.id}: {mutation} is not named: {fb}"
    assert same_value(cases, list(check.cases)), f"{entry.id}: {mutation} in the learner's function changed the cases"
    right = check(*entry.right)
    assert right, f"{entry.id}: after {mutation}, the right answer gets {right}"


def test_every_table_check_meets_a_change_that_matters():
    """The table above is not empty by accident: a check whose inputs can change at all meets one."""
    covered = {e.id for e, _ in MUTATION_CASES}
    immutable = {e.id for e in TABLE_CHECKS
                 if all(a is None or isinstance(a, (int, float, str)) or callable(a)
                        for case in e.check.cases for a in case)}
    assert {e.id for e in TABLE_CHECKS} - immutable <= covered, sorted({e.id for e in TABLE_CHECKS} - immutable - covered)


# The checks written as functions: a learner for each that changes its inputs in place and returns the
# right answer for the changed inputs (or makes the check's own data fit), with what it does.


def _first_function(entry):
    return next(i for i, a in enumerate(entry.right) if callable(a) and not isinstance(a, type))


def _scaled(fn):
    def learner(*args):
        scale_numbers(args)
        return fn(*args)
    return learner


def _values_made_to_fit(learn_values):
    def learner(ffn, keys, values):
        with torch.no_grad():
            values.copy_(ffn(keys))     # the pairs now hold what the untrained FFN already says
        return ffn
    return learner


def _neurons_changed(ablate):
    def learner(neurons):
        if isinstance(neurons, list):
            neurons[:] = [n + 1 for n in neurons]
        else:
            neurons.add_(1)
        return ablate(neurons)
    return learner


def _weights_scaled_in_split(split):
    def learner(mlp, n_workers):
        scale_numbers((mlp,))
        return split(mlp, n_workers)
    return learner


def _changed_in_place(index, change):
    """A learner that changes its argument `index` in place (change(arg)), then calls fn on what it has."""
    def make(fn):
        def learner(*args):
            with torch.no_grad():
                change(args[index])
            return fn(*args)
        return learner
    return make


def _shifted(neurons):
    neurons[:] = [n + 1 for n in neurons]


def _value_columns_zeroed(model):
    """What a hook does, done to the weights instead: MLP 1's value columns of c_proj set to 0."""
    model.blocks[1].mlp.c_proj.weight[:, :4] = 0


def _edits_W_and_returns_it(memit_update):
    """MEMIT written as `W += R K^T (...)^-1; return W`: the right numbers, in the caller's W."""
    def learner(W, K, V, C, lam):
        with torch.no_grad():
            W += memit_update(W.clone(), K, V, C, lam) - W
        return W
    return learner


def _function_scaling_input(index, scale):
    """An autograd.Function that scales its input `index` in place in forward, then runs Function's forward."""
    def make(function):
        class Scaling(function):
            @staticmethod
            def forward(ctx, *args):
                with torch.no_grad():
                    args[index].mul_(scale)
                return function.forward(ctx, *args)
        return Scaling
    return make


def _backward_into_inputs(function):
    """Liger's trick on the caller's tensors: backward writes the gradients into the saved inputs' buffers."""
    class Overwriting(function):
        @staticmethod
        def backward(ctx, *grads):
            results = function.backward(ctx, *grads)
            for saved, result in zip(ctx.saved_tensors, results, strict=True):
                saved.data.copy_(result)
            return results
    return Overwriting


CHEATS = {
    "nb17_fusing_the_mlp.check_silu_mul_function": [("gate scaled in forward", 0, _function_scaling_input(0, 2.0)),
                                                    ("up scaled in forward", 0, _function_scaling_input(1, 0.5)),
                                                    ("gradients written into gate and up", 0,
                                                     _backward_into_inputs)],
    "nb03_ffn_forward.check_learned_memory": [("values made to fit", 0, _values_made_to_fit),
                                              ("keys and values scaled", 0, _scaled)],
    "nb10_tensor_parallel.check_llama_split": [("weights scaled before the split", 0, _weights_scaled_in_split),
                                               ("x scaled in the forward", 1, _scaled)],
    "nb11_mixture_of_experts.check_capacity": [("experts sorted", 0, _changed_in_place(0, lambda e: e.copy_(
        e.flatten().sort(descending=True).values.view_as(e))))],
    "nb12_kv_memory_editing.check_ablation": [("neurons shifted", 0, _changed_in_place(2, _shifted)),
                                              ("weights zeroed", 0, _changed_in_place(0, _value_columns_zeroed))],
    "nb12_kv_memory_editing.check_tracing": [("noise zeroed", 0, _changed_in_place(2, torch.Tensor.zero_))],
    "nb12_kv_memory_editing.check_memit": [("W, K, V and C scaled", 0, _scaled),
                                           ("W += ...; return W", 0, lambda fn: _edits_W_and_returns_it(fn))],
    "nb13_real_gpt2.check_mlp_from_hf": [("the block's weights scaled", 0, _scaled)],
    "nb05_swiglu_gate.check_gated_mlp_backward": [
        ("x scaled", 0, _changed_in_place(0, lambda x: x.mul_(2))),
        ("grad_out zeroed", 0, _changed_in_place(4, torch.Tensor.zero_))],
    "nb10_tensor_parallel.check_ring_all_reduce": [
        ("one rank's buffer zeroed before the ring", 0, _changed_in_place(0, lambda buffers: buffers[0].zero_()))],
    "nb13_real_gpt2.check_restore_hook": [("the clean output scaled", 0, _scaled)],
    "nb15_activation_sparsity.check_sparse_mlp": [
        ("c_proj scaled", 0, _changed_in_place(1, lambda mlp: mlp.c_proj.weight.mul_(2))),
        ("x scaled", 0, _changed_in_place(0, lambda x: x.mul_(2)))],
    "nb16_superposition.check_variance": [("x_hat moved onto x", 0, _changed_in_place(1, torch.Tensor.zero_))],
    "nb14_quantization.check_quantize": [
        ("W scaled", 0, _changed_in_place(0, lambda W: W.mul_(2))),
        ("q zeroed", 1, _changed_in_place(0, lambda q: q.zero_()))],
}
FUNCTION_CHECKS = [e for e in FUNCTIONS if not isinstance(e.check, Check)]
CHEAT_CASES = [(e, label, position, make) for e in FUNCTION_CHECKS for label, position, make in CHEATS.get(e.id, [])]


def test_every_check_written_as_a_function_has_its_cheats():
    assert {e.id for e in FUNCTION_CHECKS} == set(CHEATS), "list each check written as a function in CHEATS"


@pytest.mark.parametrize(("entry", "label", "position", "make"), CHEAT_CASES,
                         ids=[f"{e.id}-{label}" for e, label, _, _ in CHEAT_CASES])
def test_a_check_written_as_a_function_is_not_fooled_either(entry, label, position, make):
    args = list(entry.right)
    args[position] = make(args[position])
    fb = entry.check(*args)
    assert_sentence(fb, f"{entry.id}: {label}")
    assert fb.status == "wrong", f"{entry.id}: a learner whose code did '{label}' got {fb}"
    assert entry.check(*entry.right), f"{entry.id}: after '{label}', the right answer is no longer correct"


def _input_changed(solution):
    class Changed(solution):
        def forward(self, x):
            with torch.no_grad():
                x.mul_(-1.5).add_(0.25)
            return super().forward(x)
    return Changed


@pytest.mark.parametrize("entry", MODULES, ids=ids(MODULES))
def test_a_module_that_changes_its_input_in_place_is_not_correct(entry):
    (solution,) = entry.right
    fb = entry.check(_input_changed(solution))
    assert_sentence(fb, entry.id)
    assert fb.status == "wrong", f"{entry.id}: a forward that scales x in place got {fb}"
    assert "changed its input `x` in place" in fb.message, f"{entry.id}: the change is not named: {fb}"
    assert entry.check(solution), f"{entry.id}: the solution is no longer correct afterwards"


def _entry(entry_id):
    return next(e for e in ENTRIES if e.id == entry_id)


def test_a_block_whose_forward_adds_into_x_is_named():
    """08 ex2: `x += attn(norm(x)); x += mlp(norm(x)); return x` gives the right output and changes the
    caller's x: the check says so."""
    entry = _entry("nb08_the_block.check_llama_block")
    (solution,) = entry.right

    class ResidualInPlace(solution):
        def forward(self, x):
            out = super().forward(x.clone())
            x += out - x           # the residual stream added into the caller's tensor
            return x

    fb = entry.check(ResidualInPlace)
    assert_sentence(fb, "x += ... in the block")
    assert not fb and "changed its input `x` in place" in fb.message and "x = x + ..." in fb.message, fb
    assert entry.check(solution)


def test_memit_that_edits_W_and_returns_it_is_named():
    """12 ex4: `W += ...; return W` returns the right matrix, in the caller's W: named."""
    entry = _entry("nb12_kv_memory_editing.check_memit")
    fb = entry.check(_edits_W_and_returns_it(entry.right[0]))
    assert not fb and "changed its input `W` in place" in fb.message, fb
    assert entry.check(*entry.right)


# One unit test per kind of input the referee hands a learner: changed in place, it is named; left alone
# (NaN included, which is not equal to itself), it is not.


def _identity_check(case):
    return Check("Exercise 9 (in place)", reference=lambda *args: 1.0, cases=[case], compare=exact_one)


def exact_one(got, expected):
    return None if got == expected else "differs"


def _judged(case, change):
    """The check's verdict on a learner that runs change(*inputs) (its parameters named as change's), then
    returns the right answer."""
    def learner(*args):
        change(*args)
        return 1.0
    learner.__signature__ = inspect.signature(change)
    return _identity_check(case)(learner)


@pytest.mark.parametrize(("kind", "case", "change", "words"), [
    ("tensor", (torch.ones(3),), lambda x: x.add_(1), "changed its input `x` in place"),
    ("tensor resized", (torch.ones(3),), lambda x: x.resize_(2), "changed its input `x` in place"),
    ("numpy array", (np.ones(3),), lambda x: x.__imul__(2), "changed its input `x` in place"),
    ("module's weights", (nn.Linear(2, 3),), lambda m: m.weight.data.mul_(2), "weights of its input `m`"),
    ("module's buffer", (nn.BatchNorm1d(2),), lambda m: m.running_mean.add_(1), "running_mean"),
    ("list", ([3, 1, 2],), lambda xs: xs.sort(), "changed its input `xs` in place"),
    ("list of tensors", ([torch.ones(2), torch.ones(2)],), lambda xs: xs[1].mul_(3), "`xs`"),
    ("dict", ({"hidden_size": 8, "tie": True},), lambda config: config.pop("tie"), "`config`"),
    ("dict value", ({"W": torch.ones(2)},), lambda config: config["W"].zero_(), "`config`"),
    ("the second input", (torch.ones(2), torch.ones(2)), lambda x, y: y.sub_(1), "`y`"),
])
def test_every_kind_of_input_changed_in_place_is_named(kind, case, change, words):
    fb = _judged(case, change)
    assert_sentence(fb, kind)
    assert fb.status == "wrong" and words in fb.message and "in place" in fb.message, (kind, fb.message)


@pytest.mark.parametrize(("kind", "case", "read"), [
    ("a NaN tensor read", (torch.tensor([float("nan"), 1.0]),), lambda x: x.sum()),
    ("a NaN array read", (np.array([np.nan, 1.0]),), lambda x: x.sum()),
    ("a module run", (nn.Linear(2, 3),), lambda m: m(torch.ones(2))),
    ("a list copied and sorted", ([3, 1, 2],), lambda xs: sorted(xs)),
    ("a tensor made to require grad", (torch.ones(2),), lambda x: x.requires_grad_()),
])
def test_an_input_only_read_is_not_called_changed(kind, case, read):
    fb = _judged(case, read)
    assert fb, (kind, fb.message)


def test_a_module_the_learner_trains_and_returns_may_change():
    """A function whose answer is the module it was given (it trained it) is judged on its answer."""
    def train(model):
        with torch.no_grad():
            model.weight.mul_(0)
        return model

    check = Check("Exercise 9 (train it)", reference=lambda m: 0.0, cases=[(nn.Linear(2, 2),)],
                  compare=lambda got, expected: None if float(got.weight.abs().sum()) == expected else "differs")
    assert check(train)


def test_a_checkpoint_converted_or_buffers_summed_in_place_and_returned_are_judged_on_the_answer():
    """A dict popped and filled in, or a list whose tensors an all-reduce summed, handed back as the answer."""
    def convert(state):
        state["b"] = state.pop("a")
        return state

    check = Check("Exercise 9 (convert)", reference=lambda state: {"b": 1}, cases=[({"a": 1},)],
                  compare=lambda got, expected: None if got == expected else "differs")
    assert check(convert)

    def all_reduce(buffers):
        for b in buffers[1:]:
            buffers[0] += b
        return [buffers[0]] * len(buffers)

    check = Check("Exercise 9 (sum)", reference=lambda buffers: [sum(buffers)] * len(buffers),
                  cases=[([torch.ones(2), torch.ones(2)],)],
                  compare=lambda got, expected: None if all(torch.equal(g, e) for g, e in zip(got, expected,
                                                                                         strict=True)) else "no")
    assert check(all_reduce)


def test_the_in_place_sentence_is_said_in_korean():
    from helpers.checks import language

    fb = _judged((torch.ones(3),), lambda x: x.add_(1))
    language.use("ko")
    try:
        said = str(fb)
    finally:
        language.use("en")
    assert "changed its input" not in said and "제자리에서" in said and "`x`" in said, said


# ---- a guess of the wrong type, a check called the wrong way -------------------------------------


@pytest.mark.parametrize(("check_id", "guess", "words"), [
    ("nb01_matrix_multiply.check_rows_moved", "1", "my_rows_guess is the text '1' (a str, in quotes), not a "
                                                    "number: write my_rows_guess = 1, a number"),
    ("nb11_mixture_of_experts.check_active_guess", "12.9", "write my_active_guess = 12.9, a number"),
    ("nb11_mixture_of_experts.check_active_guess", [12.9], "not one number: write my_active_guess = 12.9"),
    ("nb10_tensor_parallel.check_buffer_guess", "49,152", "write my_buffer_guess = 49152"),
    ("nb10_tensor_parallel.check_buffer_guess", torch.ones(3), "a float32 tensor of shape (3,), not one number"),
    ("nb10_tensor_parallel.check_buffer_guess", "lots", "the text 'lots' (a str, in quotes), not a number"),
    ("nb10_tensor_parallel.check_buffer_guess", True, "True (a bool, True or False), not a number"),
    ("nb12_kv_memory_editing.check_ablation_guess", 2, "the choices are words: write my_ablation_guess = and "
                                                      "one of 'A', 'B', 'C', in quotes"),
    ("nb07_position_wise.check_token3_inputs", "3", "not a list: write my_token3_inputs = [3]"),
])
def test_a_guess_of_the_wrong_type_is_told_what_to_write(check_id, guess, words):
    entry = _entry(check_id)
    _, actual = entry.right
    fb = entry.check(guess, actual)
    assert_sentence(fb, f"{check_id} guessing {guess!r}")
    assert fb.status == "wrong" and words in fb.message, fb.message


def test_a_zero_d_tensor_guess_is_read_as_its_number():
    check = _entry("nb10_tensor_parallel.check_buffer_guess").check
    fb = check(torch.tensor(49152.0), 49152)
    assert fb and "you predicted 49,152" in fb.message, fb.message
    fb = Prediction("Exercise 9 (a float32 guess)", why="Because.", variable="my_guess")(torch.tensor(10.6), 10.6)
    assert fb and "10.600000" not in fb.message, fb.message


CALLED = [e for e in ENTRIES if isinstance(e.check, (Check, ModuleCheck, Prediction))
          or hasattr(e.check, "__wrapped__")]


@pytest.mark.parametrize("entry", CALLED, ids=ids(CALLED))
def test_a_check_called_with_no_argument_says_how_to_call_it(entry):
    name = entry.name
    for args in [(), (*entry.right, *entry.right[-1:] * 3)]:   # more than any optional argument takes
        fb = entry.check(*args)
        assert_sentence(fb, f"{entry.id} with {len(args)} arguments")
        assert fb.status == "not attempted", fb
        assert f"checks.{name} takes {len(entry.right)} argument" in fb.message, fb.message
        assert f"It was given {len(args)}." in fb.message and f"checks.{name}(" in fb.message, fb.message
    assert entry.check(*entry.right), f"{entry.id}: the right call is still right"


# ---- odd returns, errors and exits ---------------------------------------------------------------


class OddExit(BaseException):
    """Neither an Exception nor KeyboardInterrupt: it must become a sentence too."""


def returning(value):
    """A learner that does some work (so it is not the stub), then returns value (made afresh: ODD_VALUES)."""
    def learner(*args):
        len(args)
        return value() if isinstance(value, Fresh) else value
    return learner


class Fresh:
    """A value made anew for every call (a generator can be read once)."""

    def __init__(self, make):
        self.make = make

    def __call__(self):
        return self.make()


def raising(make_error):
    def learner(*args):
        len(args)
        raise make_error()
    return learner


def exiting(code):
    def learner(*args):
        len(args)
        sys.exit(code)
    return learner


def stub(*args):
    """The exercise's stub, as the notebook hands it out."""
    # YOUR CODE HERE
    return None


class StubFunction(torch.autograd.Function):
    """An autograd.Function exercise's stub, as the notebook hands it out."""

    @staticmethod
    def forward(ctx, *args):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError


ODD_VALUES = {
    "an int": 7919,
    "a float": -0.123,
    "a string": "seven",
    "a bool": True,
    "a numpy array": np.full(3, 7919.0),
    "a 1-element numpy array": np.array([7919.0]),
    "a 1-element tensor": torch.tensor([7919.0]),
    "a 0-d tensor": torch.tensor(7919.0),
    "a meta tensor": torch.empty(3, 4, device="meta"),
    "a generator": Fresh(lambda: (i for i in range(3))),
    "a dict": {"answer": 7919},
    "a pair of None": (None, None),
    "a function": len,
}
RAISES = {
    "ValueError": (lambda: raising(lambda: ValueError("boom")), "raised ValueError"),
    "sys.exit(0)": (lambda: exiting(0), "sys.exit(0)"),
    "sys.exit(1)": (lambda: exiting(1), "sys.exit(1)"),
    "a BaseException": (lambda: raising(lambda: OddExit("odd")), "OddExit"),
    "NotImplementedError after work": (lambda: raising(NotImplementedError), "NotImplementedError"),
}


def with_learner(entry, position, learner):
    args = list(entry.right)
    args[position] = learner
    return args


@pytest.mark.parametrize("entry", FUNCTIONS, ids=ids(FUNCTIONS))
def test_odd_returns_become_sentences(entry):
    for position, fn in enumerate(entry.right):
        if not callable(fn) or isinstance(fn, type):
            continue
        for what, value in ODD_VALUES.items():
            fb = entry.check(*with_learner(entry, position, returning(value)))
            assert_sentence(fb, f"{entry.id} returning {what}")
            assert fb.status == "wrong", f"{entry.id}: a function returning {what} got {fb}"
        fb = entry.check(*with_learner(entry, position, returning(None)))
        assert_sentence(fb, f"{entry.id} returning None")
        assert fb.status == "wrong" and "None" in fb.message, f"{entry.id}: work, then None, got {fb}"


@pytest.mark.parametrize("entry", TABLE_CHECKS, ids=ids(TABLE_CHECKS))
def test_a_right_or_typical_answer_in_other_clothes(entry):
    """The answer (or a typical mistake's) as a 1-element array or tensor, or in float32: a sentence."""
    check = entry.check
    answers = [check.reference] + [m.answer for m in check.mistakes if m.answer is not None]
    for answer in answers:
        try:
            value = answer(*fresh(check.cases[0]))
        except Exception:   # a mistake that cannot happen for this case
            continue
        clothes = []
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            clothes += [np.array([value]), torch.tensor([value]), np.float64(value)]
        if isinstance(value, torch.Tensor) and value.dtype == torch.float64:
            clothes.append(value.float())
        if isinstance(value, np.ndarray) and value.dtype == np.float64:
            clothes.append(value.astype(np.float32))
        for dressed in clothes:
            fb = check(returning(dressed))
            assert_sentence(fb, f"{entry.id}: {type(dressed).__name__} {getattr(dressed, 'dtype', '')}")


@pytest.mark.parametrize("entry", FUNCTIONS, ids=ids(FUNCTIONS))
def test_errors_and_exits_become_sentences(entry):
    for position, fn in enumerate(entry.right):
        if not callable(fn) or isinstance(fn, type):
            continue
        for what, (make, words) in RAISES.items():
            fb = entry.check(*with_learner(entry, position, make()))
            assert_sentence(fb, f"{entry.id} with {what}")
            assert fb.status == "wrong" and words in fb.message, f"{entry.id}: {what} got {fb}"
        with pytest.raises(KeyboardInterrupt):
            entry.check(*with_learner(entry, position, raising(KeyboardInterrupt)))


@pytest.mark.parametrize("entry", FUNCTIONS, ids=ids(FUNCTIONS))
def test_the_untouched_stub_is_not_attempted_and_the_solution_correct(entry):
    fb = entry.check(*[StubFunction if isinstance(a, type) and issubclass(a, torch.autograd.Function)
                       else stub if callable(a) and not isinstance(a, type) else a for a in entry.right])
    assert fb.status == "not attempted", f"{entry.id}: the untouched stub got {fb}"
    assert entry.check(*entry.right), f"{entry.id}: the notebook's solution got {entry.check(*entry.right)}"


def _module_returning(solution, value):
    class Odd(solution):
        def forward(self, x):
            super().forward(x)
            return value() if isinstance(value, Fresh) else value
    return Odd


def _module_raising(solution, make):
    class Odd(solution):
        def forward(self, x):
            super().forward(x)
            make()
    return Odd


def _exit_on_build(solution):
    class Odd(solution):
        def __init__(self, *args):
            super().__init__(*args)
            sys.exit(1)
    return Odd


def _exit(code):
    def go():
        sys.exit(code)
    return go


def _raise(error):
    def go():
        raise error
    return go


@pytest.mark.parametrize("entry", MODULES, ids=ids(MODULES))
def test_a_module_check_turns_anything_into_a_sentence(entry):
    (solution,) = entry.right
    for what, value in ODD_VALUES.items():
        fb = entry.check(_module_returning(solution, value))
        assert_sentence(fb, f"{entry.id}: forward returning {what}")
        assert fb.status == "wrong", f"{entry.id}: a forward returning {what} got {fb}"
    fb = entry.check(_module_returning(solution, None))
    assert fb.status == "wrong" and "returns None" in fb.message, fb
    for what, make in [("sys.exit(0)", _exit(0)), ("sys.exit(1)", _exit(1)), ("ValueError", _raise(ValueError("x"))),
                       ("OddExit", _raise(OddExit("odd")))]:
        fb = entry.check(_module_raising(solution, make))
        assert_sentence(fb, f"{entry.id}: forward with {what}")
        assert fb.status == "wrong", f"{entry.id}: a forward with {what} got {fb}"
    fb = entry.check(_exit_on_build(solution))
    assert_sentence(fb, f"{entry.id}: sys.exit in __init__")
    assert fb.status == "wrong" and "sys.exit(1)" in fb.message, fb
    with pytest.raises(KeyboardInterrupt):
        entry.check(_module_raising(solution, _raise(KeyboardInterrupt())))
    assert entry.check(solution), f"{entry.id}: the solution is no longer correct"


@pytest.mark.parametrize("entry", MODULES, ids=ids(MODULES))
def test_a_module_check_refuses_the_reference_and_its_subclasses(entry):
    check = entry.check
    reference = _reference_class(entry)

    class Sub(reference):
        pass

    for cls, words in [(reference, "itself"), (Sub, "subclasses the reference")]:
        fb = check(cls)
        assert_sentence(fb, f"{entry.id}: {cls.__name__}")
        assert fb.status == "wrong" and words in fb.message, f"{entry.id}: {cls.__name__} got {fb}"


def _reference_class(entry):
    """The course's class the check's reference is, for a ModuleCheck or the one a function check wraps."""
    name = f"helpers.checks.{entry.module}"   # a check package's submodules too
    modules = [module for key, module in sorted(sys.modules.items())
               if key == name or key.startswith(name + ".")]
    module_checks = [obj for module in modules for obj in vars(module).values()
                     if isinstance(obj, ModuleCheck)]
    check = entry.check if isinstance(entry.check, ModuleCheck) else module_checks[0]
    classes = [c for c in type(check.reference()).__mro__ if c.__module__.startswith("helpers.")
               and not c.__name__.startswith("_")]
    return classes[0]


# ---- predictions ---------------------------------------------------------------------------------

ODD_GUESSES = {
    "a numpy array": np.array([1, 2, 3]),
    "a 1-element array": np.array([0.5]),
    "a 1-element tensor": torch.tensor([0.5]),
    "a meta tensor": torch.empty(3, device="meta"),
    "a string": "lots",
    "a list": [7919],
    "a dict": {"a": 1},
    "a generator": (i for i in range(3)),
    "NaN": float("nan"),
    "infinity": float("inf"),
    "a complex number": complex(1, 1),
    "a bool": True,
    "a function": len,
}


@pytest.mark.parametrize("entry", PREDICTIONS, ids=ids(PREDICTIONS))
def test_a_prediction_takes_any_guess(entry):
    guess, actual = entry.right
    assert entry.check(None, actual).status == "not attempted"
    assert entry.check(guess, actual), f"{entry.id}: the solution's guess {guess!r} got {entry.check(guess, actual)}"
    for what, odd in ODD_GUESSES.items():
        fb = entry.check(odd, actual)
        assert_sentence(fb, f"{entry.id} guessing {what}")
        assert fb.status in ("wrong", "correct"), f"{entry.id}: {what} got {fb}"
    for dressed in _dressed(guess):
        fb = entry.check(dressed, actual)
        assert fb, f"{entry.id}: the right guess written as {dressed!r} got {fb}"


def _dressed(guess):
    """The right guess as a learner may write it: a numpy or torch number, an array, other spacing."""
    if isinstance(guess, bool):
        return []
    if isinstance(guess, (int, float)):
        return [np.float64(guess), np.array(guess), torch.tensor(guess, dtype=torch.float64)] + \
            ([np.int64(guess)] if isinstance(guess, int) else [])
    if isinstance(guess, list):
        return [tuple(guess), np.array(guess), torch.tensor(guess)]
    if isinstance(guess, str):
        return [f" {guess.upper()} "]
    return []


def test_a_fraction_given_for_a_percent_is_read_back():
    from helpers.checks import nb06_parameter_table as nb06

    fb = nb06.check_share_guess(0.64, 64.3)
    assert not fb and "you wrote 0.64: as a percent that is 64%" in fb.message, fb
    assert nb06.check_share_guess(64, 64.3)
    assert "you predicted 1%" not in nb06.check_share_guess(0.64, 64.3).message
    plain = Prediction("Exercise 9 (a share)", why="Because.", rel=0.2, variable="my_share", fmt="{:.2f}")
    assert plain(0.64, 0.64), "without percent=True, a fraction is a fraction"


# ---- what the old checks let through, named -------------------------------------------------------


def test_in_place_tricks_that_used_to_pass():
    from helpers.checks import nb01_matrix_multiply as nb01
    from helpers.checks import nb06_parameter_table as nb06
    from helpers.checks import nb11_mixture_of_experts as nb11

    def doubled(X, W):                  # X *= 2, then the right answer for the doubled X
        X *= 2
        return nb01.ex2_dot_products._matmul_reference(X, W)

    assert not nb01.check_matmul_by_dots(doubled)

    def untied(config):                 # tie_word_embeddings removed, then the count without it
        config.pop("tie_word_embeddings", None)
        return nb06.sizes._total(config)

    assert not nb06.check_count_llama(untied)
    namespace, _, _ = solved("nb06_parameter_table")
    assert nb06.check_count_llama(namespace["count_llama"]), "the solution after config.pop"

    def sorted_first(experts, n_experts, capacity):   # experts sorted in place
        experts.copy_(experts.sort(dim=-1).values)
        return nb11.within_capacity(experts, n_experts, capacity)

    assert not nb11.check_capacity(sorted_first)


def test_values_that_used_to_raise():
    from helpers import tensor_parallel
    from helpers.checks import nb03_ffn_forward as nb03
    from helpers.checks import nb07_position_wise as nb07
    from helpers.checks import nb09_decode_bandwidth as nb09
    from helpers.checks import nb10_tensor_parallel as nb10

    fb = nb07.check_token3_inputs(np.array([1, 2, 3]), [1, 2, 3])
    assert fb, fb                                       # an array of the right tokens is the right guess
    knee = nb09.check_knee_batch
    fb = knee(lambda n, kv, peak, bw, bpw: torch.tensor([nb09.bandwidth.knee_batch(n, 0, peak, bw, bpw)]))
    assert not fb and "without the KV cache" in fb.message, fb
    for sent in (None, 5):
        fb = nb10.check_ring_all_reduce(lambda buffers, sent=sent: ([sum(buffers)] * len(buffers), sent))
        assert_sentence(fb, f"ring with sent = {sent}")
        assert not fb and "expected a list" in fb.message, fb

    def numpy_shards(mlp, n):
        return [{k: v.numpy() for k, v in s.items()} for s in tensor_parallel.split_gated(mlp, n)]

    namespace, _, _ = solved("nb10_tensor_parallel")
    fb = nb10.check_llama_split(numpy_shards, namespace["llama_worker_forward"])   # runs 2 processes
    assert_sentence(fb, "numpy shards")
    assert fb, fb                                       # the split is right, whatever the array type

    def as_float32(ffn, keys, values):
        return ffn.float()

    fb = nb03.check_learned_memory(as_float32)
    assert not fb and "float32" in fb.message, fb


def test_every_check_the_notebooks_call_is_covered():
    """Each checks.NAME(...) a notebook calls is an entry here, with a right answer."""
    covered = {e.id: e for e in ENTRIES}
    for module in CHECK_MODULES:
        _, calls, _ = solved(module)
        for name in calls:
            entry = covered.get(f"{module}.{name}")
            assert entry is not None, f"{module}.{name} is called by its notebook but was not discovered"
            assert entry.right is not None, f"{module}.{name}: no right answer found in the notebook's solutions"


def test_the_referee_covers_every_kind_of_check():
    assert len(FUNCTIONS) >= 20 and len(MODULES) >= 6 and len(PREDICTIONS) >= 15, \
        (len(FUNCTIONS), len(MODULES), len(PREDICTIONS))
    assert len(MUTATION_CASES) >= 14, len(MUTATION_CASES)   # 10's ring is checked send by send (CHEATS)


def test_a_function_that_never_ends_is_stopped_with_a_sentence(monkeypatch):
    from helpers.checks import calling
    from helpers.checks.nb02_activations import check_valley_finder as check

    monkeypatch.setattr(calling, "TIME_LIMIT_S", 0.5)

    def bisect_forever(f, lo, hi):
        while hi - lo >= 0:   # always true
            pass

    fb = check(bisect_forever)
    assert fb.status == "wrong" and "ran for more than 0.5 s" in fb.message, fb
