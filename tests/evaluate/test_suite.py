"""The evaluation suite on two tiny sets with their own tiny specs (hashing embedder, no model)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rag.config import PRESETS
from rag.errors import ConfigError
from rag.evaluate.questions import QuestionSetError, load_questions
from rag.evaluate.suite import Corpus, corpus_index, load_suite, run_suite
from rag.evaluate.suite_results import SetResult, SuiteReport, format_suite_api_table, macro_average, suite_markdown
from rag.index.embedder import HashingEmbedder
from rag.index.store import Index
from rag.runner import Engine
from tests.conftest import FIXTURES


def write_suite(folder: Path) -> Path:
    """Two corpora (people, shop), a tuning set from a file and a generated validation set."""
    shutil.copy(FIXTURES / "specs" / "people-3.1.json", folder / "people-3.1.json")
    shutil.copy(FIXTURES / "specs" / "shop-3.0.yaml", folder / "shop-3.0.yaml")
    people = [
        {"id": "p1", "question": "How do I list the employees of the company?", "answerable": True,
         "relevant_ids": ["people-3_1.paths./unified/hris/employees.get"]},
        {"id": "p2", "question": "What's the weather forecast in Berlin today?", "answerable": False,
         "relevant_ids": []},
    ]  # fmt: skip
    (folder / "people.jsonl").write_text("\n".join(json.dumps(q) for q in people) + "\n", encoding="utf-8")
    suite = folder / "suite.toml"
    suite.write_text(
        """
[suite]
k = 5
configs = ["C2", "full"]

[corpora.people]
specs = ["people-3.1.json"]

[corpora.shop]
specs = ["shop-3.0.yaml"]

[[sets]]
name = "people-hand"
role = "tuning"
corpus = "people"
questions = "people.jsonl"

