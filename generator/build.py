"""The pipeline, top to bottom: load → validate → abort on problems → evaluate → render → write.

Nothing is written until every input is valid and every page rendered; the new
``docs/`` and ``site/`` are built in staging folders and swapped in at the end.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from generator.evaluate import Results, editor_warnings, evaluate
from generator.output import plan, site_stage_for, stage_docs, swap_all
from generator.pages import generated_files, site_url_of
from generator.problems import DataError, Problem, errors
from generator.site import build_site
from generator.validate import Catalogue, load_catalogue


@dataclass(frozen=True)
class Project:
    """Where a project's parts live; every path can be overridden for fixture sites."""

    root: Path
    data: Path
    templates: Path
    docs: Path
    site: Path
    config: Path

    @classmethod
    def at(cls, root: Path, data: Path | None = None) -> "Project":
        root = root.resolve()
        return cls(
            root=root,
            data=(data or root / "data").resolve(),
            templates=root / "templates",
            docs=root / "docs",
            site=root / "site",
            config=root / "mkdocs.yml",
        )


@dataclass(frozen=True)
class Generated:
    catalogue: Catalogue
    results: Results
    files: dict[str, bytes]
    warnings: list[Problem]


def generate(project: Project) -> Generated:
    """Validate, evaluate and render in memory. Raises DataError with every problem."""
    cat, problems = load_catalogue(project.data, display_root=project.root)
    if cat is None or errors(problems):
        raise DataError(problems)
    results = evaluate(cat)
    files = generated_files(cat, results, project.templates, site_url_of(project.config))
    return Generated(cat, results, files, problems + editor_warnings(cat, results))


def build(project: Project, *, site: bool = True) -> Generated:
    """Regenerate docs/ and (unless ``site`` is False) build site/ with MkDocs, atomically."""
    gen = generate(project)
    docs_stage = stage_docs(project.docs, gen.files)
    site_stage = site_stage_for(docs_stage, project.site)
    try:
        if site:
            shutil.rmtree(site_stage, ignore_errors=True)
            build_site(project.config, docs_stage, site_stage, gen.catalogue.as_of)
        swap_all([(docs_stage, project.docs)] + ([(site_stage, project.site)] if site else []))
    finally:
        shutil.rmtree(docs_stage, ignore_errors=True)
        shutil.rmtree(site_stage, ignore_errors=True)
    return gen


def stale_files(project: Project) -> tuple[Generated, list[str]]:
    """Generated files whose committed copy differs from what the data produces now."""
    gen = generate(project)
    changed, stale, conflicts = plan(project.docs, gen.files)
    if conflicts:
        raise DataError(conflicts)
    return gen, sorted(changed + stale)
