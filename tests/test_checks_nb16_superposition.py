"""Notebook 16's checks accept a right answer and name typical mistakes."""

import torch
from torch import nn

from helpers import sae
from helpers.checks import nb16_superposition as checks


def make_sae(relu=True, centre=True, add_back=True, penalty="codes", mean="batch", l1=True, normalise="columns",
             in_place=False):
    """The learner's SAE, right by default; each argument plants one mistake."""

    class SAE(nn.Module):
        def __init__(self, d_in, n_features):
            super().__init__()
            self.W_enc = nn.Parameter(torch.randn(n_features, d_in) / d_in ** 0.5)
            self.b_enc = nn.Parameter(torch.zeros(n_features))
            self.W_dec = nn.Parameter(torch.randn(d_in, n_features))
            self.b_dec = nn.Parameter(torch.zeros(d_in))

        def forward(self, x):
            if in_place:
                x -= self.b_dec
                pre = x @ self.W_enc.T + self.b_enc
            else:
                pre = (x - self.b_dec if centre else x) @ self.W_enc.T + self.b_enc
            f = torch.relu(pre) if relu else pre
            return f @ self.W_dec.T + (self.b_dec if add_back else 0), f

        def loss(self, x, l1_coeff):
            x_hat, f = self(x)
            err = (x - x_hat).pow(2)
            on = {"codes": f.abs(), "reconstruction": x_hat.abs()}[penalty]
            if mean == "all":
                return err.mean() + l1_coeff * on.mean()
            if mean == "width":
                return err.mean(-1).sum(0) + l1_coeff * on.mean(-1).sum(0)
            return err.sum(-1).mean(0) + (l1_coeff if l1 else 1.0) * on.sum(-1).mean(0)

        @torch.no_grad()
        def normalise_decoder_(self):
            if normalise == "columns":
                self.W_dec /= self.W_dec.norm(dim=0)
            elif normalise == "rows":
                self.W_dec /= self.W_dec.norm(dim=1, keepdim=True)
            elif normalise == "copy":
                return self.W_dec / self.W_dec.norm(dim=0)

    return SAE


class Stub(nn.Module):
    def __init__(self, d_in, n_features):
        super().__init__()

    def forward(self, x):
        raise NotImplementedError


def test_not_attempted():
    for fb in [checks.check_sae(None), checks.check_sae(Stub), checks.check_stored_guess(None, "B"),
               checks.check_variance(None), checks.check_variance(lambda x, x_hat: None)]:
        assert fb.status == "not attempted" and "Hint" not in str(fb), fb


def test_right_answers():
    assert checks.check_sae(make_sae())
    assert checks.check_stored_guess("B", "B")
    assert checks.check_stored_guess(" b", "B")


def test_mistakes_are_named():
    named = {
        "ReLU": make_sae(relu=False),
        "decoder bias was not subtracted": make_sae(centre=False),
        "not added back": make_sae(add_back=False),
        "on the reconstruction": make_sae(penalty="reconstruction"),
        "every entry": make_sae(mean="all"),
        "wrong axis": make_sae(mean="width"),
        "l1_coeff is missing": make_sae(l1=False),
        "rows of W_dec": make_sae(normalise="rows"),
        "W_dec is as it was": make_sae(normalise="copy"),
        "in place": make_sae(in_place=True),
    }
    for words, cls in named.items():
        fb = checks.check_sae(cls)
        assert fb.status == "wrong" and words in str(fb), (words, str(fb))
    assert checks.check_stored_guess("A", "B").status == "wrong"
    assert checks.check_stored_guess("D", "B").status == "wrong"


def test_the_reference_itself_is_refused():
    fb = checks.check_sae(sae.SparseAutoencoder)
    assert fb.status == "wrong" and "reference" in str(fb)


def test_misnamed_parameters_are_named():
    class Renamed(make_sae()):
        def __init__(self, d_in, n_features):
            super().__init__(d_in, n_features)
            self.encoder = nn.Parameter(self.W_enc.detach().clone())
            del self.W_enc

    fb = checks.check_sae(Renamed)
    assert fb.status == "wrong" and "W_enc" in str(fb)


