"""The pages' digests (generator.pages.files.Digests), by which ``serve`` keeps a page's last render.

Each shared record (pydantic records, model pages, rankings, runtime choices) is pickled once per
generation and a page pickles the record's digest in its place; in serve the immutable ones (CARRIED)
keep their digests from one generation to the next while the same objects are in use. That must not make a digest go stale:
two pages get equal digests exactly when their plain pickles are equal, also when what changed lies
inside a shared record (a price edit changes the rankings that the model pages hold).
"""

from __future__ import annotations

import pickle
from pathlib import Path

from conftest import make_project, replace_in

from generator.data.validate import load_catalogue
from generator.engine.recommend import Option, Recommendation
from generator.engine.sizing import Sizing
from generator.pages import charts
from generator.pages.files import CARRIED, SHARED, Digests
from generator.pages.plan import plan_pages
from generator.pages.render import Page
from generator.results.evaluate import evaluate
from generator.results.model_pages import ModelPage


def pages_of(root: Path) -> dict[str, Page]:
    cat, problems = load_catalogue(root / "data", root)
    assert cat is not None, problems
    results = evaluate(cat)
    return {
        p.path: p
        for p in plan_pages(cat, results, "https://example.org/", charts.ladder_page_charts(results.ladder, cat))
    }


def holds_a_model_page(page: Page) -> bool:
    return any(isinstance(v, ModelPage) for v in vars(page.context).values())


def test_equal_digests_exactly_when_the_pages_are_equal(tmp_path: Path) -> None:
    before = pages_of(make_project(tmp_path / "a"))
    # the A100 server's monthly price (the serve_bench edit's kind): the rankings in the model pages change
    after = pages_of(
        make_project(
            tmp_path / "b", lambda d: replace_in(d / "offers.yaml", "    price: 48000\n", "    price: 48600\n")
        )
    )
    assert set(before) == set(after)
    old, new = Digests(), Digests()  # one per generation, as generated_files has
    changed = []
    for path in sorted(before):
        same_pickle = pickle.dumps(before[path], protocol=5) == pickle.dumps(after[path], protocol=5)
        same_digest = old.of(before[path]) == new.of(after[path])
        assert same_digest == same_pickle, path
        if not same_pickle:
            changed.append(path)
    assert changed and len(changed) < len(before)  # the edit reached some pages, not all
    # among them pages whose difference is inside a shared record (the model page's rankings)
    assert any(holds_a_model_page(after[p]) for p in changed), changed


def test_a_record_is_pickled_once_for_all_the_pages(tmp_path: Path) -> None:
    pages = pages_of(make_project(tmp_path))
    digests = Digests()
    keys = [digests.of(p) for p in pages.values()]
    assert None not in keys
    records = digests._known  # the memo itself is what this test checks
    assert records and all(isinstance(obj, SHARED) for obj, _ in records.values())
    # a record seen again is its kept digest, and the kept digest is the record's own
    obj, kept = next(iter(records.values()))
    assert digests.record(obj) == kept == Digests().of(obj)


def test_carried_records_keep_their_digest_from_one_generation_to_the_next(tmp_path: Path) -> None:
    # serve's RenderMemo keeps one Digests: the options and sizings (which the engine's memos keep alive
    # between edits) are pickled once, not again in every generation; rankings, which are mutable, are.
    pages = pages_of(make_project(tmp_path))
    digests = Digests()
    first = {path: digests.of(page) for path, page in pages.items()}
    digests.next_generation()
    pickled: list[object] = []
    own = digests._digest  # the memo's own pickling step, watched to see what is pickled again

    def watched(value: object) -> bytes:
        pickled.append(value)
        return own(value)

    digests._digest = watched  # type: ignore[method-assign]
    again = {path: digests.of(page) for path, page in pages.items()}
    assert again == first  # the same pages, the same digests
    assert any(isinstance(v, Recommendation) for v in pickled)  # not carried: digested again
    assert not any(isinstance(v, CARRIED) for v in pickled), "a carried record was pickled again"
    carried = [obj for obj, _ in digests._known.values() if isinstance(obj, (Option, Sizing))]
    assert carried  # the fixture's rankings hold options, so the test saw some carried
    # records no page of a generation used are not kept for the next one
    other = pages_of(make_project(tmp_path / "other"))
    digests.next_generation()
    for page in other.values():
        digests.of(page)
    digests.next_generation()
    ids = {id(obj) for obj in carried}
    assert not ids & set(digests._before), "a generation kept records it did not use"
