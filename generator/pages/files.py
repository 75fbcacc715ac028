"""The whole render stage: every generated file under ``docs/``, as ``{path: bytes}``.

``build`` writes them, ``check`` compares them with what is committed and ``diff``
compares two editions, all from this one function.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import jinja2
import pydantic

from generator.data.catalogue import Catalogue
from generator.data.records import Delivery
from generator.engine.recommend import Option, Recommendation, fallback_note, form_note
from generator.engine.sizing import Sizing
from generator.pages import calculator, charts, open_data
from generator.pages.contexts import SiteContext
from generator.pages.llms import llms_txt
from generator.pages.names import (
    BILLING_NAMES,
    CALIBRATION_GROUP_NAMES,
    CURRENCY_NAMES,
    DELIVERY_NAMES,
    DELIVERY_PHRASES,
    FIGURE_NAMES,
    FORM_NAMES,
    GPU_STATUS_NAMES,
    MARKET_NAMES,
    OPTIMIZER_NAMES,
    PRECISION_NAMES,
    PROVIDER_KIND_NAMES,
    SITE_NAME,
    SITE_SUMMARY,
    SOURCE_TIER_NAMES,
    TERM_NAMES,
    WORKLOAD_NAMES,
)
from generator.pages.plan import plan_pages
from generator.pages.render import MARKER, Page, context_fields, environment, render_page
from generator.results.evaluate import Results
from generator.results.model_pages import ModelPage, RuntimeChoice
from generator.results.trust import GroupTrust, groups_for, notes


def site_context(cat: Catalogue, trust: Mapping[str, GroupTrust] | None = None) -> SiteContext:
    return SiteContext(
        as_of=cat.as_of.isoformat(),
        build_date=cat.today.isoformat(),
        site_name=SITE_NAME,
        delivery_names=DELIVERY_NAMES,
        delivery_phrases=DELIVERY_PHRASES,
        workload_names=WORKLOAD_NAMES,
        form_names=FORM_NAMES,
        figure_names=FIGURE_NAMES,
        precision_names=PRECISION_NAMES,
        optimizer_names=OPTIMIZER_NAMES,
        delivery_enum={d.value: d for d in Delivery},
        fallback_note=fallback_note,
        form_note=form_note,
        billing_names=BILLING_NAMES,
        tier_names=SOURCE_TIER_NAMES,
        provider_names={p.id: p.name for p in cat.providers.values()},
        market_names=MARKET_NAMES,
        provider_kind_names=PROVIDER_KIND_NAMES,
        currency_names=CURRENCY_NAMES,
        status_names=GPU_STATUS_NAMES,
        term_names=TERM_NAMES,
        fresh_days=cat.rules.prices.fresh_days,
        month_hours=cat.rules.cost.hours_per_month,
        pick_billing=[BILLING_NAMES[b.value] for b in cat.rules.prices.pick_billing],
        pick_tiers=[SOURCE_TIER_NAMES[t.value] for t in cat.rules.prices.pick_tiers],
        serving_stack=cat.rules.memory.inference.runtimes[cat.rules.defaults.runtime].name,
        latency_floor=cat.rules.decision.latency_floor,
        max_concurrency=_concurrency_words(cat),
        runtime_caps=_runtime_cap_words(cat),
        layer_split_names=[r.name for r in cat.rules.memory.inference.runtimes.values() if r.layer_split],
        trust_notes=partial(notes, trust or {}),
        trust_groups=groups_for,
        calibration_names=CALIBRATION_GROUP_NAMES,
    )


def _concurrency_words(cat: Catalogue) -> str:
    """vLLM's default cap on concurrent sequences per card class (rules.yaml speed.serving)."""
    sv = cat.rules.speed.serving
    return (
        f"{sv.max_concurrency:,} 路；显存 {sv.large_card_min_gib:g} GB 及以上的卡（A100 除外）"
        f"{sv.large_card_max_concurrency:,} 路"
    )


def _runtime_cap_words(cat: Catalogue) -> dict[str, str]:
    """What caps each runtime's concurrent sequences, in words, by its display name (rules.yaml
    speed.runtimes ``concurrency``)."""
    out: dict[str, str] = {}
    for runtime, rt in cat.rules.speed.runtimes.items():
        name = cat.rules.memory.inference.runtimes[runtime].name
        if rt.concurrency == "slots":
            out[name] = (
                f"llama-server 不加 --parallel 只开 {rt.default_slots} 个槽位，本页按 --parallel N -c N×上下文 启动计算"
                f"（N 为并发数），一个上下文最多 {rt.max_slots} 条序列（LLAMA_MAX_SEQ）"
            )
        elif rt.concurrency == "batch":
            out[name] = "generate() 没有请求调度，并发就是设定的批大小"
        else:
            out[name] = f"并发上限按 {_concurrency_words(cat)}"
    return out


def _digest(value: object) -> bytes | None:
    """A digest of ``value``'s pickle, or None when it cannot be pickled (then nothing is reused).

    Equal digests mean equal pickles, and so equal values: a page whose digest matches the last
    render's renders to the same bytes. (Equal values may pickle differently; that only costs a render.)"""
    return Digests().of(value)


