"""How an extractive answer says operations, fields and security schemes: from their typed facts, in words a
reader acts on ("`page_size` (query, number): maximum 100, default 25", "HTTP Basic: send the header
`Authorization: Basic <base64 of username:password>`")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunk import Chunk, FieldFacts, SecurityFacts
from rag.corpus.vocabulary import opening_sentence, readable_name, summary_opening
from rag.corpus.vocabulary import operation_words as spoken_operation
from rag.facts import operation_label as facts_label
from rag.generate.context import ContextBlock
from rag.ingest.spec import api_alias_from_source
from rag.question_analysis import asked_cues

MAX_VALUES = 8


def operation_label(chunk: Chunk) -> str:
    """`GET /unified/hris/employees` (a webhook: its title, `Webhook /path (POST)`)."""
    return chunk.title or facts_label(chunk)


def operation_words(chunk: Chunk) -> str:
    """What an operation does in words: its summary, else its operation id spelt out (`delete_guild_member` →
    "delete guild member"; of one that writes out the path, what follows it: HubSpot's
    `post-/webhooks/v3/{appId}/subscriptions_create` → "subscriptions create"); "" when it has neither (its label
    already says its method and path)."""
    if not chunk.summary.strip() and "/" in chunk.operation_id:
        tail = re.sub(r"\{[^}]*\}", "", chunk.operation_id.rsplit("/", 1)[-1]).strip("_-. ")
        words = readable_name(tail).split() if tail else []  # `…/complete_complete` says it once
        return " ".join(word for n, word in enumerate(words) if not n or word != words[n - 1])
    return spoken_operation(chunk.summary, chunk.operation_id, "", "")


def operation_heading(chunk: Chunk) -> str:
    """`GET /unified/hris/employees (List Employees)`; a summary's closing full stop left out ("Send a message to
    the given channel."); one written as a call spelled out (Trello's `addCardsLabelsByIdCard()` → "add cards labels
    by id card")."""
    words = operation_words(chunk).rstrip(". ")
    if words.endswith("()"):
        words = readable_name(words.removesuffix("()"))
    return operation_label(chunk) + (f" ({words})" if words else "")


def is_operation(block: ContextBlock) -> bool:
    return block.chunk.kind == "operation" and bool(block.chunk.method)


def api_name(api: str) -> str:
    """How a sentence names an API: short names are acronyms (HRIS, ATS, LMS), others keep their spelling."""
    return api.upper() if len(api) <= 4 else api


def api_title(chunk: Chunk) -> str:
    """The API as a sentence names it: as its overview's title does ("StackOne", "Anchore Engine API Server"), else
    by its short name (`api_name`), with "API" after a name that does not say it ("StackOne API")."""
    overview = chunk.kind == "overview" and chunk.title.endswith(" overview")
    name = chunk.title.removesuffix(" overview") if overview else api_name(chunk.api)
    return name if "api" in name.lower().split() else f"{name} API"


def the_api(chunk: Chunk) -> str:
    """The API as a sentence opens with it: "The StackOne API", and "The Blue Alliance API v3" for a title that has its
    own "The"."""
    title = api_title(chunk)
    return title[:1].upper() + title[1:] if title.lower().startswith("the ") else f"The {title}"


def names_api(question: str, chunk: Chunk) -> bool:
    """Whether the question names the chunk's API by its indexed name ("… in the HRIS API", "… from ebay") or by the
    domain its file is named after ("… in asana" of `asana_com`, from `asana.com.json`)."""
    names = [name for name in (chunk.api, api_alias_from_source(chunk.source)) if name]
    return any(re.search(rf"\b{re.escape(name)}\b", question, re.I) for name in names)


def lower_first(text: str) -> str:
    """"The account identifier" → "the account identifier" (an acronym such as "ID of …" stays)."""
    return text[:1].lower() + text[1:] if text[:2].istitle() else text


def cited(sentence: str, block: ContextBlock) -> str:
    """The sentence ended (a cut one keeps its "…") and cited: "… maximum 100. [1]"."""
    said = sentence.rstrip().rstrip(".")
    return f"{said}{'' if said.endswith('…') else '.'} [{block.number}]"


def listed_values(values: Sequence[str]) -> str:
    shown = [value for value in values if value and value != "null"]
    return ", ".join(shown[:MAX_VALUES]) + (", …" if len(shown) > MAX_VALUES else "")


ABOUT_CHARS = 120
# How far past the limit a cut may go to keep the word it falls in whole.
WHOLE_WORD_CHARS = 24


def cut_at_word(text: str, limit: int) -> str:
    """`text` cut to about `limit` characters, never inside a word: the word the limit falls in stays whole ("a
    maximum of 100", not "a maximum of 10…"), unless it runs on (a URL), when the cut goes before it; "…" marks a
    cut inside a sentence."""
    if len(text) <= limit:
        return text
    end = text.find(" ", limit)
    whole = text if end < 0 else text[:end]
    if len(whole) > limit + WHOLE_WORD_CHARS:
        whole = text[:limit].rsplit(" ", 1)[0]
    if whole == text or whole.endswith((".", "!", "?")):
        return whole  # a sentence said to its end
    return whole.rstrip(" ,;:") + "…"


