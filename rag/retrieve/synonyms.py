"""Query expansion with glossaries: the words developers use → the words a spec uses.

People ask about "PTO", "staff" or "applicants"; HR specs say `time_off`, `employees` and
`candidates`/`applications`. A glossary appends the spec's words to the query (the original words
stay), so both BM25 and the embedding see them.

Glossaries are optional data files (`rag/data/glossaries/NAME.toml`, or any path) that a config names.
A glossary written for one kind of API must not rewrite questions about another, so it applies to an
index only when the index's vocabulary holds most of its target words (`glossary_applies`).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rag.errors import ConfigError
from rag.query import Query

GLOSSARY_DIR = Path(__file__).resolve().parent.parent / "data" / "glossaries"
MIN_TARGET_COVERAGE = 0.6


@dataclass(frozen=True)
class Glossary:
    """A named mapping of user words (phrases) to spec words."""

    name: str
    terms: tuple[tuple[str, str], ...]

    def words(self) -> frozenset[str]:
        """Every word on either side: an engine using this glossary understands them."""
        return _words_of(self.terms, sides=2)

    def target_words(self) -> frozenset[str]:
        """The words the glossary maps to (what the spec must use for the glossary to fit it)."""
        return _words_of(self.terms, sides=1)


@lru_cache(maxsize=64)
def _words_of(terms: tuple[tuple[str, str], ...], sides: int) -> frozenset[str]:
    """The words of the terms' targets (`sides` 1) or of both their sides (2)."""
    phrases = [phrase for pair in terms for phrase in pair[2 - sides:]]
    return frozenset(word for phrase in phrases for word in re.findall(r"[a-z0-9]+", phrase.lower()))


def available_glossaries() -> tuple[str, ...]:
    """Names of the glossaries shipped with the package."""
    return tuple(sorted(path.stem for path in GLOSSARY_DIR.glob("*.toml")))


@lru_cache(maxsize=32)
def load_glossary(name_or_path: str) -> Glossary:
    """A shipped glossary by name (`hr`) or a TOML file with a `[terms]` table of "user words" = "spec words"."""
    path = Path(name_or_path)
    if not path.suffix:
        path = GLOSSARY_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        raise ConfigError(
            f"glossary {name_or_path!r} not found; allowed: {', '.join(available_glossaries())} or a .toml file path"
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"glossary {path}: cannot read it ({error})") from None
    terms = data.get("terms")
    if not isinstance(terms, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in terms.items()):
        raise ConfigError(f'glossary {path}: expected a [terms] table of "user words" = "spec words"')
    return Glossary(path.stem, tuple((k.lower(), v) for k, v in terms.items()))


def glossary_applies(glossary: Glossary, knows: Callable[[str], bool]) -> bool:
    """Whether an index (its `knows(word)`) uses most (`MIN_TARGET_COVERAGE`) of the glossary's target words."""
    targets = glossary.target_words()
    if not targets:
        return False
    return sum(1 for word in targets if knows(word)) >= MIN_TARGET_COVERAGE * len(targets)


@lru_cache(maxsize=32)
def _patterns(glossary: Glossary) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE), words) for term, words in glossary.terms)


def glossary_words(text: str, glossaries: tuple[Glossary, ...] | Mapping[str, str] = ()) -> tuple[str, ...]:
    """The spec vocabulary for every glossary term the text uses (empty when none)."""
    if isinstance(glossaries, Mapping):
        glossaries = (Glossary("inline", tuple(glossaries.items())),)
    additions: list[str] = []
    for glossary in glossaries:
        for pattern, words in _patterns(glossary):
            if pattern.search(text) and words not in additions:
                additions.append(words)
    return tuple(additions)


def expand_query(query: Query | str, glossaries: tuple[Glossary, ...] | Mapping[str, str] = ()) -> Query:
    """The query with the spec vocabulary for any glossary term it uses as its `expansions`."""
    query = Query.of(query)
    return query.expanded(glossary_words(query.standalone, glossaries))
