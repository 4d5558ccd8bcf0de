"""Notebook 10, exercise 3's ring: the buffers, and the send that records every chunk a worker
passes to its neighbour (which chunk, holding which workers' shares)."""

import torch

from helpers.checks import language
from helpers.checks.show import one_line, say

# The learner's ring_all_reduce(buffers, send) moves every chunk through `send`, which records it:
# the check reads the traffic send by send (which worker sent which chunk, holding which workers'
# shares), then the results, then the bytes the learner counted. An answer that skips the ring
# (sum(buffers)) sends nothing.


class Buffers(list):
    """The workers' buffers, one tensor each, shown in messages by their count and size.

    It keeps its own copy of their sum, their chunks and their size, which a function that changes
    the buffers in place cannot touch.
    """

    def __init__(self, tensors):
        super().__init__(tensors)
        self.total = sum(t.clone() for t in self)              # what every worker must end with
        self.nbytes = self[0].numel() * self[0].element_size()
        self.parts = [[c.clone() for c in t.tensor_split(len(self))] for t in self]   # parts[r][c]

    def __repr__(self):
        return language.translate(say("[{n} buffers of {numel} numbers]",
                                      n=len(self), numel=self[0].numel()))


def _buffers(n_workers, numel=24):
    g = torch.Generator().manual_seed(n_workers)
    return Buffers(torch.randn(numel, generator=g, dtype=torch.float64) for _ in range(n_workers))


class Ring:
    """The wire of a ring: send(r, c, chunk) hands worker r's chunk c to worker (r + 1) % N.

    It returns what the neighbour receives (a copy) and records every send, in order.
    """

    def __init__(self, n_workers):
        self.n = n_workers
        self.sends = []   # (sender, chunk index, the numbers sent)

    def __call__(self, rank, chunk, data):
        for name, value in (("rank", rank), ("chunk", chunk)):
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                value = value.item()
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.n:
                raise ValueError(say("send's {name} is {value}; expected a whole number from 0 to "
                                     "{last}, a worker's rank or a chunk's index",
                                     name=name, value=one_line(value), last=self.n - 1))
        try:
            data = torch.as_tensor(data).detach().clone()
        except Exception as err:   # noqa: BLE001 - anything but numbers becomes the sentence below
            raise ValueError(say("send's chunk is {kind}; expected a tensor, one chunk of a buffer",
                                 kind=type(data).__name__)) from err
        self.sends.append((int(rank), int(chunk), data))
        return data.clone()

    def __repr__(self):
        return "send"

    def __deepcopy__(self, memo):
        # the learner's function must use this very wire, so that the check sees the traffic
        return self


class _OffsetRing(Ring):
    """A wire that hands the neighbour every number plus 1.

    A ring's results then differ from the sum, and results that still equal it were computed from
    the buffers again, not from what send handed.
    """

    def __call__(self, rank, chunk, data):
        return super().__call__(rank, chunk, data) + 1.0


def _shares(buffers, c, data):
    """Whose chunk c the sent numbers hold, a count per worker (2: its share twice), or None."""
    # (chunk numbers, N)
    parts = torch.stack([buffers.parts[r][c] for r in range(len(buffers))], dim=1)
    data = data.reshape(-1).to(torch.float64)
    if data.numel() != parts.shape[0]:
        return None
    k = torch.linalg.lstsq(parts, data.unsqueeze(1)).solution.squeeze(1).round()
    if (parts @ k - data).abs().max() > 1e-9 * (1 + data.abs().max()):
        return None
    return [int(v) for v in k]
