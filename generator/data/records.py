"""Typed records for everything an editor keeps under ``data/``.

Each class mirrors one YAML list entry. Field docstrings (``description=``) are the
editor's documentation: they feed the JSON Schemas and the editor's guide, so write
them for a person who edits YAML, not for a programmer.

Units are part of the field name wherever a number has one (``_gb``, ``_gbps`` = GB/s,
``_tflops``, ``_w``, ``_cny``). Tensor figures are always DENSE; sparse vendor headline
figures must be halved before they go in (the lint in ``generator.results.lint`` looks for
figures that look sparse).
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import (
    AnyUrl,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    UrlConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

#: Source links must be http(s); ``javascript:`` or ``file:`` never reach a page.
HttpUrl = Annotated[AnyUrl, UrlConstraints(allowed_schemes=["http", "https"], max_length=2000)]

Slug = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$",
        max_length=63,
        description="Lower-case id: letters and digits, joined by '-' or '.'.",
    ),
]
Text = Annotated[str, Field(min_length=1, max_length=4000)]
ShortText = Annotated[str, Field(min_length=1, max_length=200)]
Quote = Annotated[str, Field(min_length=1, max_length=500)]


class Record(BaseModel):
    """Base for all records: unknown fields are errors, values are not coerced.

    Enum-typed fields opt out of strict mode (``strict=False``) only so that YAML text
    like ``container`` is accepted as the enum member; every other field stays strict,
    so ``"12"`` is never read as a number and ``true`` never as 1.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# --------------------------------------------------------------------------- GPUs


class FormFactor(StrEnum):
    sxm = "sxm"
    pcie = "pcie"
    oam = "oam"
    nvl = "nvl"  # PCIe dual-slot card sold in NVLink-bridged pairs (H100 NVL)


class Vendor(StrEnum):
    nvidia = "NVIDIA"
    amd = "AMD"
    huawei = "Huawei"
    biren = "Biren"


class GpuFigure(StrEnum):
    """Names of the spec figures a source or an 'unconfirmed' mark may refer to."""

    memory_gb = "memory_gb"
    memory_type = "memory_type"
    memory_bandwidth_gbps = "memory_bandwidth_gbps"
    fp32_tflops = "fp32_tflops"
    fp64_tflops = "fp64_tflops"
    fp16_tflops_dense = "fp16_tflops_dense"
    bf16_tflops_dense = "bf16_tflops_dense"
    fp8_tflops_dense = "fp8_tflops_dense"
    int8_tops_dense = "int8_tops_dense"
    tdp_w = "tdp_w"
    interconnect = "interconnect"
    interconnect_gbps = "interconnect_gbps"
    pcie_gen = "pcie_gen"
    release_year = "release_year"
    compute_capability = "compute_capability"
    topology = "topology"
    peer_to_peer = "peer_to_peer"


class LinkTopology(StrEnum):
    """How the scale-up links join the cards of one server (null ``interconnect``: none, PCIe only)."""

    nvswitch = "nvswitch"  # every card through NVSwitch chips: any two cards at the full per-card bandwidth (HGX 8-GPU)
    full_mesh = "full_mesh"  # one direct link between every pair of cards, no switch (MI300X platform, 910B board)
    hybrid_cube_mesh = "hybrid_cube_mesh"  # DGX-1: each card linked to 4 of the other 7, not every pair directly
    bridged_pairs = "bridged_pairs"  # PCIe cards joined two by two by a bridge; the pairs talk over PCIe


#: A figure name as YAML text; enum members are matched by value (see Record).
Figure = Annotated[GpuFigure, Strict(False)]


class GpuStatusKind(StrEnum):
    """What happened to a product, as a dated source states it."""

    export_restricted = "export_restricted"  # selling it into China needs an export licence or is banned
    discontinued = "discontinued"  # no longer made (production ended or halted)
    sold_out = "sold_out"  # no longer sold new


class GpuStatus(Record):
    """A dated change in whether the card can be bought, with its source's own words."""

    kind: GpuStatusKind = Field(strict=False, description="export_restricted, discontinued or sold_out.")
    since: dt.date = Field(description="Date the source gives for it, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where it is stated (a report or the vendor's filing).")
    quote: Quote = Field(description="The source's own words, copied exactly.")
    note: Text | None = Field(
        default=None, description="What a buyer should know (Chinese), e.g. that it is reported, not confirmed."
    )


