"""The gpu-guide plugin's in-memory Jinja bytecode cache (generator.publish.plugin.CompiledTemplates).

``mkdocs serve`` makes a new Jinja environment for every rebuild; the cache keeps the compiled
templates between them. It must never serve a template's old code once its source changed.
"""

from __future__ import annotations

import jinja2

from generator.publish.plugin import CompiledTemplates


def env_with(sources: dict[str, str], cache: CompiledTemplates) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.DictLoader(sources), bytecode_cache=cache)


def test_a_new_environment_reuses_the_compiled_template() -> None:
    cache = CompiledTemplates()
    assert env_with({"t.html": "a {{ x }}"}, cache).get_template("t.html").render(x=1) == "a 1"
    assert len(cache._held) == 1
    compiled = next(iter(cache._held.values()))
    # the second environment (the next rebuild) loads the held code and renders the same
    assert env_with({"t.html": "a {{ x }}"}, cache).get_template("t.html").render(x=2) == "a 2"
    assert next(iter(cache._held.values())) == compiled


def test_an_edited_template_is_compiled_again() -> None:
    cache = CompiledTemplates()
    assert env_with({"t.html": "old {{ x }}"}, cache).get_template("t.html").render(x=1) == "old 1"
    assert env_with({"t.html": "new {{ x }}"}, cache).get_template("t.html").render(x=1) == "new 1"
    assert env_with({"t.html": "old {{ x }}"}, cache).get_template("t.html").render(x=1) == "old 1"
