"""The lead sentence of an extractive answer: the fact asked for, stated once, before the supporting lines.

"The StackOne API uses HTTP Basic authentication: send the header 'Authorization: Basic …' [2]." /
"In POST /connect_sessions, `expires_in` defaults to 1800 (How long the session should be valid for in
seconds) [1]." Each rule reads the structure of the smart chunks (field lines, `Default:`, `Enum:`, the
security schemes of the overview, the success response, the summary); when none applies there is no lead
and the answer starts with the lines themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.corpus.profile import is_lookup_operation
from rag.facts import Fact, MissingWrite
from rag.generate.chunk_lines import child_fields
from rag.generate.context import ContextBlock
from rag.names import name_phrases
from rag.query import Query

_FIELD = re.compile(r"^\s*(?:[-*]\s+)?([A-Za-z_$@][\w.$@\-\[\]]*) \(([^)]*)\)(?::\s*(.*))?$")
_DEFAULT = re.compile(r"\bDefault:\s*([^.]+(?:\.\d+)?)\.?")
_ENUM = re.compile(r"\b(?:Item )?[Ee]num:\s*([^.]+)\.")
_SCHEME = re.compile(r"^-\s+([\w.\-]+):\s+(HTTP \w+|API key[^.]*|OAuth ?2?[^.]*|OpenID[^.]*|Mutual TLS)\s*$")
_SUCCESS = re.compile(r"^-\s+(2\d\d)\s+→\s+([A-Za-z0-9_]+)(?::\s*(.*))?$")
_OPERATION = re.compile(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(\S+)")
_AUTH_WORDS = re.compile(r"\b(auth\w*|security|credentials?|log ?in|sign ?in)\b", re.I)
_DEFAULT_WORDS = re.compile(r"\b(default\w*|expir\w*|how long|timeout|valid for)\b", re.I)
_ENUM_WORDS = re.compile(
    r"\b(allowed|possible|accepted|valid|which|what)\b.*\b(values?|options?|statuses|types?|kinds?)\b", re.I
)
_RESPONSE_WORDS = re.compile(r"\b(respon[sd]\w*|returns?|returned|get back|payload|look like)\b", re.I)
_ENDPOINT_WORDS = re.compile(
    r"^\s*(?:(?:and|so|then|ok|okay|also)\s+)?"
    r"(how (do|can|should) (i|we)|how to|which (endpoint|call|operation|api)|what (endpoint|call))",
    re.I,
)
MAX_VALUES = 8


@dataclass(frozen=True)
class Lead:
    """The lead sentence and the blocks the supporting lines may come from.

    `scope` is empty when any block may add lines; an API-wide statement (the overview's security scheme,
    the conventions' shared header) or an established missing operation keeps the lines to the blocks it
    cites, so no line about an arbitrary operation follows it.
    """

    sentence: str = ""
    scope: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.scope and not self.sentence:
            raise ValueError(f"Lead.scope={self.scope!r} is not allowed without a sentence; allowed: () when empty")


def lead_sentence(question: Query | str, blocks: Sequence[ContextBlock], facts: Sequence[Fact] = ()) -> str:
    """The sentence that answers the question directly, cited `[n]`; "" when the chunks do not state it."""
    return lead_for(question, blocks, facts).sentence


def lead_for(question: Query | str, blocks: Sequence[ContextBlock], facts: Sequence[Fact] = ()) -> Lead:
    """The lead sentence and the blocks its supporting lines come from (see `Lead`). The rules read the
    question itself (`Query.focus`) and its analysis (a typed query shares the one the pipeline made)."""
    query = Query.of(question)
    if facts:  # what the checks established comes first; a rule picking an operation could contradict it
        return _missing_operation(query, blocks, facts)
    scoped: tuple[Callable[[Query, Sequence[ContextBlock]], Lead], ...] = (_api_authentication, _shared_header)
    for api_wide in scoped:
        found = api_wide(query, blocks)
        if found.sentence:
            return found
    rules: tuple[Callable[[Query, Sequence[ContextBlock], Sequence[Fact]], str], ...] = (
        _look_up_first,
        _authentication,
        _required_parameters,
        _required_fields,
        _default_value,
        _allowed_values,
        _success_response,
        _supported_parameter,
        _operations_per_api,
        _operation_to_use,
    )
    for rule in rules:
        sentence = rule(query, blocks, facts)
        if sentence:
            return Lead(sentence)
    return Lead()


def names_the_operation(question: str, block: ContextBlock) -> bool:
    """Whether the question names the block's operation: its path, or a resource word of its path other than
    the API's name and words about authentication ("How do I authenticate with the StackOne API?" does not
    name `POST /connect_sessions/authenticate`; "…authenticate a connect session?" does)."""
    chunk = block.chunk
    match = _OPERATION.match(_header(block))
    path = chunk.path or (match.group(2) if match else "")
    if not path:
        return False
    if path.lower() in question.lower():
        return True
    asked = {_singular(w) for w in re.findall(r"[a-z0-9]+", question.lower())}
    words = set()
    for segment in path.lower().split("/"):
        if not segment or segment.startswith("{") or segment in {"unified", chunk.api.lower()}:
            continue
        words |= {_singular(w) for w in re.split(r"[_\-.]+", segment) if len(w) > 2}
    words = {w for w in words if not _AUTH_WORDS.fullmatch(w)}
    return bool(words & asked)


def _lower_first(text: str) -> str:
    """"The account identifier" → "the account identifier" (an acronym such as "ID of …" stays)."""
    return text[:1].lower() + text[1:] if text[:2].istitle() else text


def _api_name(api: str) -> str:
    """How a sentence names an API: short names are acronyms (HRIS, ATS, LMS), others keep their spelling."""
    return api.upper() if len(api) <= 4 else api


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


_REQUIRED_WORDS = re.compile(r"\b(required|mandatory|must|always send|need to send|have to send)\b", re.I)
_HEADER_WORDS = re.compile(r"\bheaders?\b", re.I)
_PARAMETER_WORDS = re.compile(r"\b(parameters?|headers?|arguments?|inputs?)\b", re.I)
_FIELD_WORDS = re.compile(r"\b(fields?|properties|attributes)\b", re.I)


def _required_parameters(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    """"Which parameters must I send …" / "Which headers does the request take …": the first operation's
    required parameters (from the chunk's fields), headers first when headers are asked for."""
    question = query.focus
    if not _PARAMETER_WORDS.search(question) or _FIELD_WORDS.search(question):
        return ""
    wants_headers = bool(_HEADER_WORDS.search(question))
    if not (wants_headers or _REQUIRED_WORDS.search(question)):
        return ""
    for block in blocks:
        parameters = block.chunk.parameters
        if block.chunk.kind != "operation" or not parameters:
            continue
        chosen = [p for p in parameters if p.location == "header"] if wants_headers else []
        if not wants_headers:
            chosen = [p for p in parameters if p.required]
            body = block.chunk.request_body
            chosen += [f for f in (body.fields if body and body.required else ()) if f.required]
        if not chosen:
            return ""
        listed = ", ".join(
            f"`{p.name}` ({p.location or 'body'}{', required' if wants_headers and p.required else ''})" for p in chosen
        )
        kind = "takes the headers" if wants_headers else "requires"
        return _cited(f"{_header(block)} {kind} {listed}", block)
    return ""


def _required_fields(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    """"Which fields are mandatory in X?": the `Required fields:` line of the schema the question names
    (or of the first schema retrieved)."""
    question = query.focus
    if not (_FIELD_WORDS.search(question) and _REQUIRED_WORDS.search(question)):
        return ""
    schemas = [b for b in blocks if re.match(r"^Schema \S+", _header(b))]
    named = [b for b in schemas if re.search(rf"\b{re.escape(_header(b).split()[1])}\b", question)]
    for block in named or schemas[:1]:
        line = next((ln for ln in block.text.splitlines() if ln.startswith("Required fields:")), "")
        if line:
            return _cited(f"In {_where(block)}, the required fields are {line.split(':', 1)[1].strip()}", block)
        return _cited(f"{_where(block).capitalize()} marks no field as required", block)
    return ""


def _missing_operation(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> Lead:
    """"Can I create a course?" when the write check established there is no such operation: the fact, each
    sentence cited to the operations that do exist for the resource (the evidence of the absence); the lines
    below come only from those operations, so no other resource's write operation reads as a contradiction."""
    missing = next((fact for fact in facts if isinstance(fact, MissingWrite)), None)
    if missing is None:
        return Lead()
    statement = missing.statement()
    sentences = [part.strip() for part in re.split(r"(?<=[.)])\s+(?=[A-Z])", statement) if part.strip()]
    operations = missing.operation_labels()
    named = [block for block in blocks if _header(block) in operations]
    cited: list[str] = []
    for sentence in sentences:
        own = [block for block in named if _header(block) in sentence] or named
        marks = " ".join(f"[{block.number}]" for block in own)
        cited.append(f"{sentence.rstrip()} {marks}".rstrip())
    text = ("No. " if query.analysis.yes_no else "") + " ".join(cited)
    return Lead(text, tuple(block.number for block in named))


def _api_authentication(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"How do I authenticate with the StackOne API?": a question naming no operation is answered with the
    API's own statement (the overview's security schemes), whatever operation ranked first."""
    question = query.focus
    if not _AUTH_WORDS.search(question) or not blocks:
        return Lead()
    first = blocks[0]
    if _OPERATION.match(_header(first)) and names_the_operation(question, first):
        return Lead()
    overviews = [block for block in blocks if block.chunk.kind == "overview"]
    sentence = _authentication(query, overviews, ())
    if not sentence:
        return Lead()
    number = int(sentence.rsplit("[", 1)[1].rstrip("]"))
    return Lead(sentence, (number,))


_SHARED = re.compile(r"^-\s+([\w\-]+) \(header, [^)]*\):\s*(.*?)\s+—\s+on (\d+) of (\d+) operations\.?$")


def _shared_header(query: Query, blocks: Sequence[ContextBlock]) -> Lead:
    """"Which header selects the account on the HRIS endpoints?": a header question naming no operation is
    answered from the conventions chunk (the header all operations share), not from the first operation."""
    question = query.focus
    if not _HEADER_WORDS.search(question) or not blocks:
        return Lead()
    first = blocks[0]
    if _OPERATION.match(_header(first)) and names_the_operation(question, first):
        return Lead()
    words = {_singular(w) for w in re.findall(r"[a-z0-9]+", question.lower()) if len(w) > 3}
    for block in blocks:
        if not block.chunk.covers or not block.chunk.covers[0].endswith(".conventions"):
            continue
        headers = [m for line in block.text.splitlines() if (m := _SHARED.match(line.strip()))]
        matching = [m for m in headers if words & {_singular(w) for w in re.findall(r"[a-z0-9]+", m.group(2).lower())}]
        chosen = matching or [m for m in headers if "required" in m.group(0)]
        if not chosen:
            continue
        api = block.chunk.api
        described = "; ".join(
            f"`{m.group(1)}` ({_lower_first(m.group(2).rstrip('.'))}; "
            + ("required " if "required" in m.group(0).split(":")[0] else "")
            + f"on {m.group(3)} of {m.group(4)} operations)"
            for m in chosen
        )
        noun = "header" if len(chosen) == 1 else "headers"
        return Lead(_cited(f"The {_api_name(api)} API's operations share the {noun} "
                           f"{described}", block), (block.number,))
    return Lead()


def _authentication(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    question = query.focus
    if not _AUTH_WORDS.search(question):
        return ""
    first = blocks[0] if blocks else None
    security = next((ln for ln in first.text.splitlines() if ln.startswith("Security: ")), "") if first else ""
    if first is not None and security and _OPERATION.match(_header(first)):
        # The operation the question is about states its own scheme(s): "basic (HTTP Basic)".
        return _cited(f"{_header(first)} uses {security.removeprefix('Security: ').strip()} authentication", first)
    for block in blocks:
        lines = block.text.splitlines()
        schemes = []
        for position, line in enumerate(lines):
            match = _SCHEME.match(line.strip())
            if not match:
                continue
            following = lines[position + 1].strip() if position + 1 < len(lines) else ""
            indented = position + 1 < len(lines) and lines[position + 1].startswith("  ")
            how = following if indented and not following.startswith("-") else ""
            schemes.append((match.group(1), match.group(2), how))
        if schemes:
            title = re.sub(r"^API overview:\s*", "", _header(block)) if block.chunk.kind == "overview" else ""
            api = f"The {title or block.chunk.api} API" if (title or block.chunk.api) else "The API"
            named = " or ".join(f"{kind} (scheme `{name}`)" for name, kind, _ in schemes)
            how = next((how for _, _, how in schemes if how), "")
            how = how.split(": ", 1)[1] if how.startswith("Authenticate with") and ": " in how else how
            return _cited(f"{api} uses {named} authentication" + (f": {how.rstrip('.')}" if how else ""), block)
    return ""


def _field_lines(blocks: Sequence[ContextBlock], question: str) -> list[tuple[ContextBlock, str, str, str]]:
    """(block, field name, flags, description) of every field line the question names, best block first:
    names spelt out, then names sharing a word, then descriptions sharing two words with the question."""
    words = {w for w in re.findall(r"[a-z0-9]+", question.lower()) if len(w) > 2}
    exact, partial, described = [], [], []
    for block in blocks:
        for line in block.text.splitlines():
            match = _FIELD.match(line)
            if not match:
                continue
            name = match.group(1)
            parts = {p for p in re.split(r"[_.\-\[\]]+", name.lower()) if len(p) > 2}
            entry = (block, name, match.group(2), (match.group(3) or "").strip())
            if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", question.lower()):
                exact.append(entry)
            elif any(p[:5] == w[:5] for p in parts for w in words if min(len(p), len(w)) >= 5) or parts & words:
                partial.append(entry)
            elif len(words & set(re.findall(r"[a-z0-9]+", entry[3].lower()))) >= 2:
                described.append(entry)  # "how long … valid" ← "How long the session should be valid for"
    return exact + partial + described


def _cited(sentence: str, block: ContextBlock) -> str:
    return f"{sentence.rstrip()}. [{block.number}]"


def _where(block: ContextBlock) -> str:
    """"POST /connect_sessions" for an operation, "the ConnectSessionCreate schema" for a schema."""
    header = _header(block)
    schema = re.match(r"^Schema (\S+)", header)
    return f"the {schema.group(1)} schema" if schema else header


def _header(block: ContextBlock) -> str:
    first = block.text.splitlines()[0] if block.text else block.label
    return first.split("  [")[0].strip()


def _default_value(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    question = query.focus
    if not _DEFAULT_WORDS.search(question):
        return ""
    for block, name, _, description in _field_lines(blocks, question):
        default = _DEFAULT.search(description)
        if default:
            meaning = description[: default.start()].strip().rstrip(".")
            sentence = f"In {_where(block)}, `{name}` defaults to {default.group(1).strip()}"
            return _cited(sentence + (f" ({meaning})" if meaning else ""), block)
    return ""


def _allowed_values(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    question = query.focus
    if not _ENUM_WORDS.search(question):
        return ""
    for block, name, _, description in _field_lines(blocks, question):
        enum = _ENUM.search(description)
        if enum:
            values = [v.strip() for v in enum.group(1).split(",") if v.strip() and v.strip() != "null"]
            shown = ", ".join(values[:MAX_VALUES]) + (", …" if len(values) > MAX_VALUES else "")
            return _cited(f"In {_where(block)}, `{name}` takes one of: {shown}", block)
    return ""


def _success_response(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    question = query.focus
    if not _RESPONSE_WORDS.search(question):
        return ""
    for block in blocks:
        lines = block.text.splitlines()
        if not lines or not _OPERATION.match(lines[0]):
            continue
        for position, line in enumerate(lines):
            match = _SUCCESS.match(line.strip())
            if not match:
                continue
            fields = child_fields(lines, position)
            code, schema = match.group(1), match.group(2)
            listed = f", whose fields are {', '.join(fields[:MAX_VALUES])}" if fields else ""
            return _cited(f"{_header(block)} responds {code} with {schema}{listed}", block)
        return ""
    return ""


def _supported_parameter(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    """"Can I filter accounts by provider?" → "Yes: GET /accounts takes the `provider` query parameter"."""
    if not query.analysis.yes_no:
        return ""
    question = query.focus
    for block, name, flags, description in _field_lines(blocks, question):
        if name.lower() not in question.lower() or not _OPERATION.match(_header(block)):
            continue
        location = flags.split(",")[0].strip()
        kind = f"{location} parameter" if location in {"query", "path", "header", "cookie"} else "field"
        meaning = description.split(" Default:")[0].split(" Enum:")[0].strip().rstrip(".")
        return _cited(f"Yes: {_header(block)} takes the `{name}` {kind}" + (f" ({meaning})" if meaning else ""), block)
    return ""


def _look_up_first(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    """"Play the album Kind of Blue by Miles Davis" with the API's lookup operation first (the lookup lift):
    "First find Kind of Blue, Miles Davis with GET /search (`q`) [1]; then GET /albums/{id} (Get Album) [2]"."""
    question = query.focus
    values = name_phrases(question)
    if not blocks or not values or not is_lookup_operation(blocks[0].chunk):
        return ""
    lookup = blocks[0]
    query = [f"`{p.name}`" for p in lookup.chunk.parameters if p.required and p.location == "query"][:2]
    sentence = f"First find {' and '.join(values[:3])} with {_header(lookup)}"
    sentence += (f" ({', '.join(query)})" if query else "") + f" [{lookup.number}]"
    following = next((b for b in blocks[1:] if b.chunk.kind == "operation" and _OPERATION.match(_header(b))), None)
    if following is not None:
        summary = following.chunk.summary
        sentence += f"; then {_header(following)}" + (f" ({summary})" if summary else "") + f" [{following.number}]"
    return sentence + "."


def _operations_per_api(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    """"How do I list employees in the HRIS API and candidates in the ATS API?": the best-ranked operation of
    each API the question names, each cited."""
    question = query.focus
    if not _ENDPOINT_WORDS.match(question):
        return ""
    named: dict[str, ContextBlock] = {}
    for block in blocks:
        api = block.chunk.api
        if api and api not in named and _OPERATION.match(_header(block)) and re.search(
            rf"\b{re.escape(api)}\b", question, re.I
        ):
            named[api] = block
    if len(named) < 2:
        return ""
    parts = []
    for api, block in named.items():
        summary = f" ({block.chunk.summary})" if block.chunk.summary else ""
        parts.append(f"in the {_api_name(api)} API use {_header(block)}{summary} [{block.number}]")
    sentence = "; ".join(parts) + "."
    return sentence[0].upper() + sentence[1:]


def _operation_to_use(query: Query, blocks: Sequence[ContextBlock], facts: Sequence[Fact]) -> str:
    question = query.focus
    if not _ENDPOINT_WORDS.match(question) or not blocks:
        return ""
    block = blocks[0]
    header = _header(block)
    if not _OPERATION.match(header):
        return ""
    summary = block.chunk.summary
    return _cited(f"Use {header}" + (f" ({summary})" if summary else ""), block)