class Gpu(Record):
    """One GPU SKU as it is rented (a memory variant is its own entry)."""

    id: Slug = Field(description="Stable id used in URLs and by offers, e.g. h100-sxm-80g.")
    name: ShortText = Field(description="Display name, e.g. 'H100 80GB SXM'.")
    vendor: Vendor = Field(strict=False, description="Chip vendor.")
    architecture: ShortText = Field(description="Architecture name, e.g. Hopper.")
    form_factor: FormFactor = Field(strict=False, description="sxm, pcie, oam or nvl (bridged PCIe pair).")
    compute_capability: float | None = Field(
        default=None,
        ge=1,
        le=20,
        description="NVIDIA CUDA compute capability (8.9 for sm_89); required for NVIDIA cards, null for others.",
    )
    release_year: int = Field(ge=2015, le=2035, description="Year the SKU shipped.")
    domestic: bool = Field(description="true for a Chinese-made (国产) accelerator.")
    memory_gb: float = Field(gt=0, le=1024, description="Memory per card as the datasheet states it (GB).")
    memory_type: ShortText = Field(description="Memory technology, e.g. HBM3, GDDR6X.")
    memory_bandwidth_gbps: float = Field(gt=0, le=20000, description="Memory bandwidth in GB/s.")
    fp32_tflops: float | None = Field(gt=0, le=1000, description="Non-tensor FP32 TFLOPS; null if not published.")
    fp64_tflops: float | None = Field(ge=0, le=1000, description="Non-tensor FP64 TFLOPS; null if not published.")
    fp16_tflops_dense: float | None = Field(
        gt=0,
        le=10000,
        description="Dense FP16 tensor TFLOPS (FP32 accumulate where the datasheet distinguishes).",
    )
    bf16_tflops_dense: float | None = Field(gt=0, le=10000, description="Dense BF16 tensor TFLOPS; null if none.")
    fp8_tflops_dense: float | None = Field(gt=0, le=20000, description="Dense FP8 tensor TFLOPS; null if none.")
    int8_tops_dense: float | None = Field(gt=0, le=20000, description="Dense INT8 tensor TOPS; null if none.")
    tdp_w: int = Field(
        gt=0,
        le=2000,
        description="Board power in watts (the maximum configurable TDP).",
    )
    interconnect: ShortText | None = Field(
        description="Scale-up link between cards, e.g. 'NVLink 4'; null for PCIe only."
    )
    interconnect_gbps: float | None = Field(
        gt=0,
        le=10000,
        description="Total scale-up bandwidth per card in GB/s (both directions); null if none.",
    )
    topology: LinkTopology | None = Field(
        default=None,
        strict=False,
        description=(
            "How the scale-up links join the cards of one server: nvswitch, full_mesh, hybrid_cube_mesh (DGX-1) "
            "or bridged_pairs (PCIe cards); required with an interconnect, null without one. Its source goes in "
            "field_sources.topology where the datasheet does not state it."
        ),
    )
    pcie_gen: int = Field(ge=3, le=6, description="PCIe generation of the host link.")
    peer_to_peer: bool | None = Field(
        default=None,
        description=(
            "false where the stock driver gives the cards no GPU peer-to-peer over PCIe (GeForce 4090/5090): "
            "tensor-parallel all-reduces then go through host memory (rules.yaml speed.decode.no_peer_to_peer). "
            "Its source goes in field_sources.peer_to_peer; null: not stated (peer-to-peer assumed)."
        ),
    )
    source: HttpUrl = Field(description="Datasheet URL for the figures.")
    field_sources: dict[Figure, HttpUrl] = Field(
        strict=False,
        default_factory=dict,
        description="Per-figure sources where a figure comes from elsewhere.",
    )
    unconfirmed: list[Figure] = Field(
        strict=False,
        default_factory=list,
        description="Figures no vendor datasheet confirms; the page marks them.",
    )
    notes: Text | None = Field(default=None, description="Short editor's note shown on the GPU page.")
    status: list[GpuStatus] = Field(
        default_factory=list,
        description="Dated export restrictions, end of production or sell-out, each with its source; shown on the page.",
    )

    @model_validator(mode="after")
    def _capability_for_nvidia(self) -> Gpu:
        if (self.vendor is Vendor.nvidia) != (self.compute_capability is not None):
            raise ValueError(
                "compute_capability is required for NVIDIA cards (NVIDIA's CUDA GPUs table) and must be null for others"
            )
        return self

    @model_validator(mode="after")
    def _topology_with_link(self) -> Gpu:
        if (self.interconnect is None) != (self.topology is None):
            raise ValueError("topology is required with an interconnect and must be null without one")
        bridged = self.form_factor in (FormFactor.pcie, FormFactor.nvl)
        if self.topology is not None and bridged != (self.topology is LinkTopology.bridged_pairs):
            raise ValueError("PCIe and NVL cards link as bridged_pairs; SXM and OAM modules never do")
        return self

    @property
    def tensor_tflops(self) -> float:
        """Dense 16-bit tensor TFLOPS used for ranking: BF16, else FP16."""
        return self.bf16_tflops_dense or self.fp16_tflops_dense or 0.0

    @property
    def unconfirmed_names(self) -> frozenset[str]:
        """Names of the figures marked unconfirmed (templates test membership by name)."""
        return frozenset(f.value for f in self.unconfirmed)

    @property
    def has_nvlink_class_link(self) -> bool:
        """True when the cards of a server talk over a dedicated scale-up link (NVLink, Infinity Fabric,
        HCCS...) beyond bridged pairs: an NVSwitch, a full mesh or DGX-1's hybrid cube-mesh."""
        return self.topology is not None and self.topology is not LinkTopology.bridged_pairs


# --------------------------------------------------------------------------- offers


class Delivery(StrEnum):
    """How the cards are handed over."""

    container = "container"  # a container on a shared host (GPU passed through)
    vm = "vm"  # a cloud GPU virtual machine (1 card up to a whole 8-card server)
    bare_metal = "bare_metal"  # a whole physical server
    unspecified = "unspecified"  # the source does not say (market surveys, some price lists)


class Billing(StrEnum):
    """The billing tier a price belongs to."""

    on_demand = "on_demand"  # pay as you go, by the hour or second
    daily = "daily"
    monthly = "monthly"
    spot = "spot"  # preemptible: may be taken back at any time
    reserved = "reserved"  # a commitment of months or years


class PriceUnit(StrEnum):
    hour = "hour"
    day = "day"
    month = "month"
    year = "year"


class Currency(StrEnum):
    cny = "CNY"
    usd = "USD"


class PricePer(StrEnum):
    """What one price buys: the whole instance, or one of its cards."""

    instance = "instance"
    card = "card"


class SourceTier(StrEnum):
    """How close a price's source is to the provider that sells at it (first-hand first)."""

    provider_page = "provider_page"  # the provider's own price page
    provider_api = "provider_api"  # the provider's own pricing API or machine-readable catalogue
    provider_doc = "provider_doc"  # a provider's document, article or announcement
    aggregator = "aggregator"  # a third-party aggregator, price tracker, dataset or market report
    article = "article"  # a third party's article, research note, blog post or bill


#: the tiers that are the provider's own price list
FIRST_HAND_TIERS = frozenset({SourceTier.provider_page, SourceTier.provider_api})


