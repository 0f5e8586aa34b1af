"""An English lexicon for the gate: which part of speech a word mostly is, and its synonyms.

It reads WordNet 3.0's database files (Debian's `wordnet-base` puts them in /usr/share/wordnet;
`make install` installs it where apt-get is available; `RAG_WORDNET_DIR` names another folder). The
lexicon is general English, not any API's vocabulary, and optional: without it `load_lexicon` returns
None and the gate works without the rule that needs it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

WORDNET_DIRS = (Path("/usr/share/wordnet"), Path("/usr/local/share/wordnet"), Path("/usr/share/wordnet-3.0"))
PARTS_OF_SPEECH = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# WordNet's own detachment rules (morphy): inflected ending → base ending, per part of speech.
_DETACH: dict[str, tuple[tuple[str, str], ...]] = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
          ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
# WordNet's lexicographer files by number: the semantic class of each synset.
LEXICOGRAPHER_FILES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location noun.motive "
    "noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process noun.quantity "
    "noun.relation noun.shape noun.state noun.substance noun.time"
).split()
_DATA_WORDS = re.compile(r"^\d{8} \d\d [nvasr] ([0-9a-f]{2}) ")


@dataclass(frozen=True)
class Lexicon:
    """WordNet's lemma index: per lemma and part of speech, its sense count, tagged-sense count and
    synset offsets; plus the irregular forms (`children` → child)."""

    directory: Path
    entries: dict[str, dict[str, tuple[int, int, tuple[int, ...]]]] = field(repr=False)
    exceptions: dict[str, dict[str, tuple[str, ...]]] = field(repr=False)

    def base_forms(self, word: str, pos: str) -> list[str]:
        """The lemmas of `word` as part of speech `pos` that WordNet lists (`listings` → listing)."""
        word = word.lower().replace(" ", "_")
        forms = [word, *self.exceptions.get(pos, {}).get(word, ())]
        forms += [
            word[: -len(end)] + base for end, base in _DETACH[pos] if word.endswith(end) and len(word) > len(end) + 1
        ]
        return [f for f in dict.fromkeys(forms) if pos in self.entries.get(f, {})]

    def usage(self, word: str) -> dict[str, float]:
        """How much `word` is used as each part of speech: tagged senses plus half the senses, summed over
        its lemmas (noun, verb, adj, adv); empty for a word WordNet does not know."""
        weights: dict[str, float] = {}
        for pos in PARTS_OF_SPEECH:
            for lemma in self.base_forms(word, pos):
                senses, tagged, _ = self.entries[lemma][pos]
                weights[PARTS_OF_SPEECH[pos]] = weights.get(PARTS_OF_SPEECH[pos], 0.0) + tagged + senses / 2
        return weights

    def is_mainly_noun(self, word: str) -> bool:
        """Whether `word` is used as a noun more than as anything else (`ledger`, `refund` yes; `handle`,
        `certain`, `left` no)."""
        weights = self.usage(word)
        noun = weights.pop("noun", 0.0)
        return noun > 0 and noun > sum(weights.values())

    def synonyms(self, word: str, pos: str = "n", senses: int = 1) -> set[str]:
        """The one-word lemmas that share one of the first `senses` synsets of `word` (WordNet orders
        senses by frequency), and its lemmas themselves (`listings` → listing, list)."""
        lemmas = self.base_forms(word, pos)
        words: set[str] = set(lemmas)
        path = self.directory / f"data.{PARTS_OF_SPEECH[pos]}"
        offsets = [o for lemma in lemmas for o in self.entries[lemma][pos][2][:senses]]
        for offset in offsets:
            words.update(_synset_words(_read_line(path, offset)))
        return {w for w in words if "_" not in w} - {word.lower()}

    def noun_class(self, word: str) -> str:
        """The semantic class of the noun's most frequent sense (`room` → noun.artifact, `hour` →
        noun.time); empty when WordNet has no such noun."""
        lemmas = self.base_forms(word, "n")
        offsets = self.entries[lemmas[0]]["n"][2] if lemmas else ()
        return _lexicographer_file(_read_line(self.directory / "data.noun", offsets[0])) if offsets else ""


def _lexicographer_file(line: str) -> str:
    """The semantic class of a data-file line's synset (`noun.artifact`, `noun.time`, …)."""
    parts = line.split(maxsplit=3)
    if len(parts) < 3 or not parts[1].isdigit():
        return ""
    number = int(parts[1])
    return LEXICOGRAPHER_FILES[number] if number < len(LEXICOGRAPHER_FILES) else ""


@lru_cache(maxsize=4096)
def _read_line(path: Path, offset: int) -> str:
    """The data-file line at byte `offset` (WordNet addresses synsets by offset); read once per process."""
    with path.open("rb") as data:
        data.seek(offset)
        return data.readline().decode("utf-8", "replace")


def _synset_words(line: str) -> list[str]:
    """The lemmas of one data-file line (`02153203 05 n 02 catalog 0 catalogue 0 …`)."""
    match = _DATA_WORDS.match(line)
    if not match:
        return []
    fields = line[match.end():].split()
    count = int(match.group(1), 16)
    return [re.sub(r"\(.*\)$", "", fields[2 * i]).lower() for i in range(count) if 2 * i < len(fields)]


def wordnet_directory() -> Path | None:
    """The folder with WordNet's `index.noun`: `RAG_WORDNET_DIR`, else a standard place; None if absent."""
    configured = os.environ.get("RAG_WORDNET_DIR")
    candidates = [Path(configured)] if configured else list(WORDNET_DIRS)
    return next((d for d in candidates if (d / "index.noun").is_file()), None)


@lru_cache(maxsize=4)
def load_lexicon(directory: Path | None = None) -> Lexicon | None:
    """The lexicon in `directory` (default: `wordnet_directory()`), read once; None when there is none."""
    directory = directory or wordnet_directory()
    if directory is None:
        return None
    entries: dict[str, dict[str, tuple[int, int, tuple[int, ...]]]] = {}
    exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos, name in PARTS_OF_SPEECH.items():
        index = directory / f"index.{name}"
        if not index.is_file():
            continue
        for line in index.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line or line.startswith(" "):
                continue
            parts = line.split()
            pointers = int(parts[3])
            senses, tagged = int(parts[2]), int(parts[5 + pointers])
            offsets = tuple(int(o) for o in parts[6 + pointers:])
            entries.setdefault(parts[0], {})[pos] = (senses, tagged, offsets)
        irregular = directory / f"{name}.exc"
        if irregular.is_file():
            table: dict[str, tuple[str, ...]] = {}
            for line in irregular.read_text(encoding="utf-8", errors="replace").splitlines():
                words = line.split()
                if len(words) >= 2:
                    table[words[0]] = tuple(words[1:])
            exceptions[pos] = table
    return Lexicon(directory, entries, exceptions) if entries else None