def test_variance_explained():
    assert checks.check_variance(lambda x, x_hat: 1 - ((x - x_hat) ** 2).sum() / ((x - x.mean(0)) ** 2).sum())
    assert checks.check_variance(lambda x, x_hat: (1 - (x - x_hat).square().sum() / (x - x.mean(0)).square().sum()).item())
    named = {
        "not centred": lambda x, x_hat: 1 - ((x - x_hat) ** 2).sum() / (x ** 2).sum(),
        "unexplained": lambda x, x_hat: ((x - x_hat) ** 2).sum() / ((x - x.mean(0)) ** 2).sum(),
        "wrong axis": lambda x, x_hat: 1 - ((x - x_hat) ** 2).sum() / ((x - x.mean(1, keepdim=True)) ** 2).sum(),
        "per neuron": lambda x, x_hat: (1 - ((x - x_hat) ** 2).sum(0) / ((x - x.mean(0)) ** 2).sum(0)).mean(),
    }
    for words, fn in named.items():
        fb = checks.check_variance(fn)
        assert fb.status == "wrong" and words in str(fb), (words, str(fb))


def test_variance_explained_in_place_edit_is_named():
    def in_place(x, x_hat):
        x -= x_hat
        return 1 - (x ** 2).sum() / ((x_hat + x - (x_hat + x).mean(0)) ** 2).sum()

    fb = checks.check_variance(in_place)
    assert fb.status == "wrong" and "in place" in str(fb), str(fb)


def _sae_with(forward=None, loss=None, normalise=None):
    """The right SAE with one method replaced: forward(self, x), loss(self, x, l1_coeff) or normalise(self)."""
    base = make_sae()
    methods = {"forward": forward, "loss": loss, "normalise_decoder_": normalise}
    return type("SAE", (base,), {name: fn for name, fn in methods.items() if fn is not None})


def _encode(self, x):
    return torch.relu((x - self.b_dec) @ self.W_enc.T + self.b_enc)


def _right_forward(self, x):
    f = _encode(self, x)
    return f @ self.W_dec.T + self.b_dec, f


def _loss_from(reconstruction, l1, coeff_on_reconstruction=False):
    def loss(self, x, l1_coeff):
        x_hat, f = self(x)
        r, p = reconstruction(x - x_hat), l1(f)
        return l1_coeff * r + p if coeff_on_reconstruction else r + l1_coeff * p
    return loss


def _normalise_with(fn):
    @torch.no_grad()
    def normalise(self):
        self.W_dec.copy_(fn(self.W_dec))
    return normalise


def _replaced(self):
    self.W_dec = nn.Parameter(self.W_dec.detach() / self.W_dec.detach().norm(dim=0))


def _tracked(self):
    self.W_dec /= self.W_dec.norm(dim=0)


row_sum_mean = lambda e: e.pow(2).sum(-1).mean(0)          # noqa: E731 - the right reconstruction
l1_right = lambda f: f.abs().sum(-1).mean(0)               # noqa: E731 - the right L1 term

WRONG_SAES = {   # a fresh set of learner attempts at exercise 2, each with the words that name it
    "transpose": _sae_with(forward=lambda self, x: (_encode(self, x) @ self.W_dec + self.b_dec, _encode(self, x))),
    "nn.Linear stores": _sae_with(forward=lambda self, x: (
        torch.relu((x - self.b_dec) @ self.W_enc + self.b_enc) @ self.W_dec.T, None)),
    "you returned (f, x_hat)": _sae_with(forward=lambda self, x: tuple(reversed(_right_forward(self, x)))),
    "after the ReLU": _sae_with(forward=lambda self, x: (
        (torch.relu((x - self.b_dec) @ self.W_enc.T) + self.b_enc) @ self.W_dec.T + self.b_dec,
        torch.relu((x - self.b_dec) @ self.W_enc.T) + self.b_enc)),
    "added b_dec to x": _sae_with(forward=lambda self, x: (
        torch.relu((x + self.b_dec) @ self.W_enc.T + self.b_enc) @ self.W_dec.T + self.b_dec,
        torch.relu((x + self.b_dec) @ self.W_enc.T + self.b_enc))),
    "not a ReLU": _sae_with(forward=lambda self, x: (
        torch.nn.functional.gelu((x - self.b_dec) @ self.W_enc.T + self.b_enc) @ self.W_dec.T + self.b_dec,
        torch.nn.functional.gelu((x - self.b_dec) @ self.W_enc.T + self.b_enc))),
    "decoder subtracts b_dec": _sae_with(forward=lambda self, x: (
        _encode(self, x) @ self.W_dec.T - self.b_dec, _encode(self, x))),
    "decoder uses W_enc": _sae_with(forward=lambda self, x: (_encode(self, x) @ self.W_enc + self.b_dec,
                                                             _encode(self, x))),
    "torch.norm(f, 1)": _sae_with(loss=_loss_from(row_sum_mean, lambda f: torch.norm(f, 1))),
    "both terms are summed": _sae_with(loss=_loss_from(lambda e: e.pow(2).sum(), lambda f: f.abs().sum())),
    "F.mse_loss": _sae_with(loss=_loss_from(lambda e: e.pow(2).mean(), l1_right)),
    "f.abs().mean()": _sae_with(loss=_loss_from(row_sum_mean, lambda f: f.abs().mean())),
    "reduction='sum'": _sae_with(loss=_loss_from(lambda e: e.pow(2).sum(), l1_right)),
    "not squared": _sae_with(loss=_loss_from(lambda e: e.norm(dim=-1).mean(), l1_right)),
    "one length for the whole batch": _sae_with(loss=_loss_from(lambda e: torch.norm(e), l1_right)),
    "l1_coeff multiplies the reconstruction": _sae_with(loss=_loss_from(row_sum_mean, l1_right, True)),
    "L2 length of f": _sae_with(loss=_loss_from(row_sum_mean, lambda f: f.norm(dim=-1).mean())),
    "one value per input": _sae_with(loss=lambda self, x, c: (lambda xh, f: (x - xh).pow(2).sum(-1)
                                                              + c * f.abs().sum(-1))(*self(x))),
    "squared length": _sae_with(normalise=_normalise_with(lambda W: W / W.norm(dim=0).pow(2))),
    "largest entry": _sae_with(normalise=_normalise_with(lambda W: W / W.abs().max(0).values)),
    "new Parameter": _sae_with(normalise=_replaced),
    "torch.no_grad()": _sae_with(normalise=_tracked),
}