class Offer(Record):
    """A rental price seen on a platform or in a market survey, with its source's own words."""

    id: Slug = Field(description="Stable id of this offer.")
    provider: Slug = Field(description="Id of the provider in providers.yaml.")
    gpu: Slug = Field(description="Id of the GPU in gpus.yaml.")
    cards: int = Field(ge=1, le=64, description="Cards in one rented instance.")
    per: PricePer = Field(
        strict=False,
        default=PricePer.instance,
        description=(
            "instance (default): the price is for the whole instance of `cards` cards; card: the source quotes "
            "the price of one card of that instance. Enter the price as the source prints it; never multiply."
        ),
    )
    delivery: Delivery = Field(
        strict=False,
        description="container, vm (cloud GPU server), bare_metal, or unspecified (the source does not say).",
    )
    billing: Billing = Field(strict=False, description="on_demand, daily, monthly, spot or reserved.")
    unit: PriceUnit = Field(strict=False, description="What the price buys: an hour, day, month or year.")
    price: float | None = Field(default=None, gt=0, le=100_000_000, description="The price, in `currency`.")
    price_low: float | None = Field(default=None, gt=0, le=100_000_000, description="Low end of a quoted range.")
    price_high: float | None = Field(default=None, gt=0, le=100_000_000, description="High end of a quoted range.")
    currency: Currency = Field(strict=False, description="CNY or USD, as the source quotes it; never convert.")
    vcpu: int | None = Field(default=None, ge=1, le=4096, description="vCPUs of the instance, where published.")
    ram_gb: float | None = Field(default=None, gt=0, le=100_000, description="RAM of the instance in GB.")
    disk_gb: float | None = Field(default=None, gt=0, le=1_000_000, description="Disk included, GB.")
    region: ShortText | None = Field(default=None, description="Region or city, where published.")
    as_of: dt.date = Field(description="Date the source gives for the price, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where the price was seen: a page a reader can open.")
    source_tier: SourceTier = Field(
        strict=False,
        description=(
            "Who published the source: provider_page or provider_api (the provider's own price page or pricing "
            "API), provider_doc (a provider's document or announcement), aggregator (a third-party tracker, "
            "dataset or market report), article (a third party's article, note or bill)."
        ),
    )
    quote: Quote = Field(description="The source's own words for the price, copied exactly (for review).")
    promo: bool = Field(default=False, description="true for a limited-time promotional price (活动价).")
    variant_unstated: bool = Field(
        default=False,
        description=(
            "true when the source names the chip and memory but not the variant (SXM, PCIe or NVL): the offer "
            "is filed under the catalogue's lowest-spec variant and never priced for NVLink training."
        ),
    )
    replaces: Slug | None = Field(
        default=None,
        description=(
            "Id of an older offer of the same product (same provider and GPU) that this newer price supersedes; "
            "the older one becomes history."
        ),
    )
    note: Text | None = Field(default=None, description="Anything a reader should know about this price.")
    shape_note: Text | None = Field(
        default=None,
        description=(
            "Why this instance's per-card price is above a smaller instance's of the same provider, GPU and billing "
            "(once checked against the source); `gpu-guide check` then stops flagging it."
        ),
    )
    outlier_note: Text | None = Field(
        default=None,
        description=(
            "Why this price is far (over 3x) from the median of the same GPU and billing tier, once checked against "
            "the source (e.g. a public cloud's list price); `gpu-guide check` then stops flagging it."
        ),
    )

    @model_validator(mode="after")
    def _one_price_form(self) -> Offer:
        single = self.price is not None
        ranged = self.price_low is not None or self.price_high is not None
        if single and ranged:
            raise ValueError("give either price or price_low/price_high, not both")
        if not single and not ranged:
            raise ValueError("no price: set price, or price_low and price_high for a range")
        if ranged and (self.price_low is None or self.price_high is None):
            raise ValueError("a price range needs both price_low and price_high")
        if ranged and self.price_low > self.price_high:  # type: ignore[operator]
            raise ValueError(f"price_low ({self.price_low:g}) is above price_high ({self.price_high:g}); swap them")
        if self.per is PricePer.card and self.cards == 1:
            raise ValueError("per: card is for one card of a multi-card instance; with cards: 1 leave per out")
        return self

    @property
    def price_mid(self) -> float:
        """The single price, or the middle of the range (in ``currency``)."""
        if self.price is not None:
            return self.price
        return (self.price_low + self.price_high) / 2  # type: ignore[operator]

    @property
    def ends(self) -> tuple[float, float]:
        """Low and high end of the price (the same number twice for a single price)."""
        if self.price is not None:
            return self.price, self.price
        return self.price_low, self.price_high  # type: ignore[return-value]


# --------------------------------------------------------------------------- providers


class Market(StrEnum):
    cn = "cn"
    intl = "intl"


class ProviderKind(StrEnum):
    marketplace = "marketplace"  # many hosts' machines on one platform (AutoDL, Vast.ai)
    cloud = "cloud"  # a cloud provider's own GPU servers
    bare_metal = "bare_metal"  # whole servers by the month
    market_survey = "market_survey"  # a survey or news report of market prices, not a seller


class ExtraItem(StrEnum):
    disk = "disk"
    egress = "egress"
    public_ip = "public_ip"
    other = "other"


class ExtraUnit(StrEnum):
    gb_day = "gb_day"
    gb_month = "gb_month"
    gb = "gb"
    month = "month"
    hour = "hour"


class ExtraState(StrEnum):
    """The instance state a storage price applies to, where the provider prices them apart."""

    running = "running"  # while the instance runs
    stopped = "stopped"  # while it is stopped (not released) and keeps its disk


class Extra(Record):
    """Something a provider charges besides the card: disk, traffic, a public IP."""

    item: ExtraItem = Field(strict=False, description="disk, egress, public_ip or other.")
    price: float = Field(ge=0, le=1_000_000, description="The price, in `currency`, per `unit`.")
    currency: Currency = Field(strict=False, description="CNY or USD, as the source quotes it.")
    unit: ExtraUnit = Field(
        strict=False, description="gb_day, gb_month (per GB per day or month), gb (per GB), month or hour."
    )
    as_of: dt.date = Field(description="Date the source gives, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where the price was seen.")
    quote: Quote = Field(description="The source's own words for the price.")
    state: ExtraState | None = Field(
        default=None,
        strict=False,
        description=(
            "running or stopped: the instance state this price applies to, where the provider prices a disk "
            "differently while the instance is stopped (RunPod's volume disk); leave out when it is the same."
        ),
    )
    note: Text | None = Field(default=None, description="What exactly is charged (Chinese).")


class NodeShape(Record):
    """A GPU a provider rents only as whole multi-card nodes (e.g. 8-GPU HGX instances), with the source
    that shows it."""

    gpu: Slug = Field(description="Id of the GPU in gpus.yaml.")
    cards: int = Field(ge=2, le=64, description="Cards in the smallest instance the provider rents.")
    source: HttpUrl = Field(description="The provider's page or document that shows the instance shapes.")
    quote: Quote = Field(description="The source's own words for the shape.")


