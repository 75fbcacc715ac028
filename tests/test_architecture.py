"""The layout a newcomer relies on: stages import only downward, rules are data, no clock.

Layers, lowest first: ``formats`` → ``data`` → ``engine`` → ``results`` → ``pages`` →
``publish`` → ``pipeline`` → ``review`` → ``cli``. A module may import its own layer and the
layers below, never one above (that is how cycles and hidden couplings start).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "generator"
LAYERS = ["formats", "data", "engine", "results", "pages", "publish", "pipeline", "review", "cli"]
MODULES = sorted(p for p in ROOT.rglob("*.py"))


def layer_of(module: str) -> int | None:
    """Layer index of a dotted module name under ``generator`` (None for the package root)."""
    parts = module.split(".")
    if parts[0] != "generator" or len(parts) == 1 or parts[1] in ("__init__", "__main__"):
        return None
    return LAYERS.index(parts[1])


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of every ``import generator…`` / ``from generator… import …`` in ``source``."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("generator")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("generator"):
            if node.module == "generator":
                found += [(node.lineno, f"generator.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module))
    return found


def upward_imports(module: str, source: str) -> list[str]:
    """Each import in ``source`` (the text of ``module``) of a layer above the module's own."""
    mine = layer_of(module)
    if mine is None:
        return []
    out = []
    for line, target in imports(source):
        theirs = layer_of(target)
        if theirs is None or theirs > mine:
            out.append(f"{module}:{line}: {LAYERS[mine]} may not import {target} "
                       f"({LAYERS[theirs] if theirs is not None else '?'} is above it)")  # fmt: skip
    return out


def test_every_module_belongs_to_a_layer() -> None:
    for path in MODULES:
        name = module_name(path)
        if name in ("generator", "generator.__main__"):
            continue
        assert layer_of(name) is not None, f"{name}: put it in one of {LAYERS}"


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_imports_point_down_the_pipeline(path: Path) -> None:
    assert upward_imports(module_name(path), path.read_text(encoding="utf-8")) == []


def test_the_layer_check_can_fail() -> None:
    """Control: the check above, fed an engine module that imports the page layer (directly, from the
    package root, and lazily inside a function), reports each import."""
    source = (ROOT / "engine" / "cost.py").read_text(encoding="utf-8")
    wrong = source + (
        "\nfrom generator.pages.render import Page\n"
        "from generator import publish\n"
        "def later() -> None:\n    import generator.cli.main\n"
    )
    found = upward_imports("generator.engine.cost", wrong)
    assert [f.split(": ", 1)[1].split(" (")[0] for f in found] == [
        "engine may not import generator.pages.render",
        "engine may not import generator.publish",
        "engine may not import generator.cli.main",
    ]
    assert upward_imports("generator.engine.cost", source) == []


def test_no_module_reads_the_repositorys_rules_or_the_clock() -> None:
    """Rules come from the Rules object passed in; dates are inputs (SOURCE_DATE_EPOCH, --as-of, data).

    No stage below the pipeline locates files beside its own source (``Path(__file__)``): an
    installed package, ``diff`` against an older ref and ``serve`` after an edit must all compute
    with what they were given.
    """
    clock = re.compile(
        r"date\.today\(|datetime\.now\(|datetime\.today\(|time\.time\(|utcnow\(|default_rules|RULES_PATH"
    )
    own_files = re.compile(r"Path\(__file__\)|__file__")
    for path in MODULES:
        stage = layer_of(module_name(path))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            where = f"{path.relative_to(ROOT.parent)}:{n}: {line.strip()}"
            assert not clock.search(code), where
            if stage is not None and stage <= LAYERS.index("pages"):
                assert not own_files.search(code), where


#: The one layer that prints (publish/ reports the lock's wait through the ``gpu-guide`` logger).
MAY_PRINT = {"cli"}


def prints(source: str) -> list[int]:
    """Lines of every use of ``print``: a call, or the function passed on (``say=print``)."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and n.id == "print"]


def test_only_the_command_line_prints() -> None:
    """Library layers report through returned problems, exceptions and return values (as mkdocs
    does); the command line decides what to print."""
    for path in MODULES:
        name = module_name(path)
        if name.split(".")[1:2] and name.split(".")[1] in MAY_PRINT:
            continue
        assert prints(path.read_text(encoding="utf-8")) == [], f"{path.relative_to(ROOT.parent)} prints"
    assert prints("def f() -> None:\n    print('x')\n") == [2]  # the controls
    assert prints("def f(say=print) -> None:\n    say('x')\n") == [1]


#: Modules below cli/ that touch the environment, and why: mkdocs_build sets SOURCE_DATE_EPOCH for
#: mkdocs' own build and puts back exactly what was there.
ENVIRONMENT_ALLOWED = {"generator.publish.mkdocs_build"}
READS_ENVIRONMENT = re.compile(r"os\.environ\.get\(|os\.getenv\(|os\.environ\[|environ\.get\(")


def test_only_the_command_line_reads_settings_from_the_environment() -> None:
    """Settings such as GPU_GUIDE_LOCK_WAIT are read in cli/ and passed down (Project.lock_wait)."""
    found = []
    for path in MODULES:
        name = module_name(path)
        if name.split(".")[1:2] == ["cli"] or name in ENVIRONMENT_ALLOWED:
            continue
        code = [line.split("#", 1)[0] for line in path.read_text(encoding="utf-8").splitlines()]
        found += [f"{name}:{n}" for n, line in enumerate(code, 1) if READS_ENVIRONMENT.search(line)]
    assert found == []
    assert all(READS_ENVIRONMENT.search(s) for s in ('os.environ.get("X", "")', "os.getenv('X')", 'os.environ["X"]'))
    for name in ENVIRONMENT_ALLOWED:  # an allowance for a module that no longer needs it fails
        path = next(p for p in MODULES if module_name(p) == name)
        assert READS_ENVIRONMENT.search(path.read_text(encoding="utf-8"))


#: A CJK ideograph or full-width punctuation: Chinese text, which the engines never hold.
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
ENGINES = [*sorted((ROOT / "engine").rglob("*.py")),
           *sorted((ROOT.parent / "docs" / "javascripts" / "engine").rglob("*.js"))]  # fmt: skip


def test_no_chinese_in_either_engine() -> None:
    """Reasons and exclusions are typed records; their Chinese sentences (and labels) live only in
    the message table (pages/messages*.py and its JS twin), so the two engines cannot drift in wording."""
    assert len(ENGINES) > 10
    found = [f"{p.relative_to(ROOT.parent)}:{n}" for p in ENGINES
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if CJK.search(line)]  # fmt: skip
    assert found == []
    assert CJK.search("显存不足") and CJK.search("（") and not CJK.search("GPU × 8 → 80 GiB")


def test_plan_pages_is_a_list_of_page_kinds() -> None:
    """``plan_pages`` only runs each page kind's ``plan_*`` function in order: a new kind is one
    line there and one function, and no page's logic hides in the list."""
    tree = ast.parse((ROOT / "pages" / "plan.py").read_text(encoding="utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "plan_pages")
    body = [n for n in fn.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
    assert [type(n).__name__ for n in body] == ["Assign", "For", "Return"]
    loop = body[1]
    assert isinstance(loop, ast.For) and isinstance(loop.iter, ast.Tuple)
    kinds = [getattr(e, "id", None) for e in loop.iter.elts]
    assert len(kinds) > 20 and all(k and k.startswith("plan_") for k in kinds), kinds
    assert len(set(kinds)) == len(kinds)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert set(kinds) <= defined
