"""The translator's comment (`#.` in checks.po) on every entry that is a template or a fragment.

A translator working in Poedit sees one entry at a time. An entry with {fields} or one that is only a
piece of a sentence cannot be translated well without knowing where it is shown, what each field
will hold and how a Korean particle follows a field. check_messages.extract writes that here, from
the source: the module that says the entry gives where it is shown; the call that fills a template
(`say("{call} returned {got}.", call=..., got=...)`) gives what each field holds, as the code that
fills it, with the common fields said in words.
"""

import ast
import re
import string
from pathlib import Path

# Where an entry is shown, by the module that says it (a prefix of its path).
WHERE = {
    "helpers/checks/nb": "notebook {nn}'s check: printed under the exercise cell when the learner runs it",
    "helpers/checks/show.py": "describes a learner's value; it is put into another check sentence (its {got})",
    "helpers/checks/core.py": "every check's verdict lines (Checked, not yet, the hints)",
    "helpers/checks/verdict.py": "every check's verdict lines (Checked, not yet, the hints)",
    "helpers/checks/calling.py": "every check's verdict lines (Checked, not yet, the hints)",
    "helpers/checks/in_place.py": "every check's verdict lines (Checked, not yet, the hints)",
    "helpers/checks/runner.py": "every check's verdict: how the learner's function was called and what went wrong",
    "helpers/checks/prediction.py": "every check's verdict: how the learner's function was called and what went wrong",
    "helpers/checks/reading.py": "every check's verdict: how the learner's function was called and what went wrong",
    "helpers/checks/module.py": "the checks of an nn.Module the learner builds",
    "helpers/checks/compare.py": "the checks that compare the learner's numbers with the right ones",
    "helpers/checks/recording.py": "the progress line a check prints (which exercises are done)",
    "helpers/checks/cases.py": "the name of a case a check tries, shown inside a verdict",
    "helpers/checks/guesses.py": "a check's answer to a word guess",
    "helpers/study": "the study group's report and page (python -m helpers study)",
    "helpers/gpt2.py": "the GPT-2 loader's messages (notebook 13): progress lines and errors",
    "helpers/setup.py": "the setup cell's lines at the top of every notebook",
    "helpers/device.py": "the device's name in the setup cell's first line (Device: ...)",
    "helpers/tensor_parallel.py": "notebook 10's line on the workers' processes (their peak memory)",
    "helpers/fused.py": "notebook 17: one crossing of the activation through memory (a kernel writes or reads it)",
    "helpers/progress.py": "the line a progress bar leaves when its loop ends (notebooks 03, 08, 10, 16)",
    "helpers/demos/nb": "notebook {nn}'s live demo: a figure's title, axis label, legend or text, or a control's name",
    "helpers/plots.py": "a figure's title, axis label or legend (the course's plots)",
    "helpers/validate": "an error a helper raises when it is called wrongly (names the argument, expected and got)",
    "tools/slide_layout.py": "a deck's mark (make slides) above a piece of a code cell or a list cut across slides",
    "tools/": "the set-up (make's install steps), printed in a terminal",
}
# What a common field holds, in words (any other field: the code that fills it).
FIELDS = {
    "call": "the call the check made, as code, e.g. ffn(x (4, 512))",
    "got": "what the learner's code gave: a number, a shape or a translated description",
    "expected": "the right value, as shown", "want": "the right value, as shown",
    "shape": "a shape as Python prints it, e.g. (4, 512)", "dtype": "a dtype, e.g. float32",
    "n": "a count (a number)", "name": "a name from the code (a function, module, case or model)",
    "variable": "the name of a notebook variable, as code", "var": "the name of a notebook variable, as code",
    "exercise": "an exercise's name (itself translated)", "guess": "the learner's word answer, as typed",
    "said": "the learner's word answer, as typed", "rank": "an ordinal (a number)",
    "d_model": "the model width (a number)", "d_ff": "the hidden width (a number)",
    "": "a value filled in by position, in order",
}
PARTICLES = ["Particle after a {field}: two-form, {got}은(는) {name}이(가) {x}을(를) {x}(으)로 (chosen when shown).",
             "Keep each {field} and its format ({n:,})."]
FRAGMENT = "A fragment, put into another sentence: a phrase, no full stop."


def fields(text):
    """The {field} names a str.format template fills, in order, each once ([] where it is no template)."""
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError:
        return []
    return list(dict.fromkeys(re.split(r"[.\[]", name)[0] for name in names))


def is_fragment(text):
    """A piece of a sentence: it ends in no sentence mark (a label, a phrase put into a sentence)."""
    return text.rstrip()[-1:] not in ".?!:" and not text.rstrip().endswith(")")


def field_sources(source):
    """{template: {field: the code that fills it}} from the calls in a module's source that fill a
    string literal with keywords (`say("...{got}...", got=value)`) or by position (`say("{}, {}", a, b)`)."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for index, arg in enumerate(node.args[:3]):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "{" in arg.value:
                filled = {k.arg: ast.unparse(k.value) for k in node.keywords if k.arg}
                rest = node.args[index + 1:]
                if rest and not isinstance(rest[0], ast.Constant):
                    filled[""] = ", ".join(ast.unparse(a) for a in rest)
                found.setdefault(arg.value, {}).update(filled)
                break
    return found


def where(path):
    """Where the entries of the module at path (relative to the repository) are shown."""
    for prefix, said in WHERE.items():
        if path.startswith(prefix):
            match = re.match(r"helpers/(?:checks|demos)/nb(\d\d)_", path)
            return said.replace("{nn}", match.group(1)) if match else said
    return "a message of the course package (helpers) to the learner"


def comments(text, path, filled=None):
    """The translator's comments for one entry said by the module at path (none for a plain sentence)."""
    names = fields(text)
    fragment = is_fragment(text)
    if not names and not fragment:
        return []
    out = [f"Shown: {where(path)}."]
    for name in names:
        code = (filled or {}).get(name)
        code = code if not code or len(code) <= 60 else code[:57] + "..."   # one comment line
        holds = FIELDS.get(name) or (f"`{code}` in the code" if code else "a value the code fills in")
        out.append(f"{{{name}}}: {holds}." if name else f"{{}}: {holds}.")
    if names:
        out += PARTICLES
    if fragment:
        out.append(FRAGMENT)
    return out


def runtime_comments(text, root):
    """The comments for an entry the checks compose while running (flagged runtime): said by the first
    module of helpers whose source holds its text, as for an extracted one."""
    for path in sorted((Path(root) / "helpers").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if text in source:
            return comments(text, path.relative_to(root).as_posix(), field_sources(source).get(text))
    return comments(text, "")