class FabricKind(StrEnum):
    """The cross-host network a provider sells between its GPU servers for one job."""

    none = "none"  # stated: no network between hosts for one job
    infiniband = "infiniband"
    roce = "roce"
    efa = "efa"  # AWS Elastic Fabric Adapter (SRD over AWS's own network)


class Fabric(Record):
    """A cross-host fabric a provider sells with its multi-GPU servers: what lets one training job
    (or one model copy) span several nodes. Without one (or ``none``), plans stay inside one server."""

    kind: FabricKind = Field(strict=False, description="none, infiniband, roce or efa.")
    gbps_per_gpu: float | None = Field(
        default=None, gt=0, le=10_000, description="Cross-host bandwidth per GPU in Gbit/s, where the source says."
    )
    source: HttpUrl = Field(description="The provider's page that states the fabric.")
    quote: Quote = Field(description="The source's own words for the fabric.")

    @property
    def spans_hosts(self) -> bool:
        """Whether one job may span this provider's servers."""
        return self.kind is not FabricKind.none


class FamilyFabric(Fabric):
    """The fabric of one instance family where it differs from the provider's ``fabric`` (AWS: P4d has
    400 Gbit/s of EFA per 8-GPU instance, P5 3,200). Offers carry no instance type, so the family is
    named by the GPUs its offers carry."""

    family: ShortText = Field(description="The provider's name for the instance family, e.g. 'P4d / P4de'.")
    gpus: list[Slug] = Field(min_length=1, description="gpus.yaml ids of the family's offers (each in one family).")


class BillingIncrement(StrEnum):
    """The smallest unit an on-demand instance is billed in."""

    second = "second"
    minute = "minute"
    hour = "hour"
    day = "day"


class StoppedBilling(StrEnum):
    """What a stopped (shut-down, not released) instance still costs."""

    nothing = "nothing"  # nothing at all
    storage = "storage"  # only its disks and images
    instance = "instance"  # the whole instance, as if running


class IncrementTerm(Record):
    """The provider's billing increment for on-demand instances, with its source."""

    unit: BillingIncrement = Field(strict=False, description="second, minute, hour or day.")
    as_of: dt.date = Field(description="Date the source gives, YYYY-MM-DD.")
    source: HttpUrl = Field(description="The provider's billing page or document.")
    quote: Quote = Field(description="The source's own words.")


class StoppedTerm(Record):
    """What a stopped instance still bills, with its source."""

    bills: StoppedBilling = Field(strict=False, description="nothing, storage (disks only) or instance.")
    as_of: dt.date = Field(description="Date the source gives, YYYY-MM-DD.")
    source: HttpUrl = Field(description="The provider's billing page or document.")
    quote: Quote = Field(description="The source's own words.")


class TaxTerm(Record):
    """Whether the listed prices include tax (含税), with its source."""

    included: bool = Field(description="true when the listed prices include tax (含税).")
    invoice: ShortText | None = Field(default=None, description="Invoice type where stated, e.g. 增值税专用发票 6%.")
    as_of: dt.date = Field(description="Date the source gives, YYYY-MM-DD.")
    source: HttpUrl = Field(description="The provider's billing page or document.")
    quote: Quote = Field(description="The source's own words.")


class Terms(Record):
    """How a provider bills besides its prices; a term left out is unknown (the cost model's assumption holds)."""

    increment: IncrementTerm | None = Field(default=None, description="The on-demand billing increment.")
    stopped: StoppedTerm | None = Field(default=None, description="What a stopped instance still bills.")
    tax: TaxTerm | None = Field(default=None, description="Whether prices include tax, and the invoice.")


class Provider(Record):
    """A platform, cloud or survey that prices appear from."""

    id: Slug = Field(description="Stable id, used by offers and in the page URL.")
    name: ShortText = Field(description="Display name, e.g. AutoDL, 阿里云.")
    market: Market = Field(strict=False, description="cn (Chinese market, prices in yuan) or intl.")
    kind: ProviderKind = Field(
        strict=False, description="marketplace, cloud, bare_metal (monthly servers) or market_survey."
    )
    url: HttpUrl = Field(description="The provider's home page.")
    extras: list[Extra] = Field(default_factory=list, description="Charges besides the card, each with a source.")
    node_only: list[NodeShape] = Field(
        default_factory=list,
        description=(
            "GPUs this provider rents only as whole nodes of `cards` cards; an offer of such a GPU with fewer cards "
            "is refused (a per-GPU price of a node is `cards: 8` with `per: card`)."
        ),
    )
    fabric: Fabric | None = Field(
        default=None,
        description="The cross-host fabric the provider sells between nodes (none, InfiniBand, RoCE); unset: unknown.",
    )
    family_fabrics: list[FamilyFabric] = Field(
        default_factory=list,
        description=(
            "Fabrics of instance families that differ from `fabric` (another bandwidth per GPU or kind), "
            "each with the GPUs of its offers and the provider's own instance-type page as source."
        ),
    )
    terms: Terms | None = Field(
        default=None,
        description="Billing increment, stopped-instance billing and tax, each with its source (leave out what is unknown).",
    )
    note: Text | None = Field(default=None, description="How this provider bills, what to watch for (Chinese).")

    @model_validator(mode="after")
    def _one_family_per_gpu(self) -> Provider:
        seen = [g for f in self.family_fabrics for g in f.gpus]
        twice = sorted({g for g in seen if seen.count(g) > 1})
        if twice:
            raise ValueError(f"family_fabrics: {', '.join(twice)} in more than one family")
        return self

    def fabric_for(self, gpu: str) -> Fabric | None:
        """The fabric between this provider's servers of ``gpu``: its family's where one lists it, else ``fabric``."""
        return next((f for f in self.family_fabrics if gpu in f.gpus), self.fabric)


# --------------------------------------------------------------------------- exchange rates


class FxRate(Record):
    """A dated exchange rate: how many yuan one unit of `currency` buys."""

    currency: Currency = Field(strict=False, description="The foreign currency, e.g. USD.")
    cny_per_unit: float = Field(gt=0, le=1000, description="Yuan per one unit of the currency.")
    as_of: dt.date = Field(description="Date of the rate, YYYY-MM-DD.")
    source: HttpUrl = Field(description="Where the rate is published.")
    quote: Quote = Field(description="The source's own words for the rate.")
    note: Text | None = Field(default=None, description="Which rate this is (e.g. 中间价).")


# --------------------------------------------------------------------------- searched comparisons