[[sets]]
name = "shop-generated"
role = "validation"
corpus = "shop"
generate = { per_api = 12, seed = 3 }
""",
        encoding="utf-8",
    )
    return suite


def test_a_suite_runs_every_set_on_its_own_index_and_saves_one_table(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path))
    indexes: dict[str, Index] = {}

    def engine_for(corpus: Corpus) -> Engine:
        index = corpus_index(corpus, tmp_path / "suite" / corpus.name, lambda folder: Index(folder, HashingEmbedder()))
        indexes[corpus.name] = index
        return Engine(index, default_llm="extractive")

    out = tmp_path / "out"
    report = run_suite(suite, [PRESETS["C2"], PRESETS["full"]], engine_for, out)
    assert [s.name for s in report.sets] == ["people-hand", "shop-generated"]
    assert indexes["people"].snapshot().apis() == ["people-3_1"]
    assert indexes["shop"].snapshot().apis() == ["shop-3_0"]
    people, shop = report.sets
    assert (people.questions, people.answerable, people.out_of_scope) == (2, 1, 1)
    assert shop.role == "validation" and shop.questions == 12 and shop.out_of_scope >= 1
    assert people.metrics["C2"]["out_of_scope_abstention"] == 0.0  # C2 has no gate
    assert people.metrics["full"]["out_of_scope_abstention"] == 1.0
    saved = json.loads((out / "latest.json").read_text(encoding="utf-8"))
    assert saved["configs"] == ["C2", "full"]
    assert [s["role"] for s in saved["sets"]] == ["tuning", "validation"]
    assert saved["macro_validation"]["full"]["hit_rate"] == shop.metrics["full"]["hit_rate"]
    table = (out / "latest.md").read_text(encoding="utf-8")
    assert "shop-generated" in table and "validation macro average" in table
    assert (out / "records" / "shop-generated" / "full.jsonl").is_file()
    assert "keyword recall" not in table and shop.metrics["full"]["keyword_recall"] is None  # retrieval only
    assert "By the API" not in table and saved["sets"][0]["by_api"] == {}  # each set asks about one API
    # A second run reuses the indexes: nothing is re-embedded or re-added.
    again = corpus_index(suite.corpora["shop"], tmp_path / "suite" / "shop", lambda f: indexes["shop"])
    assert again.snapshot().generation == indexes["shop"].snapshot().generation
    # With answers, the extractive answers' keyword recall is a column of its own.
    answered = run_suite(suite.select(["shop-generated"]), [PRESETS["full"]], engine_for, tmp_path / "answers",
                         retrieval_only=False)
    recall = answered.sets[0].metrics["full"]["keyword_recall"]
    assert recall is not None and 0.0 < recall <= 1.0
    assert "answer keyword recall" in (tmp_path / "answers" / "latest.md").read_text(encoding="utf-8")


def test_full_beats_c2_and_the_macro_average_skip_missing_figures() -> None:
    better = SetResult("a", "validation", "x", 2, 2, 0, {
        "C2": {"hit_rate": 0.5, "mrr": 0.4, "recall": 0.5, "false_abstention_rate": 0.0,
               "out_of_scope_abstention": None},
        "full": {"hit_rate": 0.5, "mrr": 0.45, "recall": 0.5, "false_abstention_rate": 0.0,
                 "out_of_scope_abstention": None},
    })  # fmt: skip
    worse = SetResult("b", "validation", "x", 2, 1, 1, {
        "C2": {"hit_rate": 1.0, "mrr": 1.0, "recall": 1.0, "false_abstention_rate": 0.0,
               "out_of_scope_abstention": 0.0},
        "full": {"hit_rate": 1.0, "mrr": 0.5, "recall": 1.0, "false_abstention_rate": 0.0,
                 "out_of_scope_abstention": 1.0},
    })  # fmt: skip
    assert better.full_beats_c2() is True and worse.full_beats_c2() is False
    average = macro_average([better, worse], ["C2", "full"])
    assert average["full"]["mrr"] == pytest.approx(0.475)
    assert average["full"]["out_of_scope_abstention"] == 1.0  # only the set that has such questions


def test_bad_suite_files_name_the_problem(tmp_path: Path) -> None:
    suite = write_suite(tmp_path)
    text = suite.read_text(encoding="utf-8")
    suite.write_text(text.replace('role = "validation"', 'role = "held"'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"role='held' is not allowed; allowed: 'tuning', 'validation'"):
        load_suite(suite)
    suite.write_text(text.replace('corpus = "shop"', 'corpus = "shoe"'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"corpus='shoe' is not allowed; allowed: 'people', 'shop'"):
        load_suite(suite)
    suite.write_text(text.replace('specs = ["shop-3.0.yaml"]', 'specs = ["missing.yaml"]'), encoding="utf-8")
    with pytest.raises(ConfigError, match="not found") as missing:
        load_suite(suite)
    assert "fetch" not in str(missing.value)
    # Specs that are downloaded name the command that fetches them.
    fetched = 'specs = ["public_specs"]\nfetch = "make public-specs"'
    suite.write_text(text.replace('specs = ["shop-3.0.yaml"]', fetched), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"public_specs; fetch them with `make public-specs`"):
        load_suite(suite)
    with pytest.raises(ConfigError, match="unknown set"):
        load_suite(write_suite(tmp_path)).select(["nope"])


def test_lenient_import_names_each_unknown_id_and_scores_it_unmatched(tmp_path: Path, fixture_index) -> None:  # type: ignore[no-untyped-def]
    questions = [
        {"id": "a", "question": "How do I list employees?", "answerable": True,
         "relevant_ids": ["people-3_1.paths./unified/hris/employees.get"]},
        {"id": "b", "question": "What is the basic auth scheme?", "answerable": True,
         "relevant_ids": ["people-3_1.components.nope_scheme"]},
    ]  # fmt: skip
    path = tmp_path / "third-party.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in questions) + "\n", encoding="utf-8")
    with pytest.raises(QuestionSetError, match=r"nope_scheme.*--unknown-ids warn"):
        load_questions(path, fixture_index)
    warnings: list[str] = []
    loaded = load_questions(path, fixture_index, unknown_ids="warn", warnings=warnings)
    assert [q.id for q in loaded] == ["a", "b"]
    assert len(warnings) == 1 and "third-party.jsonl:2" in warnings[0] and "nope_scheme" in warnings[0]
    assert loaded[1].relevant_ids == ("people-3_1.components.nope_scheme",)


def test_a_security_scheme_label_resolves_to_the_overview_that_describes_it(tmp_path: Path, fixture_index) -> None:  # type: ignore[no-untyped-def]
    covered = sorted(i for i in fixture_index.structural_ids() if ".components.securitySchemes." in i)
    assert covered, "the fixture specs declare a security scheme"
    api, _, name = covered[0].partition(".components.securitySchemes.")
    path = tmp_path / "seed.jsonl"
    question = {"id": "s", "question": "How do I authenticate?", "answerable": True,
                "relevant_ids": [f"{api}.components.{name}"]}  # fmt: skip
    path.write_text(json.dumps(question) + "\n", encoding="utf-8")
    loaded = load_questions(path, fixture_index)
    assert loaded[0].relevant_ids == (covered[0],)


def test_the_projects_own_suite_parses_and_its_question_files_load() -> None:
    root = Path(__file__).resolve().parents[2]
    suite = load_suite(root / "eval_data" / "suite.toml", check_files=False)
    roles = {spec.name: spec.role for spec in suite.sets}
    assert roles["cross-api-four-vendors"] == roles["cross-api-public-apis"] == "validation"
    assert roles["cross-api-tuning"] == "tuning"
    for spec in suite.sets:
        assert spec.corpus in suite.corpora
        if spec.questions is None or "shared" in spec.questions.parts:
            continue  # generated, or a file of ../shared (checked where the data is)
        questions = load_questions(spec.questions)
        assert len({q.id for q in questions}) == len(questions), spec.name
        if spec.name.startswith("cross-api-"):
            # each request needs an operation of two different APIs
            assert all(len({i.split(".")[0] for i in q.relevant_ids}) == 2 for q in questions), spec.name


def test_the_sets_about_several_apis_get_a_table_by_api() -> None:
    """A set on an index of two vendors says, per API its questions are about, how often the first result is right
    and how often another API's chunk came first; a set about one API adds no row."""
    figures = {"n": 20, "hit@1": 0.1, "hit@5": 0.35, "mrr": 0.183, "another_api_first": 0.6}
    two = SetResult("zoom-lucidtech", "validation", "zl", 64, 56, 8, {"full": {"hit_rate": 0.75}},
                    {"full": {"lucidtech": figures, "zoom": {**figures, "n": 30, "another_api_first": 0.0}}})
    one = SetResult("dev", "tuning", "stackone", 86, 71, 15, {"full": {"hit_rate": 0.93}})
    report = SuiteReport("suite.toml", ["full"], 5, [two, one])
    table = format_suite_api_table(report).splitlines()
    assert table[0] == "| set | config | API | n | hit@1 | hit@5 | MRR | another API first |"
    assert table[2:] == ["| zoom-lucidtech | full | lucidtech | 20 | 0.100 | 0.350 | 0.183 | 0.600 |",
                         "| zoom-lucidtech | full | zoom | 30 | 0.100 | 0.350 | 0.183 | 0.000 |"]
    assert suite_markdown(report).endswith("\n".join(table))
    assert report.to_dict()["sets"][0]["by_api"]["full"]["zoom"]["n"] == 30
    assert format_suite_api_table(SuiteReport("suite.toml", ["full"], 5, [one])) == ""
