"""A Babel extraction method for the checks' sentences (helpers/checks/*.py, and the modules of
helpers that speak through `show.say`: the progress record, the study group's report).

Babel's own Python extractor finds the first argument of a keyword call. A check's sentences
are also written as keyword arguments (`why=`, `success=`), as module constants passed by name
(`Mistake(_NO_BIAS, ...)`), as dataclass defaults and as tables of sentences, and some are only
whole once the module is loaded (a case shown by its name, "<llama-3-8b config>"). So this
method reads each module twice:

- its source (ast): the string literal, or the constant it names, or the `+` of such, passed
  to `say`, `Mistake`, `Check`, `ModuleCheck`, `Prediction`, `referee`, `correct`, `wrong`,
  `not_attempted`, `_a`, or as `message=`, `success=`, `why=`, `answer=`, `name=`,
  `exercise=`; a name bound to several strings (`end = "" if ... else "."`) gives each;
  dataclass defaults of those fields; and tables of sentences (a module-level dict, list or
  tuple whose strings read as sentences);
- the loaded module: every sentence its checks hold (`show.Text` templates, and the sentence
  as filled when a check keeps it filled), and each case's name (`Named`).

Used as `extract(fileobj, keywords, comment_tags, options)`, Babel's signature for an
extraction method; `messages(root)` runs it over `sources(root)` and returns a Babel Catalog.
"""

import ast
import dataclasses
import importlib
import inspect
import re
import string
from pathlib import Path
from types import ModuleType

from babel.messages.catalog import Catalog
from babel.messages.extract import extract as babel_extract

import translator_notes

CALLS = {"say": (0,), "said": (0,), "Mistake": (0,), "Check": (0,), "ModuleCheck": (0,), "Prediction": (0,),
         "NamedPrediction": (0,), "referee": (0,), "correct": (1,), "wrong": (1,), "not_attempted": (1,),
         "_a": (1, 2)}
KEYWORDS = {"message", "success", "why", "answer", "name", "exercise"}
SKIPPED = {"language.py", "__init__.py"}   # the language machinery and the package's exports hold no sentences
DERIVED_FROM = {}   # {sentence: the Text or Named it is made from}, filled by loaded_messages
DERIVED = "filled in from another entry's translation; `translations.py extract` rewrites it"


FORMAT_FLAGS = {"python-format", "python-brace-format"}


def format_flags(text, domain="checks"):
    """The format flag of an entry, which `msgfmt -c` and Poedit check the translation by.

    A check's sentence and a setup piece are str.format templates (`show.say`, the setup cell's
    f-strings): python-brace-format where `{field}`s are filled, so the translation must keep the same
    fields. Never python-format: no sentence of the course is a %-template, and Babel's guess
    ("10% of" looks like one) would make gettext reject a correct "10% 미만". A markdown cell is no
    template at all, and a code cell's literal is Python (its f-string fields are code): no flag."""
    if domain in ("notebooks", "code") or not text or "{" not in text:
        return set()
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError:   # a brace that is no field: the text is said as it is
        return set()
    return {"python-brace-format"} if fields else set()


def _strings(node, names):
    """Every string the expression can be: a literal, a name bound to strings, a `+` of those."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return names.get(node.id, [])
    if isinstance(node, ast.Subscript):   # a table's entry: any of its sentences
        return names.get(getattr(node.value, "id", None), [])
    if isinstance(node, ast.BoolOp):   # `one_line(err) or "no message"`
        return [text for value in node.values for text in _strings(value, names)]
    if isinstance(node, ast.IfExp):
        return _strings(node.body, names) + _strings(node.orelse, names)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _strings(node.left, names), _strings(node.right, names)
        return [a + b for a in left for b in right]
    return []


def _bindings(tree):
    """{name: [strings]} for every name assigned a string (anywhere: module, function, branch)."""
    names = {}
    for _ in range(2):   # a constant built from another constant
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                found = _strings(node.value, names) or [text for _, text in _table_strings(node.value, any)]
                if found:
                    names[node.targets[0].id] = sorted(set(names.get(node.targets[0].id, [])) | set(found))
    return names


def _is_phrase(text):
    """Words a learner reads (a template, a sentence, "your module"), not a name or a label."""
    return "{" in text or (" " in text.strip() and any(c.islower() for c in text))


def _is_sentence(text):
    return " " in text.strip() and text.rstrip()[-1:] in ".?!:" and any(c.isalpha() for c in text)


def _table_strings(node, wanted=_is_sentence):
    """The sentences of a module-level table: the string values of a dict, list or tuple literal."""
    if isinstance(node, ast.Dict):
        values = node.values
    elif isinstance(node, (ast.List, ast.Tuple)):
        values = node.elts
    else:
        return []
    found = []
    for value in values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str) and wanted(value.value):
            found.append((value.lineno, value.value))
        elif isinstance(value, (ast.Tuple, ast.List)):
            found += _table_strings(value, wanted)
    return found


def source_messages(source):
    """[(line, text)] of the sentences a check module's source holds."""
    tree = ast.parse(source)
    names = _bindings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = getattr(node.func, "id", getattr(node.func, "attr", ""))
            args = [node.args[i] for i in CALLS.get(called, ()) if i < len(node.args)]
            if called in CALLS:
                args += [k.value for k in node.keywords if k.arg in KEYWORDS or isinstance(k.value, ast.BoolOp)]
            elif node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                    and "{" in node.args[0].value and _is_sentence(node.args[0].value):
                args.append(node.args[0])   # a helper that makes a Mistake from a template (`_one_too(...)`)
            found += [(node.lineno, text) for arg in args for text in _strings(arg, names)]
        elif isinstance(node, ast.FunctionDef):   # `def not_attempted(exercise, message=NOT_YET)`
            defaults = node.args.defaults
            params = node.args.args[len(node.args.args) - len(defaults):]
            found += [(node.lineno, text) for param, default in zip(params, defaults, strict=True)
                      if param.arg in KEYWORDS for text in _strings(default, names)]
        elif isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") in KEYWORDS and node.value:
            found += [(node.lineno, text) for text in _strings(node.value, names)]   # a dataclass default
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            found += _table_strings(node.value)
            found += [(node.lineno, text) for text in _strings(node.value, {}) if _is_sentence(text)]   # a constant
    return [(line, text) for line, text in found if _is_phrase(text)]


