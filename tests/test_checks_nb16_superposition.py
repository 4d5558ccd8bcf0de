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
