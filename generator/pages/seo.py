"""What search engines read: public URLs, meta descriptions, breadcrumbs and JSON-LD.

Every page gets a BreadcrumbList; GPU pages a Product with an AggregateOffer in CNY;
provider pages an Organization with its current offers; model and comparison pages a
FAQPage whose answers are the page's own sentences. Prices in JSON-LD are the page's own:
current offers, in yuan per card-month (foreign prices converted with the dated rate the
page names).
"""

from __future__ import annotations

from typing import Any

from generator.data.records import Gpu, Offer, Provider
from generator.engine import cost as costs
from generator.formats import num

#: (name, docs path) of a page in a breadcrumb trail.
Crumb = tuple[str, str]


def clip(text: str, limit: int) -> str:
    """Fold white space and cut to ``limit`` characters with an ellipsis (meta descriptions)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def page_url(site_url: str, path: str) -> str:
    """Public URL of a docs/ Markdown path (MkDocs' directory URLs)."""
    base = site_url.rstrip("/") + "/"
    if path == "index.md":
        return base
    stem = path[: -len("index.md")] if path.endswith("/index.md") else path[: -len(".md")] + "/"
    return base + stem


def breadcrumb_ld(site_url: str, crumbs: tuple[Crumb, ...]) -> dict[str, Any]:
    items = [
        {"@type": "ListItem", "position": i, "name": name, "item": page_url(site_url, p)}
        for i, (name, p) in enumerate(crumbs, 1)
    ]
    return {"@type": "BreadcrumbList", "itemListElement": items}


def _offer_ld(o: Offer, pricing: costs.Pricing, seller: str) -> dict[str, Any]:
    return {
        "@type": "Offer",
        "priceCurrency": "CNY",
        "price": f"{costs.card_month_cny(o, pricing):.2f}",
        "validFrom": o.as_of.isoformat(),
        "url": str(o.source),
        "seller": {"@type": "Organization", "name": seller},
    }


def product_ld(
    gpu: Gpu, offers: list[Offer], pricing: costs.Pricing, site_url: str, sellers: dict[str, str]
) -> dict[str, Any]:
    """A GPU as a Product; its current offers as an AggregateOffer of card-month prices in yuan
    (``sellers``: provider id -> name)."""
    product: dict[str, Any] = {
        "@type": "Product",
        "name": gpu.name,
        "brand": {"@type": "Brand", "name": gpu.vendor.value},
        "category": "GPU 算力租赁",
        "description": f"{gpu.name}，{num(gpu.memory_gb, 0)} GB {gpu.memory_type}，租赁价格按每卡每月折算。",
        "url": page_url(site_url, f"gpus/{gpu.id}.md"),
    }
    span = costs.card_month_range(offers, pricing)
    if span is not None:
        product["offers"] = {
            "@type": "AggregateOffer",
            "priceCurrency": "CNY",
            "lowPrice": f"{span[0]:.2f}",
            "highPrice": f"{span[1]:.2f}",
            "offerCount": len(offers),
            "offers": [_offer_ld(o, pricing, sellers[o.provider]) for o in offers],
        }
    return product


def provider_ld(
    provider: Provider, offers: list[Offer], gpu_names: dict[str, str], pricing: costs.Pricing, site_url: str
) -> dict[str, Any]:
    """A provider as an Organization that makes offers: one per current offer, per card-month in yuan."""
    org: dict[str, Any] = {
        "@type": "Organization",
        "name": provider.name,
        "url": str(provider.url),
        "description": f"{provider.name} 的 GPU 租赁报价，按每卡每月折算成人民币。",
    }
    if offers:
        org["makesOffer"] = [
            {
                **_offer_ld(o, pricing, provider.name),
                "itemOffered": {"@type": "Product", "name": f"{gpu_names[o.gpu]} 租赁",
                                "url": page_url(site_url, f"gpus/{o.gpu}.md")},
            }
            for o in offers
        ]  # fmt: skip
    return org


def faq_ld(faq: list[tuple[str, str]]) -> dict[str, Any]:
    """Questions and answers exactly as the page prints them."""
    return {
        "@type": "FAQPage",
        "mainEntity": [
            {"@type": "Question", "name": q, "acceptedAnswer": {"@type": "Answer", "text": a}} for q, a in faq
        ],
    }