#: The records a generation's pages share, each pickled once per generation (:class:`Digests`): the
#: catalogue's records (pydantic models: GPUs, offers, models, rules ...), and the model pages,
#: rankings and runtime choices that the model, GPU, index and buyer pages all hold. Measured on the
#: bundled data (325 pages, 47.7 MB of plain pickles): digesting every dataclass as a record is
#: slower than no records at all (181,000 records, each its own pickle); these few make it 2.4x faster.
SHARED: tuple[type, ...] = (pydantic.BaseModel, ModelPage, Recommendation, RuntimeChoice, Option, Sizing)

#: The records whose digests :class:`RenderMemo` carries from one generation to the next while the
#: same object is still in use (``serve``'s memos keep them: the engine's options and sizings, the
#: catalogue's records of unchanged files). Only classes whose instances never change once made:
#: frozen pydantic models, frozen dataclasses of frozen parts, and options (complete when the engine
#: returns them; see :class:`~generator.engine.recommend.Option`). The bundled site's rankings hold
#: 7,700 options, most of a page's pickle, and a one-price edit keeps all but the edited GPU's, so a
#: warm generation digests only what the edit made anew. (Rankings, :class:`Recommendation`, hold a
#: list that is sorted anew each time, so they are digested again: from their options' digests.)
CARRIED: tuple[type, ...] = (pydantic.BaseModel, Option, Sizing)

#: Errors that mean "cannot be pickled": the value is then rendered, never reused.
_UNPICKLABLE = (pickle.PicklingError, TypeError, AttributeError, RecursionError)


