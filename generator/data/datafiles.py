"""The data files, each named once: :class:`DataFile`, and the table of what each holds.

Code names a file by its member, never by a string: ``DataFile.gpus`` is a ``str`` (the file's
name, ``"gpus.yaml"``, wherever text is wanted: a problem's file, a key of the loaded documents)
and ``DataFile.gpus.path`` its path from the project root (a page's inputs). :data:`DATA_FILES`
gives each file's top-level key and record model (validation, the JSON Schemas, the editor's
guide, ``diff``/``edition`` reading another commit's data); :data:`OPTIONAL_FILES` what a build
uses for a file left out; :data:`REFERENCES` every field that names an entry of another file.
``tests/test_data_files.py`` refuses a file-name literal anywhere else
in ``generator/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel

from generator.data.editorial import BuyersFile, ClaimsFile, OwnershipFile, Tolerance, TrendsFile
from generator.data.records import (
    ApiPricesFile,
    ComparisonsFile,
    EditionsFile,
    FxFile,
    GpusFile,
    ModelsFile,
    OffersFile,
    PitfallsFile,
    ProvidersFile,
    ScenariosFile,
)
from generator.data.rules import Rules


class DataFile(StrEnum):
    """A file of ``data/``, by its name."""

    gpus = "gpus.yaml"
    offers = "offers.yaml"
    providers = "providers.yaml"
    fx = "fx.yaml"
    models = "models.yaml"
    scenarios = "scenarios.yaml"
    pitfalls = "pitfalls.yaml"
    rules = "rules.yaml"
    editions = "editions.yaml"
    comparisons = "comparisons.yaml"
    claims = "claims.yaml"
    ownership = "ownership.yaml"
    buyers = "buyers.yaml"
    trends = "trends.yaml"
    api_prices = "api_prices.yaml"

    @property
    def path(self) -> str:
        """The file's path from the project root: ``data/gpus.yaml``."""
        return f"data/{self.value}"


#: file -> (key every entry list lives under, record model of the whole file), in the order the
#: editor's guide lists them
DATA_FILES: dict[DataFile, tuple[str, type[BaseModel]]] = {
    DataFile.gpus: ("gpus", GpusFile),
    DataFile.offers: ("offers", OffersFile),
    DataFile.providers: ("providers", ProvidersFile),
    DataFile.fx: ("rates", FxFile),
    DataFile.models: ("models", ModelsFile),
    DataFile.scenarios: ("scenarios", ScenariosFile),
    DataFile.pitfalls: ("pitfalls", PitfallsFile),
    DataFile.rules: ("cost", Rules),
    DataFile.editions: ("editions", EditionsFile),
    DataFile.comparisons: ("comparisons", ComparisonsFile),
    DataFile.claims: ("claims", ClaimsFile),
    DataFile.ownership: ("purchases", OwnershipFile),
    DataFile.buyers: ("buyers", BuyersFile),
    DataFile.trends: ("facts", TrendsFile),
    DataFile.api_prices: ("prices", ApiPricesFile),
}
#: Files a project may leave out; they then count as empty (ownership: no rent-or-buy table).
OPTIONAL_FILES: dict[DataFile, BaseModel | None] = {
    DataFile.editions: EditionsFile(editions=[]),
    DataFile.fx: FxFile(rates=[]),
    DataFile.comparisons: ComparisonsFile(comparisons=[]),
    DataFile.claims: ClaimsFile(tolerance=Tolerance(holds=0.15, partly=0.35), claims=[]),
    DataFile.ownership: None,
    DataFile.buyers: BuyersFile(buyers=[]),
    DataFile.trends: TrendsFile(facts=[]),
    DataFile.api_prices: ApiPricesFile(prices=[]),
}


@dataclass(frozen=True)
class Reference:
    """A field that holds the id of an entry in a data file: where it is, and which file's ids.

    ``path`` runs from the file's top; ``"*"`` is every item of a list (``("offers", "*", "gpu")``
    is each offer's ``gpu``). ``data.validate.reference_check`` walks every one on the raw
    documents; ``tests/test_data_files.py`` checks each path is a field of the file's model.
    """

    file: DataFile
    path: tuple[str, ...]
    target: DataFile

    @property
    def field(self) -> str:
        """The path in the editor's guide's notation: ``offers[].gpu``, ``pitfalls[].gpus[]``."""
        return ".".join(self.path).replace(".*", "[]")

    @property
    def target_key(self) -> str:
        """Where the ids it names live in the target file: ``gpus[].id``."""
        return f"{DATA_FILES[self.target][0]}[].id"


#: Every reference between data files, each declared once (by file, in the order fields appear).
REFERENCES: tuple[Reference, ...] = (
    Reference(DataFile.offers, ("offers", "*", "replaces"), DataFile.offers),
    Reference(DataFile.offers, ("offers", "*", "provider"), DataFile.providers),
    Reference(DataFile.offers, ("offers", "*", "gpu"), DataFile.gpus),
    Reference(DataFile.api_prices, ("prices", "*", "replaces"), DataFile.api_prices),
    Reference(DataFile.providers, ("providers", "*", "family_fabrics", "*", "gpus", "*"), DataFile.gpus),
    Reference(DataFile.comparisons, ("comparisons", "*", "a"), DataFile.gpus),
    Reference(DataFile.comparisons, ("comparisons", "*", "b"), DataFile.gpus),
    Reference(DataFile.scenarios, ("scenarios", "*", "model"), DataFile.models),
    Reference(DataFile.scenarios, ("scenarios", "*", "editor_pick", "gpu"), DataFile.gpus),
    Reference(DataFile.pitfalls, ("pitfalls", "*", "gpus", "*"), DataFile.gpus),
    Reference(DataFile.pitfalls, ("pitfalls", "*", "scenario"), DataFile.scenarios),
    Reference(DataFile.claims, ("claims", "*", "check", "gpu"), DataFile.gpus),
    Reference(DataFile.claims, ("claims", "*", "check", "versus"), DataFile.gpus),
    Reference(DataFile.claims, ("claims", "*", "check", "model"), DataFile.models),
    Reference(DataFile.claims, ("claims", "*", "check", "models", "*"), DataFile.models),
    Reference(DataFile.ownership, ("purchases", "*", "gpu"), DataFile.gpus),
    Reference(DataFile.buyers, ("buyers", "*", "article_picks", "*"), DataFile.gpus),
    Reference(DataFile.buyers, ("buyers", "*", "workloads", "*", "scenario"), DataFile.scenarios),
    Reference(DataFile.buyers, ("buyers", "*", "workloads", "*", "model"), DataFile.models),
    Reference(DataFile.rules, ("pages", "compare_reference_scenarios", "*"), DataFile.scenarios),
    Reference(DataFile.rules, ("pages", "model_pages", "inference", "load_scenario"), DataFile.scenarios),
)


def references_of(file: DataFile) -> tuple[Reference, ...]:
    """The references a file holds, in :data:`REFERENCES` order (its JSON Schema, the editor's guide)."""
    return tuple(r for r in REFERENCES if r.file == file)
