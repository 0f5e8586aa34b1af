"""The words of an API path: its resource segments, the verb a fragment or segment opens with, whether it addresses
one item. Pure functions of the path, read by ingest, the ranker's inputs and the follow-up stages."""

from __future__ import annotations

import re

from rag.data import data_table

_PATH_PARAMETER = re.compile(r"^\{.*\}$")

_FORMATS = "(?:json|xml|csv|ya?ml|txt|html?)"  # a path's response format: `/Calls.json` (extension), `/containers/json`
_FORMAT_EXTENSION, _FORMAT_SEGMENT = re.compile(rf"\.{_FORMATS}$", re.I), re.compile(rf"{_FORMATS}$", re.I)


def resource_segments(path: str) -> list[str]:
    """The segments of an API path that are not parameters (`/accounts/{id}/meta` → accounts, meta), without a
    format extension or segment (`/Calls/{CallSid}.json` → Calls, Docker's `/images/json` → images). A segment
    written `@name` stands for an id, as a parameter does (Discord's `/users/@me/guilds` → users, guilds;
    `…/reactions/{emoji_name}/@me` → reactions). A fragment names what the operation does on that path (Box's
    `/files/{file_id}#add_shared_link`, `/shared_items#folders`, AWS's `/#Action=CreateQueue`): its words
    (`fragment_name`) are the last segment, without the verb they open with (`shared_link`, `folders`, `queue`;
    `path_action` reads the verb)."""
    base, _, fragment = path.partition("#")
    segments = (_FORMAT_EXTENSION.sub("", s) for s in base.strip("/").split("/"))
    kept = [s for s in segments if s and not _PATH_PARAMETER.match(s) and not _FORMAT_SEGMENT.match(s)]
    named = [s for s in kept if not s.startswith("@")] or kept
    if fragment:
        verb, rest = path_action(path)
        named.append(rest if verb else fragment_name(path))
    return named


def fragment_name(path: str) -> str:
    """What a path's fragment names: the fragment itself (`#add_shared_link`), or where it is written as a query
    (`key=value&…`, as AWS's specs write the operation of one shared path) the value of its first pair, without a
    dotted prefix (`#Action=CreateQueue` → CreateQueue, `#X-Amz-Target=Logs_20140328.CreateLogGroup` →
    CreateLogGroup, `#operation=tag-resource` → tag-resource); "" without a fragment."""
    fragment = path.partition("#")[2]
    _, equals, value = fragment.partition("&")[0].partition("=")
    return value.rpartition(".")[2] if equals and value else fragment


def path_action(path: str) -> tuple[str, str]:
    """The verb a path's fragment opens with and the words after it (`/files/{file_id}#add_shared_link` → add,
    shared_link); ("", "") for a path without such a fragment (`/shared_items#folders`: no verb). A fragment written
    as a query names an operation, verb first, whatever the verb (`/#Action=DescribeLogGroups` → describe,
    log_groups; `#X-Amz-Target=Logs_20140328.PutMetricFilter` → put, metric_filter)."""
    words = segment_words(fragment_name(path))
    if len(words) >= 2 and (words[0] in data_table("question_words")["verbs"] or "=" in path.partition("#")[2]):
        return words[0], "_".join(words[1:])
    return "", ""


def is_item_path(path: str) -> bool:
    """Whether a path addresses one item (`/accounts/{id}`, `/Calls/{CallSid}.json`) rather than a
    collection (`/accounts`, `/Calls.json`)."""
    return _FORMAT_EXTENSION.sub("", path.rstrip("/")).endswith("}")


def segment_words(segment: str) -> list[str]:
    """The lower-case words of a path segment in any naming style: `time_off`, `new-releases`,
    `IncomingPhoneNumbers` → incoming, phone, numbers."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", segment)
    return [part.lower() for part in re.split(r"[_\-.]+", spaced) if part]
