"""Where a learner stands, read from the checks' records: the exercises, their status, the
mistakes' sentences.

`python -m helpers progress` shows it (helpers.study_command); a study group's report builds on it
(helpers.study_group, then helpers.study_page):

    python -m helpers progress                      # your table: ./course-progress.jsonl
                                                    # (or notebooks/')
    python -m helpers progress --json               # the same, as data
    python -m helpers progress --merge alice.jsonl bob.jsonl   # (or a folder) the group's leader
    python -m helpers progress --merge members/ --html report.html

The exercises come from the check modules (helpers/checks/nbNN_*.py: each check names its
exercise, "Exercise 2 (...)", and the module's docstring lists the exercises, "(stretch)" marking
the stretch ones), so this works from an installed package, without the notebooks. A mistake's
sentence is found again from its id (helpers.checks.recording.mistake_id) among the sentences
the checks can say, in English or Korean; nothing the learner wrote is read.
"""

import importlib
import pkgutil
import re
import string
import sys
import unicodedata
from dataclasses import dataclass
from functools import cache

import helpers
from helpers import language
from helpers.checks import recording
from helpers.language import say


@dataclass(frozen=True)
class Exercise:
    notebook: str    # "01_matrix_multiply"
    number: int
    title: str       # the check's name for it: "Exercise 2 (a matmul from dot products)"
    stretch: bool

    @property
    def kind(self):
        return "stretch" if self.stretch else "core"


@cache
def exercises():
    """{notebook: [Exercise, ...]}, every notebook's exercises in order, from
    helpers/checks/nbNN_*.py."""
    import helpers.checks as package

    found = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not re.fullmatch(r"nb\d\d_\w+", info.name):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        doc = module.__doc__ or ""
        listed = {int(n) for n in re.findall(r"^(\d+)\. ", doc, re.M)}
        stretch = {int(n) for n in re.findall(r"^(\d+)\. \(stretch\)", doc, re.M)}
        titles = {number: sentence
                  for sentence, number in sorted(recording._exercises_of(module).items())}
        found[info.name[2:]] = [Exercise(info.name[2:], n, titles.get(n, f"Exercise {n}"),
                                         n in stretch)
                                for n in sorted(listed | set(titles))]
    return found


def _constants(code):
    """Every string constant in a code object and the functions defined inside it."""
    for const in code.co_consts:
        if isinstance(const, str):
            yield const
        elif hasattr(const, "co_consts"):
            yield from _constants(const)


def _templates(module):
    """The sentences a check module can say: its Mistake rows first, then every string in its
    code."""
    values = list(vars(module).values())
    rows = [m.message for v in values for m in getattr(v, "mistakes", None) or ()
            if hasattr(m, "message")]
    functions = [f for v in values for f in ([v] + list(vars(v).values()) if isinstance(v, type)
                                             else [v])]
    codes = [f.__code__ for f in functions if getattr(f, "__module__", None) == module.__name__
             and hasattr(f, "__code__")]
    docs = {getattr(f, "__doc__", None) for f in functions}
    # no docstrings
    found = [c for code in codes for c in _constants(code) if c not in docs and "\n" not in c]
    return rows + [v for v in values if isinstance(v, str)] + found


@cache
def _sentence_index():
    """({digest: template}, {first words: template}) over every sentence the checks can say."""
    import helpers.checks as package

    names = [f"{package.__name__}.nb{notebook}" for notebook in exercises()]
    names += [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)
              if not info.name.startswith("nb")
              and info.name not in ("language", "recording", "state")]
    exact, starts = {}, {}
    for name in names:
        try:
            module = importlib.import_module(name)
        # a package of its own (no checks in it) or a module this install lacks
        except ImportError:
            continue
        for template in _templates(module):
            exact.setdefault(recording.digest(template), template)
            found = recording.words(template)
            for n in range(1, 7):
                key = "-".join(found[:n])
                # the shortest: a frame before its uses
                if key not in starts or len(template) < len(starts[key]):
                    starts[key] = template
    return exact, starts


def check_values(notebook, number):
    """The words an exercise's check fills into its sentences itself: {name: text} (why, variable,
    call...)."""
    module = sys.modules.get(f"helpers.checks.nb{notebook}") or importlib.import_module(
        f"helpers.checks.nb{notebook}")
    for value in vars(module).values():
        exercise = getattr(value, "exercise", None)
        if isinstance(exercise, str) and recording._exercises_of(module).get(exercise) == number:
            fields = {k: v for k, v in vars(value).items() if isinstance(v, str)
                      and k != "exercise"}
            return {**fields, "call": fields.get("name", fields.get("variable", "…"))}
    return {}


def sentence(mistake, lang="en", known=None):
    """The sentence a check says for a mistake id, in `lang`: values the check knows (`known`),
    others '…'."""
    exact, starts = _sentence_index()
    mistake = str(mistake)
    slug, _, digits = mistake.rpartition("-")
    if not re.fullmatch(r"[0-9a-f]{6}", digits):   # an id without its digits: words alone
        slug, digits = mistake, ""
    template = exact.get(digits)
    words = [w for w in slug.split("-") if w]
    # reworded: the sentence that begins with its words (after a frame's). A start is 1 to 6 words
    # long,
    # so only the id's last six words can be one: the time is linear in the id's length, whatever it
    # is.
    for k in range(max(len(words) - 6, 0), max(len(words) - 2, 1)):
        template = template or starts.get("-".join(words[k:]) or "-")
    if template is None:
        return language.translate(say("a mistake this version of the course no longer names ({id})",
                                      id=shown(mistake, 60)), lang)
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    except ValueError:   # a string with a lone brace: said as it is
        fields = []
    values = {f.split(".")[0].split("[")[0]: "…" for f in fields if f}
    values.update({k: v for k, v in (known or {}).items() if k in values})
    return language.translate(say(template, *["…"] * fields.count(""), **values), lang)


