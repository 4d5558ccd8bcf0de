"""The text a learner reads in a code cell, translated: its comments and the string literals it prints
or draws, kept in locale/ko/LC_MESSAGES/code.po (the code itself stays the English code).

What is translatable, found with the AST and the tokenizer (never a regex over code): every comment;
the docstring of every function and class the cell defines (it is read like a comment); and every
string literal or f-string with words in it that is an argument of print, the message of an assert,
a figure's title, axis label, text or legend (set_title, set_xlabel, suptitle, text, annotate,
legend...), or the value of label=, title=, xlabel=, ylabel=, description=, desc= (a progress bar's
label); inside such an argument, each literal that it joins with `+`, chooses with a conditional
expression (`"faster" if r > 1 else "slower"`), or puts together with str.join or str.format; and
what a cell's function returns where one of its literals is a phrase (words with a space:
`return f"{r:.2f}x faster" if r >= 1 else "same"`), which the cell then prints; a function that
returns only single words ("relu") returns code. An f-string's words are its text and the literals its fields show as they are
(`{'neurons':<19}`, `{'faster' if r > 1 else 'slower'}`), not those its code reads (`{t['dense']}`). An entry's
msgctxt is "<notebook>#<cell id>", its msgid the literal or comment as written in the English cell
(quotes, f prefix and {fields} included), its msgstr the Korean as it goes into the Korean cell.

An untranslated entry keeps the English in the Korean notebook (so the machinery lands before the
translations do; `make ko-status` counts them); a fuzzy one (its English changed) keeps the English
too and is reported, with its previous English, as a code cell whose translatable text changed.
`same_code` is the test's comparison: the two cells' token streams once string literals and
comments are set aside.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

from babel.messages.catalog import Message

PRINTERS = {"print"}
LABELLERS = {"set_title", "set_xlabel", "set_ylabel", "set_zlabel", "suptitle", "title", "xlabel", "ylabel",
             "text", "annotate", "legend", "set_label", "supxlabel", "supylabel"}
KEYWORDS = {"label", "title", "xlabel", "ylabel", "description", "desc"}
_WORDS = re.compile(r"[A-Za-z]{2,}")
_DIRECTIVE = re.compile(r"#\s*(noqa|type:|fmt:|pragma|%%)")


def _masked(source):
    """source with IPython's magic and shell lines (%, !) blanked, each character kept in place."""
    return "\n".join(" " * len(line) if line.lstrip().startswith(("%", "!")) else line
                     for line in source.split("\n"))


def _offsets(source):
    """A function (line, UTF-8 byte column) -> character offset in source, as ast reports positions."""
    starts, lines = [0], source.split("\n")
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    return lambda line, col: starts[line - 1] + len(lines[line - 1].encode("utf-8")[:col].decode("utf-8"))


def _a_name(literal):
    """A literal that holds one name or unit ("ReLU", "up_proj", "GB/s"), which stays as it is; a single
    lower-case word ("tokens") is a word to translate."""
    inner = re.sub(r"^[a-zA-Z]*(['\"]{1,3})(.*)\1$", r"\2", literal.strip(), flags=re.S).strip()
    return bool(re.fullmatch(r"[\w./+\-]+", inner)) and not re.fullmatch(r"[a-z]{3,}", inner)


def _is_text(node):
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _pieces(node):
    """The literals of a shown expression: itself, or those it joins with +, chooses with `a if c else b`,
    or puts together with str.join (its separator and items) or str.format (its template)."""
    if _is_text(node):
        yield node
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _pieces(node.left)
        yield from _pieces(node.right)
    elif isinstance(node, ast.IfExp):
        yield from _pieces(node.body)
        yield from _pieces(node.orelse)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("join", "format"):
        yield from _pieces(node.func.value)
        for arg in node.args if node.func.attr == "join" else ():
            if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
                yield from _pieces(arg.elt)
            elif isinstance(arg, (ast.List, ast.Tuple)):
                for item in arg.elts:
                    yield from _pieces(item)


def _docstring(node):
    """The docstring node of a function or class defined in the cell (None if it has none)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            return first.value
    return None


def _literals(tree):
    """The string nodes a learner reads: print's arguments, assert messages, figure labels, widget text,
    the docstrings of the cell's functions and classes."""
    for node in ast.walk(tree):
        if (doc := _docstring(node)) is not None:   # read like a comment: what the function does
            yield doc
        if isinstance(node, ast.Assert) and node.msg is not None:
            yield from _pieces(node.msg)
        if isinstance(node, ast.Return) and node.value is not None:   # a cell's function that words a result
            pieces = list(_pieces(node.value))
            if any(" " in _shown_text(piece).strip() for piece in pieces):
                yield from pieces
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        if name in PRINTERS | LABELLERS:
            for arg in node.args:
                items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) and name == "legend" else [arg]
                for item in items:
                    yield from _pieces(item)
        for keyword in node.keywords:
            if keyword.arg in KEYWORDS:
                yield from _pieces(keyword.value)


def _shown_text(node):
    """The words a literal or an f-string shows as written."""
    return " ".join(_shown_literals(node)) if isinstance(node, ast.JoinedStr) else node.value