class SearchedPair(Record):
    """A GPU pair people search for; it gets a comparison page besides the computed ones."""

    a: Slug = Field(description="Id of one GPU in gpus.yaml.")
    b: Slug = Field(description="Id of the other GPU.")
    query: ShortText = Field(description="What people type, e.g. 'A100 和 4090 哪个好'.")


# --------------------------------------------------------------------------- models


class ModelKind(StrEnum):
    llm = "llm"
    diffusion = "diffusion"
    video = "video"  # text-to-video diffusion transformers (Wan 2.1 T2V): generator/engine/video.py


class ComponentRole(StrEnum):
    """What one part of an image-generation pipeline does."""

    unet = "unet"  # the denoiser, a UNet (Stable Diffusion 1.x/2.x, SDXL)
    transformer = "transformer"  # the denoiser, a diffusion transformer (SD3, FLUX)
    text_encoder = "text_encoder"
    vae = "vae"  # decodes latents into pixels

    @property
    def denoiser(self) -> bool:
        return self in (ComponentRole.unet, ComponentRole.transformer)


class ModelComponent(Record):
    """One part of an image-generation pipeline, with its own parameter count."""

    role: ComponentRole = Field(strict=False, description="unet or transformer (the denoiser), text_encoder or vae.")
    name: ShortText = Field(description="Display name, e.g. 'OpenCLIP ViT-bigG text encoder'.")
    params: int = Field(ge=1, le=10**13, description="Parameters of this component (exact count where known).")
    fp32_decode_in_fp16: bool = Field(
        default=False,
        description="VAE only: the pipeline upcasts it to fp32 for decoding when it runs in fp16 "
        "(diffusers force_upcast, as for the SDXL VAE).",
    )
    fp32_params_in_fp16: int = Field(
        default=0,
        ge=0,
        le=10**13,
        description="Parameters the library keeps in fp32 when the rest runs in fp16 "
        "(transformers T5: _keep_in_fp32_modules = ['wo']).",
    )
    source: HttpUrl = Field(description="Where the parameter count comes from (model files, paper or card).")
    note: Text | None = Field(default=None, description="How the count was read, if not stated by the source.")


class DeploymentLoad(Record):
    """The load a deployment guide states its plan for: the context it serves (and the concurrency,
    where the guide says one). The page sizes the plan at it instead of the page's own load."""

    context: int = Field(ge=1, le=2**24, description="Tokens per sequence the source states (e.g. 128k seqlen).")
    concurrency: int | None = Field(
        default=None, ge=1, le=4096, description="Concurrent sequences the source states; None: one sequence."
    )
    source: HttpUrl = Field(description="The deployment guide that states the load.")
    quote: Quote = Field(description="The guide's own words for the load.")


class DeploymentPlan(Record):
    """A way people serve a model (a card and a weight format); the engine sizes and prices it."""

    gpu: Slug = Field(description="GPU id from gpus.yaml.")
    precision: Precision = Field(strict=False, description="Weight format the plan serves (fp8, int8, int4 …).")
    label: ShortText = Field(description="The plan as people name it, e.g. 8 × H20 96GB（满血 FP8）.")
    note: Text | None = Field(default=None, description="Why people choose it (what the engine's figures do not say).")
    cards: int | None = Field(
        default=None,
        ge=1,
        le=16384,
        description="The card count the plan is published with (its label); the page shows where the engine "
        "sizes another count. Never edited to agree with the engine.",
    )
    load: DeploymentLoad | None = Field(
        default=None, description="The load the source states for this plan; None: the page's own serving load."
    )


class ModelRelease(Record):
    """A published build of a language model's weights in another serving format (an FP8 or AWQ/GPTQ INT4
    checkpoint): the model gets an inference page in that format (``models/<id>-inference-<format>.md``)."""

    precision: Precision = Field(strict=False, description="The build's weight format (fp8, int8, int4 …).")
    name: ShortText = Field(description="The checkpoint as published, e.g. Qwen/Qwen3-32B-FP8.")
    source: HttpUrl = Field(description="The checkpoint's page.")
    note: Text | None = Field(default=None, description="What the build is (who made it, which variant).")
    file_gb: float | None = Field(
        default=None,
        gt=0,
        le=100000,
        description="The weights' size on disk as the source page lists it, GB (10^9 bytes; every file of a "
        "split build together); absent where the source states none. The tests check the engine's weights "
        "against it.",
    )


class StatedFigure(Record):
    """A figure the model's publisher states (its model card), shown beside the count the site reads."""

    value_b: float = Field(gt=0, le=10000, description="The figure, in billions of parameters.")
    source: HttpUrl = Field(description="Where the publisher states it.")
    quote: ShortText = Field(description="The sentence or table row that states it.")
    basis: ShortText = Field(description="What the figure counts, in Chinese (shown on the pages).")