def shown(text, most=80):
    """text with its control characters escaped (\\x1b, \\n), at most `most` characters: safe to
    print."""
    safe = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in str(text)[:most + 1])
    return safe if len(safe) <= most else safe[:most - 1] + "…"


def _status(records):
    """(status, tries) of one exercise from its records: done, attempted or not started."""
    tries = 0
    for entry in records:
        if entry.get("verdict") == "correct":
            return "done", tries + 1
        if entry.get("verdict") == "mistake":
            tries += 1
    return ("attempted", tries) if tries else ("not started", 0)


def _by_exercise(records):
    grouped = {}
    for entry in records:
        grouped.setdefault((entry["notebook"], entry["exercise"]), []).append(entry)
    return grouped


def _name(notebook):
    """'01_matrix_multiply' -> ('01', 'matrix multiply')."""
    number, _, name = notebook.partition("_")
    return number, name.replace("_", " ")


def table(records):
    """A learner's progress as data: per notebook started, each exercise's status and tries; the
    next one."""
    grouped, notebooks, started = (_by_exercise(records), [],
                                   {entry["notebook"] for entry in records})
    for notebook, listed in exercises().items():
        rows = []
        for ex in listed:
            status, tries = _status(grouped.get((notebook, ex.number), []))
            rows.append({"number": ex.number, "title": ex.title, "kind": ex.kind, "status": status,
                         "tries": tries})
        count = {kind: {"done": sum(r["status"] == "done" for r in rows if r["kind"] == kind),
                        "total": sum(r["kind"] == kind for r in rows)}
                 for kind in ("core", "stretch")}
        notebooks.append({"notebook": notebook, "number": _name(notebook)[0],
                          "name": _name(notebook)[1],
                          "started": notebook in started, "exercises": rows, **count})
    return {"course": helpers.__version__, "notebooks": [n for n in notebooks if n["started"]],
            "next": _next(notebooks)}


def _next(notebooks):
    """The next exercise: the first core one not done in a notebook begun, else the next notebook's
    first."""
    order = ([n for n in notebooks if n["started"]], [n for n in notebooks if not n["started"]])
    for kind in ("core", "stretch"):
        for group in order:
            for notebook in group:
                for row in notebook["exercises"]:
                    if row["kind"] == kind and row["status"] != "done":
                        return {"notebook": notebook["notebook"], "number": row["number"],
                                "title": row["title"]}
    return None


def language_of(records, asked=None):
    """The language to speak: asked, else Korean when most records come from the Korean edition."""
    if asked:
        return asked
    korean = sum(entry.get("lang") == "ko" for entry in records)
    return "ko" if records and korean * 2 > len(records) else "en"


def width(text):
    """Columns text takes in a terminal (Korean characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text, columns):
    return text + " " * max(columns - width(text), 0)


def status_words(status, tries, lang, short=False):
    """'done after 3 tries', 'attempted, 1 try', 'not started' (short: 'done', 'tried 2', '·')."""
    if short:
        found = {"done": say("done"), "attempted": say("tried {n}", n=tries)}.get(status)
        return language.translate(found, lang) if found is not None else "·"
    if status == "done":
        said = say("done at the first try") if tries == 1 else say("done after {n} tries", n=tries)
    elif status == "attempted":
        said = say("attempted, 1 try") if tries == 1 else say("attempted, {n} tries", n=tries)
    else:
        said = say("not started")
    return language.translate(said, lang)


def show_table(data, path, lang):
    """The learner's table as text."""
    t = lambda template, **values: language.translate(say(template, **values), lang)  # noqa: E731
    lines = [t("Your progress: {path} (course version {version})", path=str(path),
               version=data["course"])]
    for notebook in data["notebooks"]:
        lines += ["", t("Notebook {number} ({name})", number=notebook["number"],
                        name=notebook["name"])]
        for kind in ("core", "stretch"):
            for row in (r for r in notebook["exercises"] if r["kind"] == kind):
                title = language.translate(row["title"], lang)
                lines.append("  " + pad(t(kind), 8) + "  " + pad(title, 52) + "  "
                             + status_words(row["status"], row["tries"], lang))
        lines.append("  " + t("core: {done} of {total} done; stretch: {stretch_done} of "
                              "{stretch_total} done.",
                              done=notebook["core"]["done"], total=notebook["core"]["total"],
                              stretch_done=notebook["stretch"]["done"],
                              stretch_total=notebook["stretch"]["total"]))
    nxt = data["next"]
    lines.append("")
    lines.append(t("Next: notebook {number}, {exercise}.", number=_name(nxt["notebook"])[0],
                   exercise=language.translate(nxt["title"], lang)) if nxt
                 else t("Every exercise is done. Well done."))
    return "\n".join(lines)