def _shown_literals(node):
    """The text an f-string shows as written: its literal parts and the literals its fields show as they
    are (`{'neurons':<19}`, `{'faster' if r > 1 else 'slower'}`), not a literal its code reads."""
    for value in node.values:
        if isinstance(value, ast.Constant):
            yield value.value
        elif isinstance(value, ast.FormattedValue):
            yield from (piece.value for piece in _pieces(value.value) if isinstance(piece, ast.Constant))


def spans(source):
    """[(start, end, text)] of the translatable pieces of a code cell, in order (character offsets)."""
    masked = _masked(source)
    try:
        tree = ast.parse(masked)
        tokens = list(tokenize.generate_tokens(io.StringIO(masked).readline))
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return []
    at, found = _offsets(masked), {}
    for node in _literals(tree):
        start, end = at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)
        text = source[start:end]
        words = _shown_text(node) if isinstance(node, ast.JoinedStr) else text
        if _WORDS.search(words) and not _a_name(words):
            found[start] = (start, end, text)
    line_start = [0]
    for line in masked.split("\n"):
        line_start.append(line_start[-1] + len(line) + 1)
    for token in tokens:   # the tokenizer counts characters, the AST bytes
        if token.type == tokenize.COMMENT and _WORDS.search(token.string) and not _DIRECTIVE.match(token.string):
            start = line_start[token.start[0] - 1] + token.start[1]
            found[start] = (start, start + len(token.string), token.string)
    return [found[k] for k in sorted(found)]


def translated_source(source, translations):
    """source with each piece whose English `translations` ({English: Korean}) holds replaced."""
    out = source
    for start, end, text in reversed(spans(source)):
        if translations.get(text):
            out = out[:start] + translations[text] + out[end:]
    return out


def skeleton(source):
    """The cell's tokens with every run of string literals one STRING and comments left out."""
    out = []
    depth = 0   # inside an f-string (Python 3.12 splits it into tokens)
    for token in tokenize.generate_tokens(io.StringIO(_masked(source)).readline):
        name = tokenize.tok_name[token.type]
        if name == "FSTRING_START":
            depth += 1
        if depth or name == "STRING":
            if not out or out[-1] != "STRING":
                out.append("STRING")
        elif name not in ("COMMENT", "NL", "NEWLINE", "INDENT", "DEDENT", "ENDMARKER"):
            out.append(token.string)
        if name == "FSTRING_END":
            depth -= 1
    return out


def same_code(english, korean):
    """Whether two cells are the same code once string literals and comments are set aside."""
    try:
        return skeleton(english) == skeleton(korean)
    except (SyntaxError, tokenize.TokenError, IndentationError):
        return english == korean


def cell_entries(path, cell):
    """[Message] for one English code cell (untranslated), msgctxt '<notebook>#<cell id>'."""
    context = f"{Path(path).name}#{cell.id}"
    seen, found = set(), []
    for _, _, text in spans(cell.source):
        if text not in seen:
            seen.add(text)
            found.append(Message(text, "", context=context, locations=[(f"notebooks/{Path(path).name}", None)]))
    return found


def update(catalog, template):
    """catalog (code.po) in step with template, cell by cell: the same English keeps its Korean; a changed
    one takes the Korean of the entry it replaced in that cell (in order), fuzzy, with its previous msgid;
    what is left over becomes obsolete. Returns catalog, changed in place."""
    by_cell, wanted = {}, {}
    for message in catalog:
        if message.id:
            by_cell.setdefault(message.context, []).append(message)
    for message in template:   # a list of Messages (a Catalog would merge equal English across cells)
        if message.id:
            wanted.setdefault(message.context, []).append(message)
    for context, messages in wanted.items():
        old = {m.id: m for m in by_cell.pop(context, [])}
        fresh = [m for m in messages if m.id not in old]
        spare = [m for m in old.values() if m.id not in {n.id for n in messages} and m.string]
        for message in fresh:
            match = spare.pop(0) if spare else None
            new = Message(message.id, match.string if match else "", context=context, locations=message.locations)
            if match:
                new.flags.add("fuzzy")
                new.previous_id = [match.previous_id[0] if match.fuzzy and match.previous_id else match.id]
            catalog[message.id] = new   # keyed by (msgid, its msgctxt)
        for message in old.values():
            if message.id not in {n.id for n in messages}:
                _retire(catalog, message)
    for messages in by_cell.values():
        for message in messages:
            _retire(catalog, message)
    return catalog


def _retire(catalog, message):
    catalog.delete(message.id, context=message.context)
    if message.string:
        catalog.obsolete[(message.id, message.context)] = message


def cell_state(path, cell, catalog):
    """({English: Korean} to use, [untranslated English], [(English, previous English)] changed) of a cell."""
    context = f"{Path(path).name}#{cell.id}"
    use, untranslated, changed = {}, [], []
    for _, _, text in spans(cell.source):
        message = catalog.get(text, context=context)
        if message is None or not message.string:
            untranslated.append(text)
        elif message.fuzzy:
            changed.append((text, message.previous_id[0] if message.previous_id else ""))
        else:
            use[text] = message.string
    return use, untranslated, changed


def template(paths, is_setup):
    """A list of every translatable piece of the English notebooks' code cells (setup cells aside)."""
    import nbformat

    found = []
    for path in paths:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and not is_setup(cell):
                found += cell_entries(path, cell)
    return found