class OpenModel(Record):
    """An open-weights model whose size drives the memory estimate."""

    id: Slug = Field(description="Stable id, e.g. qwen2.5-7b.")
    name: ShortText = Field(description="Display name.")
    kind: ModelKind = Field(
        strict=False,
        default=ModelKind.llm,
        description="llm, diffusion (image generation) or video (text-to-video; layers, hidden, heads and "
        "intermediate are the video DiT's num_layers, dim, num_heads and ffn_dim).",
    )
    params_b: float = Field(
        gt=0,
        le=10000,
        description="Total parameters in billions (all experts for MoE).",
    )
    active_params_b: float | None = Field(default=None, gt=0, description="Active parameters per token (MoE only).")
    active_params_stated: StatedFigure | None = Field(
        default=None,
        description="MoE: the active-parameter figure the model card states, where it counts differently from "
        "active_params_b (e.g. without the input-embedding lookup); the pages show it with its basis.",
    )
    layers: int | None = Field(default=None, ge=1, le=1000, description="Transformer blocks.")
    hidden: int | None = Field(default=None, ge=64, le=100000, description="Hidden size.")
    heads: int | None = Field(default=None, ge=1, le=1024, description="Attention heads.")
    kv_heads: int | None = Field(default=None, ge=1, le=1024, description="Key/value heads (GQA).")
    head_dim: int | None = Field(
        default=None, ge=8, le=1024, validate_default=True, description="Per-head size if not hidden/heads."
    )
    intermediate: int | None = Field(default=None, ge=64, le=1000000, description="MLP intermediate size.")
    vocab: int | None = Field(default=None, ge=256, le=1000000, description="Vocabulary size.")
    experts: int | None = Field(default=None, ge=2, le=1024, description="Routed experts per MoE layer.")
    experts_per_token: int | None = Field(default=None, ge=1, le=64, description="Experts each token uses.")
    tied_embeddings: bool = Field(default=False, description="true if input and output embeddings are shared.")
    kv_lora_rank: int | None = Field(
        default=None,
        ge=1,
        le=65536,
        description="Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): config.json kv_lora_rank, the latent "
        "each token caches per layer instead of K and V.",
    )
    qk_rope_head_dim: int | None = Field(
        default=None,
        ge=0,
        le=4096,
        description="With kv_lora_rank: config.json qk_rope_head_dim, the rotary key part cached beside the latent.",
    )
    sliding_window: int | None = Field(
        default=None,
        ge=1,
        le=10_000_000,
        description="Tokens a windowed layer attends to: sliding_window (Mistral, Gemma 2/3, gpt-oss) or "
        "attention_chunk_size (Llama 4 chunked attention).",
    )
    sliding_window_layers: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="With sliding_window: how many layers use the window (the rest see the whole context), "
        "counted from config.json layer_types or the family's layer pattern.",
    )
    linear_attention_layers: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Hybrid models (Qwen3-Next): layers with linear attention, which keep a fixed state per "
        "sequence instead of a KV cache.",
    )
    linear_state_values: int | None = Field(
        default=None,
        ge=1,
        le=1_000_000_000,
        description="With linear_attention_layers: values of one sequence's state in one such layer "
        "(Gated DeltaNet: value heads × key dim × value dim, plus the convolution's kernel−1 inputs).",
    )
    dense_layers: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="MoE: leading layers with a dense MLP instead of experts (config.json first_k_dense_replace).",
    )
    shared_experts: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="MoE: experts every token passes through besides the routed ones, in units of one expert's "
        "width (n_shared_experts; Qwen: shared_expert_intermediate_size / moe_intermediate_size).",
    )
    max_context: int | None = Field(default=None, ge=512, description="Longest context the model supports.")
    pipeline_precision: Precision | None = Field(
        default=None,
        strict=False,
        description="Diffusion models: the dtype the model card runs the pipeline in (SDXL fp16, FLUX bf16); "
        "model pages size the model with it.",
    )
    checkpoint_precision: Precision | None = Field(
        default=None,
        strict=False,
        description="Language models released in a low precision: the dtype of the published weights (fp8 for "
        "DeepSeek-V3/R1's block-scaled FP8 checkpoint); the model's inference page serves it so.",
    )
    releases: list[ModelRelease] = Field(
        default_factory=list,
        description="Language models: published builds in other serving formats; each format the serving "
        "runtime's support table runs gets its own inference page.",
    )
    deployments: list[DeploymentPlan] = Field(
        default_factory=list,
        description="Language models: deployment plans people use; the inference page compares them, "
        "each sized and priced by the engine.",
    )
    components: list[ModelComponent] = Field(
        default_factory=list,
        description="Diffusion models: the pipeline's parts (denoiser, text encoders, VAE), each with its parameters.",
    )
    denoiser_passes: int | None = Field(
        default=None,
        ge=1,
        le=4,
        description="Diffusion models: denoiser passes per image per step: 2 with classifier-free guidance "
        "(a negative prompt, as SDXL), 1 for guidance-distilled models (FLUX.1-dev).",
    )
    default_steps: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Diffusion models: denoising steps the model's pipeline runs by default (its source in a comment).",
    )
    denoiser_text_tokens: int | None = Field(
        default=None,
        ge=0,
        le=4096,
        description="Diffusion transformers with joint attention (FLUX, SD3): text tokens that pass through "
        "every denoiser block beside the image tokens.",
    )
    video_fps: float | None = Field(
        default=None,
        gt=0,
        le=240,
        description="Video models: frames per second of the finished video (prices per minute of video).",
    )
    video_size: tuple[int, int] | None = Field(
        default=None,
        strict=False,
        description="Video models: the width and height in pixels the model is meant for (its page and the "
        "CLI's default), as the model's README lists them (e.g. [1280, 720]).",
    )
    license: ShortText = Field(description="Licence name.")
    source: HttpUrl = Field(description="Model card or config.json the figures come from.")

    @field_validator("kv_heads")
    @classmethod
    def _kv_heads_share_heads(cls, v: int | None, info: ValidationInfo) -> int | None:
        heads = info.data.get("heads")
        if v is not None and heads is not None:
            if v > heads:
                raise ValueError(f"{v} KV heads is more than the {heads} attention heads (heads); no model has that")
            if heads % v:
                raise ValueError(f"{heads} attention heads cannot be shared evenly among {v} KV heads")
        return v

    @field_validator("head_dim")
    @classmethod
    def _heads_divide_hidden(cls, v: int | None, info: ValidationInfo) -> int | None:
        hidden, heads = info.data.get("hidden"), info.data.get("heads")
        if v is None and hidden is not None and heads is not None and hidden % heads:
            raise ValueError(f"hidden {hidden} is not a whole number of {heads} heads: give head_dim from config.json")
        return v

    @field_validator("experts_per_token")
    @classmethod
    def _some_of_the_experts(cls, v: int | None, info: ValidationInfo) -> int | None:
        experts = info.data.get("experts")
        if v is not None and experts is not None and v > experts:
            raise ValueError(f"{v} experts per token is more than the {experts} experts")
        return v

    @model_validator(mode="after")
    def _layers_add_up(self) -> OpenModel:
        layers = self.layers
        windowed, linear = self.sliding_window_layers or 0, self.linear_attention_layers or 0
        if windowed and self.sliding_window is None:
            raise ValueError("sliding_window_layers needs sliding_window (the window's size in tokens)")
        if self.qk_rope_head_dim is not None and self.kv_lora_rank is None:
            raise ValueError("qk_rope_head_dim belongs to multi-head latent attention: give kv_lora_rank too")
        if (self.linear_state_values is None) != (self.linear_attention_layers is None):
            raise ValueError("linear_attention_layers and linear_state_values go together")
        if (self.dense_layers or self.shared_experts) and not self.experts:
            raise ValueError("dense_layers and shared_experts describe a mixture of experts: give experts")
        if layers is not None:
            if windowed + linear > layers:
                raise ValueError(f"{windowed} windowed + {linear} linear-attention layers exceed layers ({layers})")
            if linear >= layers:
                raise ValueError(
                    f"linear_attention_layers ({linear}) leaves none of the {layers} layers with attention"
                )
            if (self.dense_layers or 0) >= layers:
                raise ValueError(f"dense_layers ({self.dense_layers}) leaves none of the {layers} layers with experts")
        return self