def field_facts_text(field: FieldFacts, asked: frozenset[str] = frozenset(), about: bool = False) -> str:
    """`page_size` (query, number): default 25, maximum 100 — the facts of one field a reader needs, the asked
    kinds (`QuestionAnalysis.asks`) first; `about` adds its description."""
    where = ", ".join(part for part in (field.location, field.type, "required" if field.required else "",
                                         "deprecated" if field.deprecated else "") if part)
    facts = value_facts(field, asked)
    text = f"`{field.name}` ({where})" + (": " + ", ".join(facts) if facts else "")
    description = field.description.rstrip(".")
    if about and description:
        text += f" — {cut_at_word(asked_part(description, asked, name=field.name), ABOUT_CHARS).rstrip('.')}"
    return text


def asked_part(description: str, asked: frozenset[str], room: int = ABOUT_CHARS, name: str = "") -> str:
    """The part of a description to quote in `room` characters: asked for a limit or a default, and its first
    sentence that states a number in words of that kind (else any number) would be cut off, from that sentence
    ("You can only add invoice items to draft invoices and there is a maximum of 250 items per invoice"; Square's
    "Default: `500` Max: `1000`" of a page size); else from its start."""
    text = " ".join(description.split())
    kinds = [kind for kind in ("limit", "default") if kind in asked]
    if not kinds or len(text) <= room:
        return description
    sentences = text.split(". ")
    numbered = [i for i, sentence in enumerate(sentences) if any(char.isdigit() for char in sentence)]
    # One saying a limit in words beats an example's numbers ("if offset is set to 10 and limit is set to 10 …").
    limiting = [i for i in numbered  # not a field's own name (`limit`)
                if any(set(asked_cues(sentences[i], kind)) - {name.lower()} for kind in kinds)]
    if not numbered:
        return description
    first = (limiting or numbered)[0]
    start = sum(len(sentence) + 2 for sentence in sentences[:first])
    return text if start + len(sentences[first]) <= room else text[start:]


# How an answer shows a value that is the empty string.
EMPTY_STRING = '""'


def value_facts(field: FieldFacts, asked: frozenset[str]) -> list[str]:
    """"default 25", "maximum 100", "one of a, b": the asked kind first."""
    kinds: list[tuple[str, str]] = []
    if field.default is not None:  # an empty string is shown as one (`search` (default ""))
        kinds.append(("default", f"default {field.default or EMPTY_STRING}"))
    kinds.extend(("limit", f"{label} {value}") for label, value in field.limits)
    if field.enum or field.item_enum:
        kinds.append(("allowed_values", f"one of {listed_values(field.enum or field.item_enum)}"))
    kinds.sort(key=lambda pair: pair[0] not in asked)
    return [text for _, text in kinds]


def scheme_sentence(scheme: SecurityFacts) -> str:
    """"HTTP Basic: send the header `Authorization: Basic <base64 of username:password>`"."""
    how = scheme.how_to_send
    text = scheme.kind + (f": send {how}" if how else "")
    if scheme.scopes:
        text += f" (scopes: {listed_values(scheme.scopes)})"
    return text


def schemes_text(schemes: Sequence[SecurityFacts]) -> str:
    """The alternatives of a requirement, each with its schemes: "HTTP Basic: send … or an API key: send …"; two
    schemes said alike are said once (Telnyx declares `BearerAuth` and `bearerAuth`, both HTTP Bearer)."""
    alternatives: dict[int, list[SecurityFacts]] = {}
    for scheme in schemes:
        alternatives.setdefault(scheme.alternative, []).append(scheme)
    said = (" and ".join(_said_together(group)) for group in alternatives.values())
    return " or ".join(dict.fromkeys(said))


def _said_together(group: Sequence[SecurityFacts]) -> list[str]:
    """The schemes one requirement names, those of a kind sent alike said as one: "an API key: send the header
    `x-api-key: …` and the header `x-store-key: …`" (API2Cart)."""
    sentences = list(dict.fromkeys(scheme_sentence(s) for s in group))
    plain = [s for s in group if not s.scopes and s.how_to_send]
    kinds = {s.kind for s in plain}
    if len(plain) == len(group) and len(kinds) == 1 and len(sentences) > 1:
        return [f"{plain[0].kind}: send " + " and ".join(dict.fromkeys(s.how_to_send for s in plain))]
    return sentences


def scheme_detail(schemes: Sequence[SecurityFacts]) -> str:
    """The URLs an OAuth2 or OpenID Connect scheme names and the schemes' own descriptions."""
    parts = [f"{'; '.join(s.urls)}" for s in schemes if s.urls]
    parts += [s.description for s in schemes if s.description]
    return " ".join(dict.fromkeys(part.rstrip(".") + "." for part in parts if part))


GIST_CHARS = 160


def first_sentence(description: str, summary: str = "") -> str:
    """The first sentence of a description (of an operation, its `opening`: the first paragraph past the headings it
    opens with), when it says more than its summary (`summary_opening`) and something by itself (not Snyk's
    "Deactivating a project will:", which opens a list); "" otherwise."""
    gist = summary_opening(opening_sentence(" ".join(description.split()))).rstrip(".")  # no aside ("NOTE: …")
    if not gist or gist.endswith(":") or gist.lower() == summary_opening(summary).lower().rstrip("."):
        return ""
    return gist if len(gist) <= GIST_CHARS else gist[:GIST_CHARS].rsplit(" ", 1)[0] + " …"
