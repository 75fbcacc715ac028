"""How a machine-readable price source's names map onto the catalogue (``data/imports/<source>.yaml``).

Read only by ``gpu-guide prices import``: the site build never reads these files. Each file says,
for one source (dstack's gpuhunt catalog, OpenComputePrices' CSV), which of the source's providers become which
provider of ``providers.yaml`` and in which delivery form, which of its GPU names (with the memory the
source gives) become which GPU of ``gpus.yaml``, and which names are skipped on purpose. A GPU name the
file does not list is refused at its catalog line, so a new card never slips in under a wrong id.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator

from generator.data.load import load_file
from generator.data.problems import Problem
from generator.data.records import Currency, Delivery, HttpUrl, Record, ShortText, Slug, SourceTier, Text
from generator.data.validate import text_problems, validate_document

#: the folder under data/ that holds one mapping file per source
IMPORTS_DIR = "imports"


class CatalogProvider(Record):
    """One provider of the source's catalog and what it becomes here."""

    catalog: ShortText = Field(description="The source's provider name, e.g. lambdalabs (gpuhunt: the file name).")
    provider: Slug = Field(description="Id of the provider in providers.yaml.")
    delivery: Delivery = Field(strict=False, description="How this provider hands over the instances it lists.")
    locations: list[ShortText] | None = Field(
        default=None,
        description=(
            "Import only rows of these locations (regions); leave out to import every location. "
            "A provider that lists the same price in every region needs one or two here."
        ),
    )
    skip_flags: list[ShortText] = Field(
        default_factory=list,
        description="Leave out rows carrying one of these flags (e.g. runpod-cluster: multi-node clusters, not one instance).",
    )
    note: Text | None = Field(
        default=None, description="Why the delivery form, locations or skipped flags were chosen."
    )


class GpuRule(Record):
    """One GPU name of the source (with its memory) and the catalogue GPU it is, or a deliberate skip.

    Rules are tried in file order; the first whose name, memory, provider and instance text match wins."""

    name: ShortText = Field(description="The source's GPU name, exactly, e.g. H100, A100, RTX4090.")
    memory_gb: float = Field(gt=0, le=1024, description="The memory per GPU the source gives (GB).")
    gpu: Slug | None = Field(default=None, description="Id of the GPU in gpus.yaml; leave out to skip these rows.")
    catalog: ShortText | None = Field(default=None, description="Only rows of this provider (the source's name).")
    instance_contains: ShortText | None = Field(
        default=None,
        description="Only rows whose instance name contains this text (case-insensitive), e.g. sxm or pcie.",
    )
    variant: ShortText | None = Field(
        default=None,
        description=(
            "Only rows whose GPU variant is this (case-insensitive), for a source with a variant column "
            "(OpenComputePrices' gpu_variant: SXM, PCIe, NVL)."
        ),
    )
    variant_unstated: bool = Field(
        default=False,
        description=(
            "true when the row does not say SXM or PCIe: the offer is filed under the lower-spec variant. Such a "
            "rule never matches a row whose variant column names one."
        ),
    )
    note: Text | None = Field(default=None, description="Why (required for a skip: what the card is, why not here).")

    @model_validator(mode="after")
    def _skip_says_why(self) -> GpuRule:
        if self.gpu is None and self.note is None:
            raise ValueError("a rule without gpu skips these rows; say why in note")
        return self


class ImportMap(Record):
    """The whole mapping file of one source."""

    source: ShortText = Field(description="The source's name, the --source of `gpu-guide prices import`.")
    source_tier: SourceTier = Field(strict=False, description="The tier every offer from this source gets.")
    layout: HttpUrl = Field(description="Where the source defines its columns (a file pinned to a commit).")
    currency: Currency = Field(strict=False, description="The currency of every price in the source (CNY or USD).")
    providers: list[CatalogProvider] = Field(description="The source's providers that are imported.")
    gpus: list[GpuRule] = Field(description="The source's GPU names, in the order they are matched.")

    def provider(self, catalog: str) -> CatalogProvider | None:
        """The entry for the source's provider name, if listed."""
        return next((p for p in self.providers if p.catalog == catalog), None)

    def rule(self, catalog: str, name: str, memory_gb: float, instance: str, variant: str = "") -> GpuRule | None:
        """The first rule matching a row, or None (an unknown GPU)."""
        for r in self.gpus:
            if r.name != name or r.memory_gb != memory_gb:
                continue
            if r.variant is not None and r.variant.lower() != variant.lower():
                continue
            if r.variant_unstated and variant:
                continue
            if r.catalog is not None and r.catalog != catalog:
                continue
            if r.instance_contains is not None and r.instance_contains.lower() not in instance.lower():
                continue
            return r
        return None


def map_path(data_dir: Path, source: str) -> Path:
    """``data/imports/<source>.yaml``."""
    return data_dir / IMPORTS_DIR / f"{source}.yaml"


def load_import_map(path: Path, name: str) -> tuple[ImportMap | None, list[Problem]]:
    """Load and validate one mapping file; problems at the editor's line."""
    doc, problems = load_file(path, name, root="providers")
    if doc is None:
        return None, problems
    problems += text_problems(doc)
    record, found = validate_document(doc, ImportMap)
    problems += found
    if problems or record is None:
        return None, problems
    assert isinstance(record, ImportMap)
    return record, []
