"""Splitting a large schema's lines into parts of about a given number of tokens."""

from __future__ import annotations

from rag.tokens import estimate_tokens, truncate_to_tokens


def split_long_line(line: str, max_tokens: int) -> list[str]:
    """Cut one overlong line (a huge enum, say) into continuation lines at spaces."""
    if estimate_tokens(line) <= max_tokens:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    pieces: list[str] = []
    rest = line
    while estimate_tokens(rest) > max_tokens:
        head = truncate_to_tokens(rest, max_tokens) or rest[: max_tokens * 2]
        pieces.append(head)
        rest = indent + "  (continued) " + rest[len(head) :].lstrip()
    pieces.append(rest)
    return pieces


def split_field_lines(lines: list[str], max_tokens: int) -> list[list[str]]:
    """Group lines into parts of at most ~`max_tokens`, cutting before top-level fields when
    possible and inside a field only when one field alone is larger than a part."""
    fields: list[list[tuple[str, int]]] = []
    for line in (piece for raw in lines for piece in split_long_line(raw, max_tokens)):
        top_level = line.startswith("- ") or not line.startswith(" ")
        if top_level or not fields:
            fields.append([])
        fields[-1].append((line, estimate_tokens(line) + 1))
    groups: list[list[str]] = []
    current: list[str] = []
    size = 0
    for field_lines in fields:
        field_size = sum(tokens for _, tokens in field_lines)
        if field_size <= max_tokens:
            if current and size + field_size > max_tokens:
                groups.append(current)
                current, size = [], 0
            current.extend(line for line, _ in field_lines)
            size += field_size
            continue
        for line, tokens in field_lines:  # one field alone is larger than a part: cut inside it
            if current and size + tokens > max_tokens:
                groups.append(current)
                current, size = [], 0
            current.append(line)
            size += tokens
    if current or not groups:
        groups.append(current)
    return groups
