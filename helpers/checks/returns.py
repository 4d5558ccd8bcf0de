"""What a learner's function returns, read from its source: a `return` that hands back a call's
None.

`return handle.remove()` or `return out.add_(b)` ... returns what that call returns; when it is
None, the learner is told which call gave it, not asked whether a stub's `return None` is still
there.
"""

import ast
import inspect
import textwrap


# what the learner's function did, said as a sentence
class ReturnedCallsNone(Exception):  # noqa: N818
    """The learner's function ended in `return <a call>`, and that call returned None."""

    def __init__(self, call):
        super().__init__(call)
        self.call = call


def _own_returns(node):
    """The Return statements of a function, not those of the functions defined inside it."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Return):
            yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _own_returns(child)


def none_from_call(fn):
    """'handle.remove()' when every `return` of fn hands back a call, and fn's source can be read;
    else None."""
    fn = inspect.unwrap(fn)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return None
    body = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
                None)
    if body is None:
        return None
    returns = list(_own_returns(body))
    if not returns or not all(isinstance(r.value, ast.Call) for r in returns):
        return None
    return ast.unparse(returns[-1].value)