# --------------------------------------------------------------------------- scenarios


class Workload(StrEnum):
    inference = "inference"
    lora = "lora"
    qlora = "qlora"
    full = "full"
    pretrain = "pretrain"


class Optimizer(StrEnum):
    """Training optimizers the memory estimate knows (states per parameter in rules.yaml)."""

    adamw = "adamw"
    adamw_8bit = "adamw-8bit"
    sgd = "sgd"


class Precision(StrEnum):
    fp32 = "fp32"
    bf16 = "bf16"
    fp16 = "fp16"
    fp8 = "fp8"
    int8 = "int8"
    int4 = "int4"
    mxfp4 = "mxfp4"
    nf4 = "nf4"
    q4_k_m = "q4_k_m"
    q8_0 = "q8_0"
    iq1_s = "iq1_s"  # GGUF IQ1_S on the routed experts, the rest at 4-6 bits (unsloth's dynamic 1.58-bit builds)
    mixed = "mixed"


class Runtime(StrEnum):
    """The software that serves a language model; memory is sized the way it allocates
    (``rules.yaml`` ``memory.inference.runtimes``)."""

    vllm = "vllm"  # paged KV cache, chunked prefill, preallocates gpu_memory_utilization of the card
    transformers = "transformers"  # Hugging Face generate(): weights + a growing cache + whole-prompt prefill
    llama_cpp = "llama.cpp"  # GGUF weights + a KV cache of n_ctx tokens at its type + a compute buffer


class Offload(StrEnum):
    """Where an image-generation pipeline keeps the components it is not using."""

    none = "none"  # every component stays on the GPU
    model = "model"  # model CPU offload: only the component at work is on the GPU (diffusers enable_model_cpu_offload)


class EditorPick(Record):
    """What the editor would recommend; the build compares it with the computed pick."""

    gpu: Slug = Field(description="GPU id the editor recommends.")
    delivery: Delivery = Field(strict=False, description="Delivery form the editor recommends.")


class Scenario(Record):
    """One of the scenario guides: a workload, its constraints and the editor's copy."""

    id: Slug = Field(description="Stable id, used in the page URL.")
    title: ShortText = Field(description="Page title (Chinese).")
    summary: Text = Field(description="One-paragraph introduction (Chinese).")
    audience: ShortText = Field(description="Who this scenario is for.")
    workload: Workload = Field(strict=False, description="inference, lora, qlora, full or pretrain.")
    model: Slug = Field(description="Model id from models.yaml.")
    precision: Precision = Field(strict=False, description="Weight / training precision.")
    kv_precision: Precision | None = Field(strict=False, default=None, description="KV-cache precision (inference).")
    batch: int | None = Field(
        json_schema_extra={"default_from": "defaults.batch"},
        default=None,
        ge=1,
        le=4096,
        description="Sequences processed together per card group.",
    )
    context: int | None = Field(
        json_schema_extra={"default_from": "defaults.context"},
        default=None,
        ge=64,
        le=1_048_576,
        description="Language models: tokens per sequence (prompt + output). Not for image models: use resolution.",
    )
    output_tokens: int | None = Field(
        json_schema_extra={"default_from": "defaults.output_tokens"},
        default=None,
        ge=1,
        le=1_048_576,
        description="Serving a language model: tokens generated per request; the prompt is context minus this.",
    )
    resolution: int | None = Field(
        json_schema_extra={"default_from": "defaults.resolution"},
        default=None,
        ge=64,
        le=8192,
        description="Image models: side of the square image in pixels (1024 = 1024×1024).",
    )
    offload: Offload | None = Field(
        json_schema_extra={"default_from": "defaults.offload"},
        strict=False,
        default=None,
        description="Image models: none (all parts on the GPU) or model (model CPU offload: one part at a time).",
    )
    grad_checkpointing: bool | None = Field(
        json_schema_extra={"default_from": "defaults.grad_checkpointing"},
        default=None,
        description="Training: recompute activations.",
    )
    optimizer: Optimizer | None = Field(
        json_schema_extra={"default_from": "defaults.optimizer"},
        strict=False,
        default=None,
        description="Training optimizer.",
    )
    lora_rank: int | None = Field(
        json_schema_extra={"default_from": "defaults.lora_rank"},
        default=None,
        ge=1,
        le=1024,
        description="LoRA rank.",
    )
    zero_stage: int | None = Field(
        json_schema_extra={"default_from": "defaults.zero_stage"},
        default=None,
        ge=0,
        le=3,
        description="ZeRO stage used when training on several cards.",
    )
    job_tokens_b: float | None = Field(default=None, gt=0, description="Training: tokens to process, billions.")
    deadline_days: float | None = Field(
        default=None,
        gt=0,
        le=3650,
        description="Training: the job must finish within this many days; plans scale out (more cards, more nodes) to meet it.",
    )
    images_per_month: float | None = Field(
        default=None,
        gt=0,
        le=1e10,
        description="Image generation: images to produce a month; plans rent enough copies to make them in the "
        "month's hours of use.",
    )
    steps: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Image models: denoising steps per image (default: the model's default_steps, else rules.yaml).",
    )
    hours_per_month: float | None = Field(
        json_schema_extra={"default_from": "cost.hours_per_month"},
        default=None,
        gt=0,
        le=744,
        description="Hours the cards are used per month (default: the whole month).",
    )
    domestic_only: bool = Field(default=False, description="Only 国产 accelerators qualify.")
    require_cuda: bool | None = Field(
        default=None,
        description="The workload's code needs NVIDIA CUDA; other accelerators are ruled out "
        "(default: rules.yaml defaults.require_cuda).",
    )
    budget_cny_month: float | None = Field(default=None, gt=0, description="Monthly budget ceiling in yuan.")
    disk_gb: float | None = Field(
        json_schema_extra={"default_from": "defaults.disk_gb"},
        default=None,
        ge=0,
        description="Data disk size in GB.",
    )
    egress_gb_month: float | None = Field(
        json_schema_extra={"default_from": "defaults.egress_gb_month"},
        default=None,
        ge=0,
        description="Outbound traffic per month in GB.",
    )
    public_ip: bool | None = Field(
        json_schema_extra={"default_from": "defaults.public_ip"},
        default=None,
        description="Whether a public IP is rented.",
    )
    editor_pick: EditorPick | None = Field(default=None, description="The editor's recommendation.")
    body: Text = Field(description="Editorial copy shown under the computed result (Chinese Markdown-free text).")