def test_a_fresh_set_of_wrong_saes_is_named_and_none_accepted():
    for words, cls in WRONG_SAES.items():
        fb = checks.check_sae(cls)
        assert fb.status == "wrong" and words in str(fb), (words, str(fb))


def test_an_instance_handed_in_is_told_to_pass_the_class():
    fb = checks.check_sae(make_sae()(6, 10))
    assert fb.status == "wrong" and "check_sae(SAE)" in str(fb) and "the class itself" in str(fb), str(fb)


def test_a_letter_is_read_as_a_person_writes_it():
    for guess in ("b.", " B ", "(b)", "b!", "'B'"):
        assert checks.check_stored_guess(guess, "B").status == "correct", guess
        assert checks.check_l1_guess(guess, "B").status == "correct", guess
    assert checks.check_l1_guess("a.", "C").status == "wrong"
    assert checks.check_l1_guess(None, "C").status == "not attempted"


def _va(numerator, denominator):
    return lambda x, x_hat: 1 - numerator(x, x_hat) / denominator(x, x_hat)


def _sse(x, x_hat):
    return (x - x_hat).pow(2).sum()


def _sst(x, x_hat):
    return (x - x.mean(0)).pow(2).sum()


WRONG_VARIANCES = {   # a fresh set of attempts at exercise 3, each with the words that name it
    "one global mean": _va(_sse, lambda x, x_hat: (x - x.mean()).pow(2).sum()),
    "N - 1": _va(lambda x, x_hat: (x - x_hat).pow(2).mean(0).sum(), lambda x, x_hat: x.var(0).sum()),
    "N·d - 1": _va(lambda x, x_hat: (x - x_hat).pow(2).mean(), lambda x, x_hat: x.var()),
    "divided variances": _va(lambda x, x_hat: (x - x_hat).var(0).sum(), lambda x, x_hat: x.var(0).sum()),
    "torch.var subtracts": _va(lambda x, x_hat: (x - x_hat).var(), lambda x, x_hat: x.var()),
    "variance of x_hat": lambda x, x_hat: (x_hat - x_hat.mean(0)).pow(2).sum() / _sst(x, x_hat),
    "errors are not squared": _va(lambda x, x_hat: (x - x_hat).abs().sum(), lambda x, x_hat: (x - x.mean(0)).abs().sum()),
    "compares lengths": _va(lambda x, x_hat: (x - x_hat).norm(), lambda x, x_hat: (x - x.mean(0)).norm()),
    "a mean and the other a sum": _va(lambda x, x_hat: (x - x_hat).pow(2).mean(), _sst),
    "a percent": lambda x, x_hat: 100 * (1 - _sse(x, x_hat) / _sst(x, x_hat)),
    "not centred": _va(_sse, lambda x, x_hat: x.pow(2).sum()),
    "unexplained": lambda x, x_hat: _sse(x, x_hat) / _sst(x, x_hat),
}


def test_a_fresh_set_of_wrong_variances_is_named_and_none_accepted():
    for words, fn in WRONG_VARIANCES.items():
        fb = checks.check_variance(fn)
        assert fb.status == "wrong" and words in str(fb), (words, str(fb))
