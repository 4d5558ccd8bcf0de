"""Is the learner's function still the exercise's stub? `untouched` reads it from the bytecode;
`names_read` lists the names a code object reads, which checks use to see how an answer was
computed."""

import dis
import inspect

import torch

# The instructions a stub compiles to: `return None`, `pass`, or `raise NotImplementedError(...)`.
_STUB_OPS = {"RESUME", "NOP", "CACHE", "EXTENDED_ARG", "RETURN_CONST", "RETURN_VALUE",
             "LOAD_CONST", "LOAD_GLOBAL", "LOAD_NAME", "PUSH_NULL", "PRECALL", "CALL", "KW_NAMES",
             "RAISE_VARARGS"}


def _code_of(fn):
    """The code object that runs when fn is called: a function's, or an nn.Module's (or its class's)
    forward."""
    fn = inspect.unwrap(fn) if callable(fn) else fn
    if isinstance(fn, type) and issubclass(fn, torch.nn.Module):
        fn = fn.forward
    elif isinstance(fn, torch.nn.Module):
        fn = type(fn).forward
    return getattr(fn, "__code__", None) if inspect.isfunction(fn) or inspect.ismethod(fn) else None


def names_read(code):
    """Every global and attribute name a code object (and the functions defined in it) reads."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= names_read(const)
    return names


def untouched(fn):
    """True when fn is still an exercise's stub: its body only returns None or raises
    NotImplementedError.

    Read from the bytecode, so that docstrings, comments and blank lines do not count: a
    function that computes anything at all, and then returns None, is not the stub.
    Wrappers made with functools.wraps (or that set __wrapped__) are judged by what they wrap.

    """
    code = _code_of(fn)
    if code is None:
        return False
    for op in dis.get_instructions(code):
        if op.opname not in _STUB_OPS:
            return False
        if (op.opname in ("LOAD_CONST", "RETURN_CONST")
                and not (op.argval is None or isinstance(op.argval, str))):
            return False
        if op.opname in ("LOAD_GLOBAL", "LOAD_NAME") and op.argval != "NotImplementedError":
            return False
    return True
