"""Every variable a page template uses (its partials included) exists on the page's typed context,
the site context every page shares, or the few names ``render_page`` adds: a template and its
context cannot drift apart silently (``StrictUndefined`` would only catch it on a branch the data
happens to reach)."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import jinja2
import pytest
from jinja2 import meta, nodes

from generator.pages import charts
from generator.pages.contexts import SiteContext
from generator.pages.plan import plan_pages
from generator.pages.render import environment
from generator.pipeline import Project, generate

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
#: What render_page and generated_files add beside the contexts.
ADDED = {"breadcrumbs", "page_title", "root"}


def used_names(env: jinja2.Environment, name: str, bound: frozenset[str] = frozenset()) -> set[str]:
    """Variables template ``name`` reads from outside, through its includes and imports; names the
    including template binds (loop variables, ``set``) count as given to the partial."""
    source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
    tree = env.parse(source)
    mine = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    # (a name set inside an ``if`` reads to jinja2.meta as undeclared: it binds it all the same)
    out = meta.find_undeclared_variables(tree) - bound - mine
    for ref in meta.find_referenced_templates(tree):
        assert ref is not None, f"{name}: a computed include cannot be checked"
        out |= used_names(env, ref, bound | mine)
    return out - set(env.globals)


@pytest.fixture(scope="module")
def planned(built_mini: Path) -> list[tuple[str, type]]:
    """(template, context type) of every page the mini fixture plans."""
    gen = generate(Project.at(built_mini))
    drawn = charts.ladder_page_charts(gen.results.ladder, gen.catalogue)
    pages = plan_pages(gen.catalogue, gen.results, gen.settings.site_url, drawn)
    return sorted({(p.template, type(p.context)) for p in pages}, key=lambda t: t[0])


def test_every_template_variable_is_on_its_context(planned: list[tuple[str, type]]) -> None:
    env = environment(TEMPLATES)
    shared = {f.name for f in fields(SiteContext)} | ADDED
    assert len(planned) >= 15  # most page kinds: the check sees the templates
    missing = {}
    for template, context in planned:
        unknown = used_names(env, f"pages/{template}") - shared - {f.name for f in fields(context)}
        if unknown:
            missing[template] = sorted(unknown)
    assert missing == {}


def test_the_variable_check_can_fail() -> None:
    """Control: a partial's variable is seen through the include, and a name the includer binds is not
    counted as missing."""
    env = jinja2.Environment(loader=jinja2.DictLoader({
        "page": "{% for row in rows %}{% include 'part' %}{% endfor %}{{ title }}",
        "part": "{{ row.name }} {{ unit }}",
    }))  # fmt: skip
    assert used_names(env, "page") == {"rows", "title", "unit"}
