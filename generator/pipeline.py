"""The pipeline, top to bottom: load → validate → abort on problems → evaluate → render → write.

Nothing is written until every input is valid and every page rendered; the new
``docs/`` and ``site/`` are built in staging folders and swapped in at the end, under the
project's write lock (:mod:`generator.publish.lock`). Ctrl-C is turned into
:class:`~generator.publish.swap.Interrupted`, whose message says what was written.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from generator.data.catalogue import Catalogue
from generator.data.load import ParseMemo
from generator.data.problems import DataError, Problem, errors
from generator.data.validate import load_catalogue
from generator.engine.plans import PlanMemo
from generator.engine.recommend import OptionMemo
from generator.engine.sizing import SizingMemo
from generator.pages.files import RenderMemo, generated_files
from generator.pages.messages import editor_notice
from generator.publish.lock import DEFAULT_WAIT, write_lock
from generator.publish.mkdocs_build import build_site
from generator.publish.ownership import plan
from generator.publish.safe_files import check_output_folder, remove_tree
from generator.publish.site_config import SiteSettings, read_site_settings
from generator.publish.swap import Interrupted, deferred_signals, site_stage_for, stage_docs, swap_all
from generator.results.evaluate import Results, evaluate
from generator.results.scenarios import editor_notices
from generator.results.trust import TrustMemo, calibration_trust


@dataclass(frozen=True)
class Project:
    """Where a project's parts live; every path can be overridden for fixture sites."""

    root: Path
    data: Path
    templates: Path
    docs: Path
    site: Path
    config: Path
    #: README.md, whose market table ``check`` keeps current (``gpu-guide prices table --write``)
    readme: Path
    #: the date prices are judged against (see Catalogue.build_date); the command line resolves it
    build_date: dt.date | None = None
    #: the calibration set pages name their figures' record from (docs-dev/calibration); None: no note
    calibration: Path | None = None
    #: seconds a write waits for another writer's lock (publish.lock); the command line reads the setting
    lock_wait: float = DEFAULT_WAIT

    @classmethod
    def at(
        cls, root: Path, data: Path | None = None, build_date: dt.date | None = None, lock_wait: float = DEFAULT_WAIT
    ) -> Project:
        root = root.resolve()
        return cls(
            root=root,
            data=(data or root / "data").resolve(),
            templates=root / "templates",
            docs=root / "docs",
            site=root / "site",
            config=root / "mkdocs.yml",
            readme=root / "README.md",
            build_date=build_date,
            calibration=root / "docs-dev" / "calibration",
            lock_wait=lock_wait,
        )


@dataclass(frozen=True)
class Generated:
    """One edition, in memory: the data, what the rules compute, and every generated file."""

    catalogue: Catalogue
    results: Results
    files: dict[str, bytes]
    warnings: list[Problem]
    settings: SiteSettings


class Warm:
    """What one process keeps from a generation to the next (``gpu-guide serve``): the parse of each
    data file, the engine's sizings, the calibration run and each page's render, each reused only
    while what it was made from is unchanged, so a warm generation gives the bytes a cold one gives.
    A price edit then re-parses one file, re-plans the offers and renders the pages that show them."""

    def __init__(self) -> None:
        self.parses = ParseMemo()
        self.sizing = SizingMemo()
        self.plans = PlanMemo()
        self.options = OptionMemo()
        self.trust = TrustMemo()
        self.pages = RenderMemo()


def generate(project: Project, *, production: bool = False, warm: Warm | None = None) -> Generated:
    """Validate, evaluate and render in memory. Raises DataError with every problem.

    ``warm``: reuse what an earlier generation of this process computed from unchanged inputs."""
    cat, problems = load_catalogue(
        project.data,
        display_root=project.root,
        build_date=project.build_date,
        memo=warm.parses if warm is not None else None,
    )
    settings, site_problems = read_site_settings(project.config, production=production)
    # A placeholder domain is an error in production and a notice otherwise (printed by `build`).
    problems += errors(site_problems)
    if cat is None or settings is None or errors(problems):
        raise DataError(problems)
    results = evaluate(
        cat,
        warm.sizing if warm is not None else None,
        warm.plans if warm is not None else None,
        warm.options if warm is not None else None,
    )
    trust = calibration_trust(project.calibration, cat, warm.trust if warm is not None else None)
    files = generated_files(
        cat, results, project.templates, settings.site_url, trust, warm.pages if warm is not None else None
    )
    notices = editor_notices(cat, results.scenarios, editor_notice)
    return Generated(cat, results, files, problems + notices, settings)


def build(project: Project, *, site: bool = True, production: bool = False, warm: Warm | None = None) -> Generated:
    """Regenerate docs/ and (unless ``site`` is False) build site/ with MkDocs, atomically.

    The data is read under the project's write lock, so a build never swaps in pages made
    from data that another writer (``edition``, ``serve``) changed meanwhile. Raises
    :class:`~generator.publish.swap.Interrupted` on Ctrl-C once anything may have been
    written (a plain KeyboardInterrupt before that: nothing was).
    """
    where, are, were = (
        (f"{project.docs.name}/ and {project.site.name}/", "are", "were")
        if site
        else (f"{project.docs.name}/", "is", "was")
    )
    phase = "waiting"
    try:
        with write_lock(project.root, project.lock_wait):
            # The inputs are read under the lock: `serve`'s rebuilds and `edition` take it too, so
            # what is swapped in below is what data/ holds while nobody else writes.
            gen = generate(project, production=production, warm=warm)
            phase = "staging"
            if site:
                check_output_folder(project.site)
            docs_stage = stage_docs(project.docs, gen.files)
            site_stage = site_stage_for(docs_stage, project.site)
            try:
                if site:
                    site_stage.mkdir()  # a fresh folder: never one that was there before (or a link)
                    build_site(project.config, docs_stage, site_stage, gen.catalogue.as_of, production=production)
                with deferred_signals():
                    swap_all([(docs_stage, project.docs)] + ([(site_stage, project.site)] if site else []))
                    phase = "swapped"
            finally:
                remove_tree(docs_stage)
                if site:
                    remove_tree(site_stage)
    except KeyboardInterrupt:
        if phase == "waiting":
            raise
        if phase == "staging":
            raise Interrupted(f"{where} {are} unchanged.") from None
        raise Interrupted(f"{where} {were} updated; only the clean-up was cut short.") from None
    return gen


def readme_table_stale(project: Project, cat: Catalogue) -> bool:
    """Whether README.md's market table differs from what the data gives on the build date.

    A project whose README has no table markers (or no README) has nothing to keep current."""
    from generator.pages.readme_market import block_of, market_table_markdown
    from generator.results.market_counts import market_counts

    try:
        held = block_of(project.readme.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return False
    return held is not None and held != market_table_markdown(market_counts(cat))


def stale_files(project: Project) -> tuple[Generated, list[str]]:
    """Generated files whose committed copy differs from what the data produces now."""
    gen = generate(project)
    changed, stale, conflicts = plan(project.docs, gen.files)
    if conflicts:
        raise DataError(conflicts)
    return gen, sorted(changed + stale)