# --------------------------------------------------------------------------- pitfalls


class Evidence(StrEnum):
    """What data a pitfall shows under its text."""

    figures = "figures"  # a table of `figures` for `gpus`
    hidden_costs = "hidden_costs"  # the monthly cost breakdown of `scenario`'s computed pick
    overkill = "overkill"  # `scenario`'s computed pick against the dearest GPU that also fits
    none = "none"


class Pitfall(Record):
    """A mistake buyers make, with the data that proves it."""

    id: Slug = Field(description="Stable id.")
    title: ShortText = Field(description="Heading (Chinese).")
    body: Text = Field(description="Explanation (Chinese, plain text).")
    evidence: Evidence = Field(strict=False, description="figures, hidden_costs, overkill or none.")
    gpus: list[Slug] = Field(default_factory=list, description="GPU ids whose figures the pitfall cites.")
    figures: list[Figure] = Field(
        strict=False,
        default_factory=list,
        description="Spec figures compared across those GPUs.",
    )
    scenario: Slug | None = Field(default=None, description="Scenario id whose computed result is shown.")
    advice: Text = Field(description="What to do instead.")


# --------------------------------------------------------------------------- editions


class Edition(Record):
    """One published data update (本期变化), newest last in the file."""

    date: dt.date = Field(description="Publication date, YYYY-MM-DD.")
    title: ShortText = Field(description="Headline of the update (Chinese).")
    base: ShortText | None = Field(default=None, description="Git commit the update was compared with.")
    changes: list[Text] = Field(
        min_length=1,
        description="What changed, one line each (written by gpu-guide edition).",
    )


# --------------------------------------------------------------------------- API prices


class ApiPrice(Record):
    """A public price for calling a language model through an API, per million tokens."""

    id: Slug = Field(description="Stable id of this price.")
    provider: ShortText = Field(description="Who sells the API, e.g. 硅基流动 SiliconFlow.")
    model: ShortText = Field(description="The model as the price list names it.")
    open_params_b: float | None = Field(
        gt=0,
        le=10000,
        description="Parameters of the open-weights model the API serves, billions (total for MoE); "
        "null for a closed model of unknown size.",
    )
    moe: bool = Field(default=False, description="true when the served model is a mixture of experts.")
    currency: Currency = Field(
        default=Currency.cny,
        strict=False,
        description="The currency the price list states (CNY or USD); a dollar price is shown in yuan at the fx.yaml "
        "rate of its date.",
    )
    input_per_mtok: float = Field(
        ge=0,
        le=10000,
        description="Price per million prompt (input) tokens, in `currency` (cache miss where it differs).",
    )
    output_per_mtok: float = Field(
        ge=0, le=10000, description="Price per million generated (output) tokens, in `currency`."
    )
    as_of: dt.date = Field(
        description="Date the source states for the price (its effective or last-updated date), YYYY-MM-DD; "
        "never the day it was read."
    )
    source: HttpUrl = Field(description="Where the price was read.")
    quote: Text = Field(description="The source's own words or table row.")
    replaces: Slug | None = Field(
        default=None,
        description="Id of an older price of the same provider's API that this newer one supersedes; the older "
        "one stays, as history.",
    )
    note: Text | None = Field(default=None, description="Anything a reader should know about this price.")


# --------------------------------------------------------------------------- files


class GpusFile(Record):
    """data/gpus.yaml"""

    gpus: list[Gpu] = Field(min_length=1, description="Every GPU the guide covers.")


class OffersFile(Record):
    """data/offers.yaml"""

    offers: list[Offer] = Field(description="Rental prices.")


class ProvidersFile(Record):
    """data/providers.yaml"""

    providers: list[Provider] = Field(description="Platforms, clouds and surveys the offers come from.")


class FxFile(Record):
    """data/fx.yaml"""

    rates: list[FxRate] = Field(description="Dated exchange rates used to show foreign prices in yuan.")


#: A comparison page's slug, ``<gpu id>-vs-<gpu id>`` (its URL: compare/<slug>/).
ComparisonSlug = Annotated[
    str,
    Field(
        pattern=r"^[a-z0-9]+(?:[.-][a-z0-9]+)*-vs-[a-z0-9]+(?:[.-][a-z0-9]+)*$",
        max_length=130,
        description="A comparison page's slug: two GPU ids joined by '-vs-'.",
    ),
]


class ComparisonsFile(Record):
    """data/comparisons.yaml"""

    comparisons: list[SearchedPair] = Field(description="GPU pairs people search for, each with its search phrase.")
    retired: list[ComparisonSlug] = Field(
        default_factory=list,
        description=(
            "Comparison pages that were published and are no longer computed (their URLs are known to "
            "search engines): each gets a redirect page to the nearest current comparison."
        ),
    )


class ModelsFile(Record):
    """data/models.yaml"""

    models: list[OpenModel] = Field(min_length=1, description="Open models the guide sizes.")


class ScenariosFile(Record):
    """data/scenarios.yaml"""

    scenarios: list[Scenario] = Field(min_length=1, description="Scenario guides.")


class PitfallsFile(Record):
    """data/pitfalls.yaml"""

    pitfalls: list[Pitfall] = Field(description="Pitfalls page entries.")


class ApiPricesFile(Record):
    """data/api_prices.yaml"""

    prices: list[ApiPrice] = Field(description="Public API prices of language models.")


class EditionsFile(Record):
    """data/editions.yaml"""

    editions: list[Edition] = Field(description="Published data updates, oldest first.")


# OpenModel names Precision, which is defined further down: resolve that reference now, so the
# editor's guide and the JSON Schemas see the enum rather than a forward reference.
OpenModel.model_rebuild()