def _walk(value, seen):
    """Every object reachable from a module-level value through containers and dataclass fields."""
    if id(value) in seen or isinstance(value, (int, float, bool, type(None), bytes, type, ModuleType)):
        return
    if inspect.isroutine(value):
        return
    seen.add(id(value))
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from _walk(item, seen)
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _walk(item, seen)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _walk(getattr(value, f.name), seen)


def loaded_messages(module_name):
    """[(text, filled from)] the loaded module holds: Text templates, filled sentences, cases' names."""
    from helpers.checks.cases import Named
    from helpers.language import Text

    module = importlib.import_module(module_name)
    found, seen = [], set()
    for name, value in vars(module).items():
        if name.startswith("__"):
            continue
        for item in _walk(value, seen):
            if isinstance(item, Text):
                found.append((item.template, None))
                if str(item) != item.template:
                    found.append((str(item), item))
                    DERIVED_FROM[str(item)] = item
                for inner in list(item.args) + list(item.values.values()):
                    if isinstance(inner, Text):
                        found.append((inner.template, None))
            if dataclasses.is_dataclass(item) and not isinstance(item, type):   # a check's plain sentences
                for f in dataclasses.fields(item):
                    held = getattr(item, f.name)
                    held = list(held.values()) if f.name == "key_hints" else [held]
                    found += [(text, None) for text in held if f.name in KEYWORDS | {"key_hints"}
                              and type(text) is str and _is_phrase(text)]
            if isinstance(item, Named):
                found.append((repr(item), item))
                DERIVED_FROM[repr(item)] = item
    return found


def extract(fileobj, keywords, comment_tags, options):
    """Babel extraction method: (line, funcname, message, comments) for each sentence of one module."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    filled, path = translator_notes.field_sources(source), options.get("path", "")
    for line, text in source_messages(source):
        yield line, None, text, translator_notes.comments(text, path, filled.get(text))
    module = options.get("module")
    if module:
        for text, made in loaded_messages(module):
            if not text:
                continue
            comments = [f"{DERIVED}: {made.template if hasattr(made, 'template') else repr(made)}"] if made else []
            yield 0, None, text, comments + translator_notes.comments(text, path, filled.get(text))


def sources(root):
    """The modules whose sentences the checks' catalog holds: helpers/checks/*.py, and every other module
    of helpers (and of helpers/demos and helpers/params) that says sentences with say or said (the progress
    record, the study group's report, the demos' figures and controls), and the tools that say them (the
    set-up's, through tools/setup_language.py; tools/slide_layout.py's marks on a slide that continues
    another)."""
    helpers = Path(root) / "helpers"
    # a notebook's checks are one module, or a package of modules (helpers/checks/nbNN_name/*.py)
    found = [p for p in sorted((helpers / "checks").rglob("*.py")) if p.name not in SKIPPED]
    for path in sorted(helpers.glob("*.py")) + sorted((helpers / "demos").glob("*.py")) + sorted((helpers / "params").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if re.search(r"from helpers(\.checks\.show|\.language) import|from helpers import .*\blanguage\b", text) \
                and re.search(r"\bsa(y|id)\(", text):
            found.append(path)
    for path in sorted((Path(root) / "tools").glob("*.py")):   # the set-up's tools, the decks' marks
        text = path.read_text(encoding="utf-8")
        if "from setup_language import say" in text or re.search(r"from helpers\.language import .*\bsay\b", text):
            found.append(path)
    return found


def messages(root, load=True):
    """A Babel Catalog (a template: no translations) of every sentence in the modules `sources` finds
    (load=False: from their source alone, without importing them)."""
    catalog = Catalog(project="inside-transformer-mlp", domain="checks", fuzzy=False)
    for path in sources(root):
        where = str(path.relative_to(root))
        in_package = path.relative_to(root).parts[0] == "helpers"   # a tool is read from its source alone
        options = {"module": ".".join(path.relative_to(root).with_suffix("").parts) if load and in_package else None,
                   "path": where}
        with path.open("rb") as fileobj:
            for line, text, comments, _context in babel_extract(extract, fileobj, options=options):
                old = catalog.get(text)
                if old is None:
                    old = catalog.add(text, locations=[(where, line or None)], auto_comments=comments)
                    old.flags = old.flags - FORMAT_FLAGS | format_flags(text)
                else:
                    if (where, line or None) not in old.locations:
                        old.locations.append((where, line or None))
                    old.auto_comments = list(dict.fromkeys(old.auto_comments + comments))
    return catalog