class Digests:
    """Digests of values that share records (one generation's pages all hold the same GPUs, models,
    model pages ...): each record is pickled once, and a value
    holding it pickles the record's digest in its place, so 300 pages no longer pickle the same
    records 300 times. The digest is still of the whole value (a Merkle digest: a record's bytes hold
    its own records' digests), so equal digests still mean equal values.

    Records (:data:`SHARED`) are known by identity, so one instance serves one generation (``generated_files``), in which
    nothing changes what a record holds for the pages (rendering may fill a record's caches, whose
    contents follow from the rest of it; such a record's digest then differs in the next generation,
    which costs one render, never a stale page)."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[object, bytes]] = {}  # id -> (the record, kept alive; its digest)
        self._before: dict[int, tuple[object, bytes]] = {}  # the last generation's CARRIED records
        self._open: set[int] = set()  # records being digested (a cycle pickles inline)
        reduce = partial(_reduce_record, self)
        #: the pickler's dispatch table: every record class (:data:`SHARED` and its subclasses)
        self.table: dict[type, Any] = {kind: reduce for kind in _classes(SHARED)}
        #: the value whose digest is being taken (pickled as itself, not as its digest)
        self.top: object = None

    def next_generation(self) -> None:
        """Begin another generation: forget every record but the :data:`CARRIED` ones, whose digests
        stand while the same objects are in use (one generation's unused ones are dropped at the next)."""
        self._before = {key: kept for key, kept in self._known.items() if isinstance(kept[0], CARRIED)}
        self._known = {}

    def of(self, value: object) -> bytes | None:
        """The digest of ``value``, or None when it cannot be pickled."""
        try:
            return self._digest(value)
        except _UNPICKLABLE:
            return None

    def _digest(self, value: object) -> bytes:
        out = io.BytesIO()
        outer, self.top = self.top, value
        try:
            _Pickler(out, self).dump(value)
        finally:
            self.top = outer
        return hashlib.sha256(out.getvalue()).digest()

    def record(self, obj: object) -> bytes | None:
        """The digest standing for record ``obj`` in a value's pickle (None: pickle it in place)."""
        key = id(obj)
        kept = self._known.get(key)
        if kept is None and key in self._before:
            kept = self._known[key] = self._before.pop(key)
        if kept is not None:
            return kept[1]
        if key in self._open:
            return None
        self._open.add(key)
        try:
            digest = self._digest(obj)
        finally:
            self._open.discard(key)
        self._known[key] = (obj, digest)
        return digest


def _record(digest: bytes) -> bytes:
    """What a record's place in a digested pickle says (never called: the pickle is never loaded)."""
    return digest


def _classes(roots: tuple[type, ...]) -> list[type]:
    """``roots`` and every subclass of them defined so far."""
    seen: dict[type, None] = {}
    todo = list(roots)
    while todo:
        kind = todo.pop()
        if kind not in seen:
            seen[kind] = None
            todo.extend(kind.__subclasses__())
    return list(seen)


class _Pickler(pickle.Pickler):
    """A pickler that writes each record other than ``top`` as its digest (:class:`Digests`).

    The records' classes go in the pickler's ``dispatch_table``, which the C pickler looks up by
    exact type, so only records reach Python code and everything else (the pages' dataclasses, numbers,
    strings, containers) pickles at C speed. (A ``reducer_override`` is asked about every instance of
    every class: 290,000 Python calls per generation on the bundled site.) A record class defined
    after the table was made pickles in place: its digest is then of its plain pickle, still equal
    exactly when the values are equal."""

    def __init__(self, file: io.BytesIO, digests: Digests) -> None:
        super().__init__(file, protocol=5)
        self.dispatch_table = digests.table


def _reduce_record(digests: Digests, obj: object) -> Any:
    """How :class:`_Pickler` writes a record: its digest, or (the value being digested itself, or a
    record inside its own cycle) its plain reduction."""
    digest = None if obj is digests.top else digests.record(obj)
    return obj.__reduce_ex__(5) if digest is None else (_record, (digest,))


class RenderMemo:
    """The last render of each page by its digest, for a long-lived process (``gpu-guide serve``).

    A page is rendered again only when its own :class:`Page` (context, title, breadcrumbs...), the
    fields every page shares, or a file under templates/ changed; otherwise its last bytes stand,
    which are the bytes a render would give (rendering is a function of exactly those)."""

    def __init__(self) -> None:
        self._basis: bytes | None = None
        self._pages: dict[str, tuple[bytes, bytes]] = {}  # path -> (page digest, rendered bytes)
        #: the records' digests, kept from one generation to the next (:meth:`Digests.next_generation`)
        self.digests = Digests()
        #: the Jinja environment, whose compiled templates stand while no template changes
        self.env: jinja2.Environment | None = None
        self._sources: bytes | None = None
        #: the ladder page's charts by their inputs (they depend on no template)
        self.charts = charts.ChartMemo()

    def render(
        self, env: jinja2.Environment, page: Page, common: Mapping[str, Any], digests: Digests | None = None
    ) -> bytes:
        """:func:`render_page`, or its last bytes when nothing it reads changed; ``digests``: the
        generation's, whose records are pickled once for all its pages."""
        key = (digests or Digests()).of(page)
        kept = self._pages.get(page.path)
        if key is not None and kept is not None and kept[0] == key:
            return kept[1]
        out = render_page(env, page, common)
        if key is not None:
            self._pages[page.path] = (key, out)
        return out

    def start(self, templates: Path, common: Mapping[str, Any]) -> jinja2.Environment:
        """The environment to render with; every page and compiled template is forgotten when the
        shared fields or any file under ``templates`` changed since the last render."""
        parts = sorted(
            (p.relative_to(templates).as_posix(), p.read_bytes()) for p in templates.rglob("*") if p.is_file()
        )
        sources = _digest(parts)
        basis = _digest((sources, dict(common)))
        if basis is None or basis != self._basis:
            self._pages.clear()
        if self.env is None or sources is None or sources != self._sources:
            self.env = environment(templates)
        self._basis, self._sources = basis, sources
        return self.env


def generated_files(
    cat: Catalogue,
    results: Results,
    templates: Path,
    site_url: str,
    trust: Mapping[str, GroupTrust] | None = None,
    memo: RenderMemo | None = None,
) -> dict[str, bytes]:
    """Every generated file under docs/, as bytes; ``trust``: the calibration set's record per group
    (results.trust.calibration_trust), named next to the figures it stands behind; ``memo``: reuse the
    last render of pages that did not change (:class:`RenderMemo`, ``gpu-guide serve``)."""
    common = context_fields(site_context(cat, trust))
    env = memo.start(templates, common) if memo is not None else environment(templates)
    files: dict[str, bytes] = {}
    # for this generation's pages, which share their records (serve: with the last one's CARRIED records)
    digests = memo.digests if memo is not None else Digests()
    digests.next_generation()
    # once, for the page and the .svg files
    drawn = charts.ladder_page_charts(results.ladder, cat, memo.charts if memo is not None else None)
    pages = plan_pages(cat, results, site_url, drawn)
    for page in pages:
        root = "../" * page.path.count("/")
        fields = {**common, "root": root}
        files[page.path] = (
            memo.render(env, page, fields, digests) if memo is not None else render_page(env, page, fields)
        )
    for name, svg_text in drawn.items():
        files[f"assets/charts/{charts.CHART_FILES[name]}"] = charts.standalone(svg_text)
    files[calculator.ARCHITECTURES] = calculator.architectures_json(cat)
    files["data/gpus.json"] = open_data.gpus_json(cat)
    files["data/gpus.csv"] = open_data.gpus_csv(cat)
    files["data/offers.csv"] = open_data.offers_csv(cat)
    files["data/offers.json"] = open_data.offers_json(cat)
    files["data/providers.json"] = open_data.providers_json(cat)
    files["data/estimates.json"] = open_data.estimates_json(results)
    files["data/price_history.csv"] = open_data.history_csv(cat)
    files["data/price_history.json"] = open_data.history_json(cat)
    files["data/LICENSE.txt"] = open_data.license_text(SITE_NAME)
    files["llms.txt"] = llms_txt(SITE_NAME, SITE_SUMMARY, site_url, pages)
    files["robots.txt"] = f"# {MARKER}\nUser-agent: *\nAllow: /\nSitemap: {site_url.rstrip('/')}/sitemap.xml\n".encode()
    return files
