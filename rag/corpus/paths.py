"""API paths as the stages read them: the resource an operation acts on, shared prefixes, path shapes."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

from rag.corpus.path_words import is_item_path, resource_segments, segment_words
from rag.corpus.vocabulary import normalize_term, singular
from rag.data import data_table


@lru_cache(maxsize=65536)
def resource_of(path: str) -> str:
    """The resource an operation acts on: the last path segment that is not a parameter, its words joined
    snake-case (`/Accounts/{AccountSid}/IncomingPhoneNumbers.json` → incoming_phone_number), a version written into
    it left out (Crucible's `/rest-service/reviews-v1` → review; `resource_words_of`)."""
    segments = resource_segments(path)
    return normalize_term("_".join(resource_words_of(segments[-1]))) if segments else ""


# A version written as a path segment (`v2`, `v1.1`) or into one (`environmentsV2`).
VERSION = re.compile(r"v\d+(?:\.\d+)*", re.IGNORECASE)


def acted_on_path(path: str) -> str:
    """The path of what an operation acts on: an RPC path without the verb segment that ends it
    (`/v1/connections/create`, `/v1/workspaces/update_name` and Mandrill's `/templates/add.json` act on
    `/v1/connections`, `/v1/workspaces`, `/templates`); any other path as it is (one ending in an item, a fragment, or
    a verb that is all it has)."""
    head, _, last = path.rstrip("/").rpartition("/")
    named = resource_segments(f"/{last}") if head and "#" not in last and not is_item_path(path) else []
    words = segment_words(named[0]) if named else []
    return head if words and words[0] in data_table("question_words")["verbs"] else path


def named_segments(path: str) -> list[str]:
    """A path's resource segments without those that are a version (`/pipelines/v2/{id}` → pipelines)."""
    return [segment for segment in resource_segments(path) if not VERSION.fullmatch(segment)]


def resource_words_of(segment: str) -> list[str]:
    """The words of a path segment that name its resource: `segment_words` without a version written into it
    (Harness's `environmentsV2` → environments), unless that is all it has."""
    words = segment_words(segment)
    return [word for word in words if not VERSION.fullmatch(word)] or words


@lru_cache(maxsize=65536)
def path_terms(path: str) -> frozenset[str]:
    """The words of a path's resource segments, singular (`/guilds/{guild_id}/bans` → guild, ban; `singular`)."""
    return frozenset(singular(word) for segment in resource_segments(path) for word in segment_words(segment))


@lru_cache(maxsize=65536)
def top_segment(api: str, path: str, prefixes: frozenset[str] = frozenset()) -> str:
    """The first resource segment below the API's shared prefix: `/unified/hris/employees/{id}/documents`
    → employees when `prefixes` (from `path_prefixes`) holds `unified` and `hris`."""
    segments = [s for s in resource_segments(path) if s != api and s not in prefixes]
    return segments[0] if segments else ""


def path_prefixes(paths: list[str]) -> frozenset[str]:
    """Leading path segments most of an API's paths share (`unified`, `hris`, `v1`, `2010-04-01`): they
    name the API or its version, not a resource. Derived from the paths, so any vendor's layout works."""
    prefixes: set[str] = set()
    if len(paths) < 2:
        return frozenset()
    for depth in range(3):
        counts = Counter(segs[depth] for segs in (resource_segments(p) for p in paths) if len(segs) > depth + 1)
        if not counts:
            break
        segment, count = counts.most_common(1)[0]
        if count < 0.8 * len(paths):
            break
        prefixes.add(segment)
    return frozenset(prefixes)


_TEMPLATE = re.compile(r"\{[^}]*\}")


@lru_cache(maxsize=65536)
def path_shape(path: str) -> str:
    """A path with every parameter written `{}` and no trailing slash (`/users/{user_id}/` → `/users/{}`)."""
    return _TEMPLATE.sub("{}", path.strip().rstrip("/").lower()) or "/"


METHOD_PATH = re.compile(r"\b(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/[^\s`'\"),;?]*)", re.IGNORECASE)
# A method and its path as prose written elsewhere names an operation: `METHOD_PATH`'s form, or "a POST request to
# `https://api.box.com/2.0/files/123/copy`" (the method is group 1, the path, without scheme and host, group 2).
METHOD_URL = re.compile(
    r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(?:(?:request|call)\s+)?(?:(?:to|on|at|against)\s+)?`?"
    r"(?:https?://[^/\s`'\"]+)?(/[^\s`'\"),;?]*)", re.IGNORECASE)
PATH_IN_TEXT = re.compile(r"(?<![\w/.:])(/[A-Za-z0-9_{}.\-]+(?:/[A-Za-z0-9_{}.\-]*)*)")


def named_paths(question: str) -> list[str]:
    """API paths a question names: `GET /users/{id}`, `/unified/hris/employees`, `/mcp`."""
    found = [m.group(1) for m in METHOD_PATH.finditer(question)]
    found += [m.group(1) for m in PATH_IN_TEXT.finditer(question)]
    return list(dict.fromkeys(p.rstrip(".") for p in found if len(p.strip("/")) >= 2))


def path_fits(asked: str, shape: str) -> bool:
    """Whether a path a question writes (in `path_shape` form) is the operation path `shape`, written the
    same or with concrete values (`/accounts/ac123/calls.json` fits `/accounts/{}/calls.json`)."""
    if asked == shape:
        return True
    if "{}" not in shape or "?" in shape:
        return False
    pattern = re.escape(shape).replace(re.escape("{}"), "[^/]+")
    return re.fullmatch(pattern, asked) is not None


def segment_action(segment: str) -> tuple[str, list[str]]:
    """The verb a segment names and the words of the resource it acts on: the last word of a dotted segment
    (API2Cart's `/product.list.json`, `/product.delete.json`: list, delete of product), or the first word of a
    segment whose words are run together that opens with a verb and ends in a singular (Etherpad's `/createPad`,
    `/deletePad`: create, delete of pad; not Spotify's `/new-releases` nor Rudder's `/changeRequests`, collections);
    ("", its words) for any other segment."""
    words = segment_words(segment)
    verbs = data_table("question_words")["verbs"]
    if "." in segment and len(words) >= 2 and words[-1] in verbs:
        return words[-1], words[:-1]
    if segment.isalnum() and len(words) >= 2 and words[0] in verbs and singular(words[-1]) == words[-1]:
        return words[0], words[1:]
    return "", words


def last_segment_action(path: str) -> tuple[str, list[str]]:
    """`segment_action` of a path's last resource segment where the path ends in it (`/createPad`); for a path that
    ends in a parameter the segment names a collection, not an act (Rudder's `/changeRequests/{changeRequestId}`: no
    change of requests): ("", its words). ("", []) for a path of no resource segment."""
    segments = resource_segments(path)
    if not segments:
        return "", []
    return ("", segment_words(segments[-1])) if is_item_path(path) else segment_action(segments[-1])
