"""A request example (`RequestExample`, built at ingest from the operation's spec) as a curl command and a Python
snippet (httpx): the one place both are written. Secrets are environment variables named after the API
(`$STACKONE_USERNAME`, `$OPENAI_API_KEY`, `$SPOTIFY_ACCESS_TOKEN`), never values. A question that names the item
it acts on ("the logs of container web-1") gets that value in the path (`with_question_values`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

from rag.chunk import FieldFacts, RequestExample, SecurityFacts
from rag.corpus.path_words import segment_words
from rag.corpus.paths import METHOD_PATH, PATH_IN_TEXT
from rag.corpus.vocabulary import singular

FILE_PLACEHOLDER = "<path to file>"
JSON_MEDIA = re.compile(  # a JSON media type: application/json, application/vnd.x+json, text/json
    r"^application/(?:[\w.+-]*\+)?json\b|/json$", re.I)
_FORM = "application/x-www-form-urlencoded"
_MULTIPART = "multipart/form-data"
_PLAIN_FORM_VALUE = re.compile(r"^[\w.~:/@<>-]*$")  # sent as it is by `curl -d`; anything else is URL-encoded
_HTTPX_BODY_METHODS = frozenset({"post", "put", "patch"})
_HTTPX_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})


@dataclass(frozen=True)
class Secret:
    """What one security scheme sends: a `header` (name, prefix before the secret), a `query` parameter or a
    `cookie`, `basic` credentials (user and password variables) or a client certificate (`tls`)."""

    where: str
    name: str = ""
    variable: str = ""
    prefix: str = ""
    password: str = ""


def secrets(example: RequestExample) -> list[Secret]:
    """What the example's schemes send, each secret an environment variable named after the API."""
    found: list[Secret] = []
    keys = [s for s in example.auth if s.type == "apiKey"]
    for scheme in example.auth:
        found.extend(_secret(scheme, example.credential, len(keys) > 1))
    return found


def _secret(scheme: SecurityFacts, credential: str, several_keys: bool) -> list[Secret]:
    if scheme.type == "http" and scheme.scheme == "basic":
        return [Secret("basic", variable=f"{credential}_USERNAME", password=f"{credential}_PASSWORD")]
    if scheme.type == "http":
        prefix = (scheme.scheme or "bearer").capitalize() + " "
        return [Secret("header", "Authorization", f"{credential}_API_KEY", prefix)]
    if scheme.type in ("oauth2", "openIdConnect"):
        return [Secret("header", "Authorization", f"{credential}_ACCESS_TOKEN", "Bearer ")]
    if scheme.type == "apiKey" and scheme.parameter:
        own = re.sub(r"[^A-Z0-9]+", "_", scheme.parameter.upper()).strip("_")
        variable = f"{credential}_{own}" if several_keys else f"{credential}_API_KEY"
        return [Secret(scheme.location or "header", scheme.parameter, variable)]
    if scheme.type == "mutualTLS":
        return [Secret("tls")]
    return []


def body_value(example: RequestExample) -> Any:
    """The example's body as a JSON value (None when it has none)."""
    return json.loads(example.body) if example.body else None


def form_pairs(value: Any, prefix: str = "") -> list[tuple[str, str]]:
    """A form body's fields as (name, value) pairs: an array's items under its name, an object's fields as
    `name[field]` (`metadata[key]`), an array of objects as `name[0][field]`."""
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in form_pairs(item, f"{prefix}[{key}]" if prefix
                                                                                 else str(key))]
    if isinstance(value, list):
        if any(isinstance(item, (dict, list)) for item in value):
            return [pair for n, item in enumerate(value) for pair in form_pairs(item, f"{prefix}[{n}]")]
        return [pair for item in value for pair in form_pairs(item, prefix)]
    text = "true" if value is True else "false" if value is False else "" if value is None else str(value)
    return [(prefix, text)]


# --- curl -------------------------------------------------------------------------------------------------------


def _double_quoted(text: str) -> str:
    """Text for inside shell double quotes (`$`, `` ` ``, `"` and `\\` escaped)."""
    return re.sub(r'([$`"\\])', r"\\\1", text)


def _single_quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _url_part(text: str) -> str:
    return quote(text, safe="<>")


_PATH_PARAMETER = re.compile(r"^\{([^}]+)\}$")
# A value as people write one: quoted, or a token holding a digit or an identifier's punctuation (`web-1`, `x7y8`,
# `nginx:latest`, `ep_123`); a plain word ("container that …") is none.
_VALUE = re.compile(r"(?<!\w)[\"'“‘]([^\"'”’]{1,100})[\"'”’](?!\w)|(\w(?:[\w\-:.@/]*\w)?)")
# Words that may stand between the item's noun and its value: "container id web-1", "employee number 12" (not
# "named": a name is no id).
_BETWEEN = frozenset({"id", "number", "no", "key", "uuid", "slug", "code"})
_WITH_ID = re.compile(r"\bwith (?:the |an? )?(id|key|uuid|name|slug|code|number)\b", re.I)  # "with id E-77": "id E-77"
_CITATION = re.compile(r"\[\d+\]")
_ID_WORDS = frozenset({"id", "ids", "key", "uuid", "name", "slug", "code", "number", "gid", "sid", "ref"})


def with_question_values(example: RequestExample, path: str, question: str) -> RequestExample:
    """The example with each path parameter the question gives a value for filled with it: the value right after
    the word naming the parameter's item (`/containers/{id}/logs` and "the logs of container web-1" →
    `/containers/web-1/logs`; `{employeeId}` and "employee 123"). Other parameters keep the spec's example or
    their `<name>` placeholder."""
    template = [segment for segment in path.partition("#")[0].strip("/").split("/") if segment]
    filled = example.url.split("?", 1)[0].rstrip("/").split("/")
    if not template or len(filled) < len(template) + 3:  # scheme, "", host before the path
        return example
    offset, url = len(filled) - len(template), list(filled)
    tokens = _value_tokens(_WITH_ID.sub(r"\1", _without_paths(question)))
    taken: set[str] = set()
    for index, segment in enumerate(template):
        parameter = _PATH_PARAMETER.match(segment)
        if parameter is None:
            continue
        before = template[index - 1] if index and not _PATH_PARAMETER.match(template[index - 1]) else ""
        value = _value_after(tokens, _item_words(parameter.group(1), before), taken)
        if value:
            taken.add(value)
            url[offset + index] = quote(value, safe=":@")
    if not taken:
        return example
    trailing = "/" if example.url.split("?", 1)[0].endswith("/") else ""
    return replace(example, url="/".join(url) + trailing)


# The formats a value a person writes in a sentence may have (not a date a sentence says otherwise).
_WRITTEN_FORMATS = frozenset({"email", "idn-email", "uri", "url", "hostname"})


def with_body_values(example: RequestExample, fields: Sequence[FieldFacts], question: str) -> RequestExample:
    """The example with each top-level field of its JSON body (of `fields`) that the question gives a value for set
    to it: the value right after the field's one-word name ("send an email from me@acme.io to bob@example.com":
    Postmark's `From` and `To`). A value of another type than the field's, outside its allowed values or pattern,
    or of a format a sentence does not write, is not set."""
    value = body_value(example) if example.body and JSON_MEDIA.search(example.media_type) else None
    if not isinstance(value, dict):
        return example
    tokens = _value_tokens(_without_paths(question))
    taken: set[str] = set()
    for field in fields:
        words = segment_words(field.name)
        if len(words) != 1 or field.read_only or field.location:
            continue
        given = _value_after(tokens, {singular(words[0])}, taken)
        typed = _typed_value(given, field) if given else None
        if typed is not None:
            value[field.name] = typed
            taken.add(given)
    return replace(example, body=json.dumps(value, ensure_ascii=False)) if taken else example


def _typed_value(given: str, field: FieldFacts) -> str | int | float | None:
    """`given` as a value of the field's type, when it is one the field allows; None otherwise."""
    kind = field.type.split(" ", 1)[0]
    typed: str | int | float | None = None
    if kind == "string" and (field.format is None or field.format in _WRITTEN_FORMATS):
        typed = given
    elif kind == "integer" and re.fullmatch(r"-?\d+", given):
        typed = int(given)
    elif kind == "number" and re.fullmatch(r"-?\d+(?:\.\d+)?", given):
        typed = float(given) if "." in given else int(given)
    if typed is None or (field.enum and str(typed) not in field.enum):
        return None
    if field.pattern and not (isinstance(typed, str) and matches_pattern(field.pattern, typed, unreadable=False)):
        return None
    return typed


def _without_paths(question: str) -> str:
    """The question without the paths and citations it quotes (no `/x/{id}`, no "[1]")."""
    return _CITATION.sub(" ", PATH_IN_TEXT.sub(" ", METHOD_PATH.sub(" ", question)))


def _value_tokens(text: str) -> list[re.Match[str]]:
    """The words and values of a text, in order (`_VALUE`)."""
    return list(_VALUE.finditer(text))


def matches_pattern(pattern: str, text: str, unreadable: bool) -> bool:
    """Whether the spec's pattern finds the text; `unreadable` for a pattern Python cannot read (a sample made
    for the spec is taken as fitting it, a value a question gives is not)."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return unreadable


def _item_words(parameter: str, before: str) -> set[str]:
    """The words that name a path parameter's item: its own name's (`employeeId` → employee) and, for a bare id,
    the segment before it (`/containers/{id}` → container)."""
    own = {singular(_without_id_suffix(word)) for word in segment_words(parameter) if word not in _ID_WORDS}
    return own or {singular(word) for word in segment_words(before)[-1:]}


def _without_id_suffix(word: str) -> str:
    """A word with an id word run onto its end left off (Postmark's `bounceid` → bounce, `signatureid` →
    signature); any other word as it is."""
    suffix = next((s for s in _ID_WORDS if word.endswith(s) and len(word) - len(s) >= 4), "")
    return word[: len(word) - len(suffix)] if suffix else word


def _value_after(tokens: Sequence[re.Match[str]], nouns: set[str], taken: set[str]) -> str:
    """The first value among the question's `tokens` right after one of `nouns` (a few connecting words allowed
    between)."""
    for position, token in enumerate(tokens):
        if token.group(2) is None or singular(token.group(2).lower()) not in nouns:
            continue
        for following in tokens[position + 1:position + 4]:
            quoted, word = following.group(1), following.group(2)
            if quoted or (word and re.search(r"[\d\-:_.@/]", word) and word not in taken):
                return quoted or word or ""
            if word is None or word.lower() not in _BETWEEN:
                break
    return ""


def curl_command(example: RequestExample) -> str:
    """The example as a curl command, one option a line."""
    found = secrets(example)
    query = [f"{_url_part(name)}={_url_part(value)}" for name, value in example.query]
    url = _double_quoted(example.url + ("?" + "&".join(query) if query else ""))
    keys = [f"{_url_part(s.name)}=${s.variable}" for s in found if s.where == "query"]
    if keys:
        url += ("&" if query else "?") + "&".join(keys)
    method = example.method.upper()
    opening = "curl -I" if method == "HEAD" else "curl" if method == "GET" else f"curl -X {method}"
    lines = [f'{opening} "{url}"']
    for secret in found:
        if secret.where == "basic":
            lines.append(f'-u "${secret.variable}:${secret.password}"')
        elif secret.where == "header":
            lines.append(f'-H "{_double_quoted(secret.name + ": " + secret.prefix)}${secret.variable}"')
        elif secret.where == "cookie":
            lines.append(f'-b "{_double_quoted(secret.name)}=${secret.variable}"')
        elif secret.where == "tls":
            lines.append("--cert client.pem --key client.key")
    lines += [f'-H "{_double_quoted(f"{name}: {value}")}"' for name, value in example.headers]
    lines += _curl_body(example)
    return " \\\n  ".join(lines)


def _curl_body(example: RequestExample) -> list[str]:
    """The curl options that send the body, by media type."""
    value, media = body_value(example), example.media_type
    if not example.body:
        return []
    if media.startswith(_MULTIPART) and isinstance(value, dict):
        return [f'-F "{_double_quoted(name)}=@{FILE_PLACEHOLDER}"' if name.split("[")[0] in example.files
                else f'-F "{_double_quoted(f"{name}={text}")}"' for name, text in form_pairs(value)]
    header = f'-H "Content-Type: {_double_quoted(media)}"'
    if media.startswith(_FORM) and isinstance(value, dict):
        return [header] + [
            f"-d {_single_quoted(f'{name}={text}')}" if _PLAIN_FORM_VALUE.match(text)
            else f"--data-urlencode {_single_quoted(f'{name}={text}')}" for name, text in form_pairs(value)]
    if JSON_MEDIA.search(media) or not isinstance(value, str):
        text = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")  # under the option
        return [header, f"-d {_single_quoted(text)}"]
    if "octet-stream" in media or value == "<file>":
        return [header, f'--data-binary "@{FILE_PLACEHOLDER}"']
    return [header, f"--data-binary {_single_quoted(value)}"]


# --- Python -----------------------------------------------------------------------------------------------------


SHORT_LITERAL = 60  # a list or dict whose literal is this short stays on one line


def _literal(value: Any, indent: int) -> str:
    """A Python literal of a JSON value (strings in double quotes), a long list or dict one item a line, its
    lines after the first indented by `indent` spaces."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, dict):
        items = [f"{_string(str(key))}: {_literal(item, indent + 4)}" for key, item in value.items()]
        opening, closing = "{", "}"
    else:
        items = [_literal(item, indent + 4) for item in value]
        opening, closing = "[", "]"
    flat = opening + ", ".join(items) + closing
    if len(flat) <= SHORT_LITERAL and "\n" not in flat:
        return flat
    inner = " " * (indent + 4)
    return opening + "\n" + "".join(f"{inner}{item},\n" for item in items) + " " * indent + closing


def _string(text: str) -> str:
    """A Python string literal in double quotes (JSON's escapes are Python's too)."""
    return json.dumps(text, ensure_ascii=False)


def _environ(variable: str) -> str:
    return f'os.environ["{variable}"]'


def python_snippet(example: RequestExample) -> str:
    """The example as a Python snippet with httpx."""
    found = secrets(example)
    method = example.method.lower()
    body = _python_body(example, body_value(example))
    plain = method in _HTTPX_METHODS and (not body or method in _HTTPX_BODY_METHODS)  # httpx.delete takes no body
    call = f"httpx.{method}" if plain else "httpx.request"
    arguments = ([] if plain else [_string(example.method.upper())]) + [_string(example.url)]
    arguments += _python_credentials(found) + _python_mappings(example, found) + body
    lines = ["import os", ""] if any(s.where != "tls" for s in found) else []
    lines += ["import httpx", "", f"response = {call}("]
    lines += [f"    {argument}," for argument in arguments]
    lines += [")", "print(response.status_code, response.text)"]
    return "\n".join(lines)


def _python_credentials(found: Sequence[Secret]) -> list[str]:
    """The `auth=` of basic credentials and the `cert=` of a client certificate."""
    arguments = [f"auth=({_environ(s.variable)}, {_environ(s.password)})" for s in found if s.where == "basic"][:1]
    if any(s.where == "tls" for s in found):
        arguments.append('cert=("client.pem", "client.key")')
    return arguments


def _python_mappings(example: RequestExample, found: Sequence[Secret]) -> list[str]:
    """The `headers=`, `params=` and `cookies=` arguments: the secrets sent there, the required parameters and
    the media type httpx does not set itself."""
    headers = [f"{_string(s.name)}: " + (f"{_string(s.prefix)} + " if s.prefix else "") + _environ(s.variable)
               for s in found if s.where == "header"]
    headers += [f"{_string(name)}: {_string(value)}" for name, value in example.headers]
    if example.body and not example.media_type.startswith((_FORM, _MULTIPART, "application/json")):
        headers.append(f'"Content-Type": {_string(example.media_type)}')
    params = [f"{_string(name)}: {_literal(value, 4)}" for name, value in _merged(example.query)]
    params += [f"{_string(s.name)}: {_environ(s.variable)}" for s in found if s.where == "query"]
    cookies = [f"{_string(s.name)}: {_environ(s.variable)}" for s in found if s.where == "cookie"]
    return [f"{name}={{" + ", ".join(entries) + "}"
            for name, entries in (("headers", headers), ("params", params), ("cookies", cookies)) if entries]


def _merged(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str | list[str]]]:
    """Query pairs with a repeated name as one entry of a list of values (httpx sends each)."""
    merged: dict[str, list[str]] = {}
    for name, value in pairs:
        merged.setdefault(name, []).append(value)
    return [(name, values[0] if len(values) == 1 else values) for name, values in merged.items()]


def _python_body(example: RequestExample, value: Any) -> list[str]:
    """The httpx keyword arguments that send the body, by media type."""
    media = example.media_type
    if not example.body:
        return []
    if media.startswith((_FORM, _MULTIPART)) and isinstance(value, dict):
        pairs = form_pairs(value)
        files = [name for name, _ in pairs if name.split("[")[0] in example.files] if media.startswith(
            _MULTIPART) else []
        data = _merged([(name, text) for name, text in pairs if name not in files])
        found = [f"data={_literal(dict(data), 4)}"] if data else []
        if files:
            found.append("files={" + ", ".join(f'{_string(name)}: open("{FILE_PLACEHOLDER}", "rb")' for name in files)
                         + "}")
        return found
    if JSON_MEDIA.search(media) or not isinstance(value, str):
        return [f"json={_literal(value, 4)}"]
    if "octet-stream" in media or value == "<file>":
        return [f'content=open("{FILE_PLACEHOLDER}", "rb").read()']
    return [f"content={_string(value)}"]


def example_view(example: RequestExample) -> dict[str, Any]:
    """The example as results, REST and MCP return it: its typed facts with the curl command and the Python
    snippet."""
    return {**example.to_dict(), "curl": curl_command(example), "python": python_snippet(example)}
