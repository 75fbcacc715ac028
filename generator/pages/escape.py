"""Escaping per output context: text from data is text, never markup.

Jinja's autoescape knows HTML, not Markdown, and MkDocs' strict mode checks links,
not injection. Every string that comes from ``data/`` goes through exactly one of
these filters in the templates:

``md``    prose or a table cell in Markdown: ASCII punctuation that Markdown, its
          extensions (tables, attr_list, snippets, admonitions) or raw HTML could act
          on becomes a numeric character reference, which Python-Markdown passes
          through untouched and the browser shows as the character. Newlines fold to
          spaces (runs of white space fold to one) so a value can never start a new
          block or table row.
``url``   a link destination: only http(s), with the characters that could end a
          Markdown link destination percent-encoded.
``json``  JSON for a ``<script>`` element: safe against ``</script>``, ``<!--`` and
          U+2028/U+2029.
``yaml_str`` a double-quoted YAML scalar for front matter, HTML-safe as text
          (MkDocs themes print front matter unescaped). Quotes in a description,
          which Material puts in an attribute, are escaped at build time by the
          plugin in :mod:`generator.publish.plugin`. Control characters (C0, DEL,
          C1) and the direction controls are dropped, as ``md`` drops them, and any
          other character that is not printable (zero-width and other format
          characters) is written as a ``\\uXXXX`` escape, so no value can make PyYAML
          refuse the front matter (MkDocs would then show it as page text).

The data loader refuses control and direction-control characters in the first place
(:mod:`generator.data.validate`); ``md`` also drops them, as a second line of defence.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any
from urllib.parse import quote, urlsplit

from generator.data.characters import BIDI_CLASS

# Everything Markdown syntax is built from, plus HTML's specials. Letters, digits,
# spaces, CJK text and ',', '/', '%', '?' , '@' , ';' are left readable.
_ALWAYS = set("\\`*_{}[]()<>&|#!~^=:\"'$")
# Harmless inside a line, but they open a block at its start ("- x", "+ x", "1. x").
_AT_START = set("-+.")
#: Dropped from prose: C1 controls and the bidirectional controls (invisible, and they
#: reorder the text after them). C0 controls and DEL are dropped by the code < 32 / == 127 test.
_DROP = re.compile(f"[\x80-\x9f{BIDI_CLASS}]")
#: Everything ``md`` drops, for front matter: C0 controls, DEL, C1 and the direction controls.
_CONTROLS = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CLASS}]")


#: Any character ``md`` changes: Markdown/HTML specials, block starters, controls, line breaks.
_NEEDS_WORK = re.compile("[\\`*_{}\\[\\]()<>&|#!~^=:\"'$+.\\-\x00-\x1f\x7f-\x9f\u2028\u2029" + BIDI_CLASS + "]")


def md(value: Any) -> str:
    """Escape any value for Markdown prose or a table cell."""
    text = "" if value is None else str(value)
    if not _NEEDS_WORK.search(text):  # fast path: plain words, CJK text, digits, spaces (most cells)
        return _CJK_GAP.sub("", " ".join(text.split()))
    text = _DROP.sub("", text)
    out: list[str] = []
    prev = " "
    for i, ch in enumerate(text):
        if ch in "\r\n\t\u2028\u2029\x0b\x0c":
            ch = " "
        code = ord(ch)
        if code < 32 or code == 127:
            continue  # other control characters carry nothing a reader needs
        # Newlines are folded, so only the very start of a value can open a block; "--" is
        # escaped anywhere as cheap insurance against snippet-style "--8<--" markers.
        if (
            ch in _ALWAYS
            or (ch in _AT_START and (i == 0 or ch == prev == "-"))
            or (
                ch == "." and text[:i].isdigit()  # "1. x" would open an ordered list
            )
        ):
            out.append(f"&#{code};")
        else:
            out.append(ch)
        prev = ch
    return _CJK_GAP.sub("", " ".join("".join(out).split()))


# YAML folds line breaks into spaces; between Chinese characters or after Chinese
# punctuation such a space is a typo, not a word gap.
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(f"(?<=[{_CJK}]) (?=[{_CJK}])|(?<=[\u3000-\u303f\uff00-\uffef]) ")


def url(value: Any) -> str:
    """An http(s) URL safe inside ``[text](…)``; anything else becomes ``#``."""
    text = str(value or "").strip()
    parts = urlsplit(text)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return "#"
    # Keep URL structure; encode what could close the destination or open markup.
    return quote(text, safe=":/?#@!$&+,;=%~-._")


def json_for_script(value: Any) -> str:
    """JSON that cannot break out of a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def yaml_str(value: Any) -> str:
    """A double-quoted YAML scalar (for front matter titles and descriptions).

    MkDocs themes print front matter values into HTML unescaped (Material's nav,
    ``<title>``, header and search results all use ``{{ page.title }}`` as markup), so
    ``&``, ``<`` and ``>`` become character references here: text, never elements.
    JSON from :func:`json_for_script` contains none of the three and passes unchanged.
    Quotes are left alone here; where a theme puts a value in an attribute
    (``<meta name="description" content="…">``) :mod:`generator.publish.plugin` escapes them.
    """
    text = _CONTROLS.sub("", " ".join(str(value).split()))
    quoted = json.dumps(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"), ensure_ascii=False)
    return _escape_unprintable(quoted)


def yaml_data(value: Any) -> str:
    """A double-quoted YAML scalar holding ``value`` exactly (for data files we write)."""
    return _escape_unprintable(json.dumps(str(value), ensure_ascii=False))


def _escape_unprintable(quoted: str) -> str:
    """Inside a double-quoted scalar from ``json.dumps``: every character that is not printable
    (JSON already escaped C0) becomes a YAML ``\\u``/``\\U`` escape, which PyYAML reads back as
    the same character. Raw, DEL and the C1 controls make PyYAML refuse the whole document."""
    return "".join(
        ch
        if ch.isprintable() or unicodedata.category(ch) == "Zs"
        else (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        for ch in quoted
    )


def html_text(value: Any) -> str:
    """Escape for HTML text or a double-quoted attribute."""
    text = "" if value is None else str(value)
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )
