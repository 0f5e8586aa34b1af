"""The learned ranker's features (rag/rerank/features.py): what each reads of the question and the candidate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rag.chunk import FieldFacts, RequestBodyFacts
from rag.corpus.profile import CorpusProfile
from rag.query import Query
from rag.rerank.features import (
    ABSENT_RANK,
    FEATURE_NAMES,
    OVERLAP_PARTS,
    CandidateInputs,
    chunk_words,
    feature_matrix,
    lead_text,
    name_text,
    question_signals,
)
from rag.results import RetrievedChunk
from tests.fakes import make_chunk

NOTES = make_chunk(
    "pd.paths./incidents/{id}/notes.post", "POST /incidents/{id}/notes", kind="operation", method="post",
    path="/incidents/{id}/notes", operation_id="createIncidentNote", summary="Create a note on an incident",
    request_body=RequestBodyFacts(("application/json",), True, "Note", fields=(FieldFacts("content", "string"),)),
)
NOTE = make_chunk(
    "pd.paths./incidents/{id}/notes/{note_id}.put", "PUT /incidents/{id}/notes/{note_id}", kind="operation",
    method="put", path="/incidents/{id}/notes/{note_id}", operation_id="updateIncidentNote",
    description="Update an existing note. <p>Only the author may edit it.</p>",
)
SCHEMA = make_chunk("pd.components.Note", "Note", title="Note", kind="schema",
                    schema_fields=(FieldFacts("content", "string"),))


def profile() -> CorpusProfile:
    found = CorpusProfile(1, ["pd"], operations=[NOTES, NOTE])
    found.verb_methods = {}
    return found


def candidates(*scores: dict[str, float]) -> list[RetrievedChunk]:
    return [RetrievedChunk(chunk, dict(given), rank) for rank, (chunk, given) in
            enumerate(zip((NOTES, NOTE, SCHEMA), scores, strict=False), start=1)]


def matrix(question: str, found: list[RetrievedChunk], lead: tuple[float, ...] = (0.6, 0.4, 0.2)) -> np.ndarray:
    signals = question_signals(Query(question), profile(), (), False)
    words = [chunk_words(c.chunk, frozenset()) for c in found]
    inputs = CandidateInputs(found, words, [0.5, 0.4, 0.3][: len(found)], lead[: len(found)], [0.1, 0.2, 0.3])
    return feature_matrix(signals, inputs, profile())


def column(rows: np.ndarray, name: str) -> list[float]:
    return [round(float(v), 3) for v in rows[:, FEATURE_NAMES.index(name)]]


def test_a_row_per_candidate_and_a_column_per_feature_in_the_candidates_order() -> None:
    rows = matrix("How do I add a note to an incident?", candidates({}, {}, {}))
    assert rows.shape == (3, len(FEATURE_NAMES)) and rows.dtype == np.float32
    assert column(rows, "fused_rank") == [1.0, 0.5, 0.333]
    assert column(rows, "kind_operation") == [1.0, 1.0, 0.0] and column(rows, "kind_schema") == [0.0, 0.0, 1.0]


def test_the_questions_verb_meets_the_operations_method() -> None:
    rows = matrix("How do I create a note on an incident?", candidates({}, {}, {}))
    assert column(rows, "method_match") == [1.0, 0.0, 0.0]
    assert column(rows, "method_mismatch") == [0.0, 1.0, 0.0]
    assert column(rows, "asks_write") == [1.0, 1.0, 1.0]


def test_the_resource_and_its_parents_named_by_the_question() -> None:
    rows = matrix("How do I add a note to an incident?", candidates({}, {}, {}))
    assert column(rows, "resource_match") == [1.0, 1.0, 0.0]
    assert column(rows, "parents_named") == [1.0, 1.0, 0.0] and column(rows, "path_depth") == [2.0, 2.0, 0.0]
    assert column(rows, "item_path") == [0.0, 1.0, 0.0] and column(rows, "path_parameters") == [1.0, 2.0, 0.0]


def test_scores_become_gaps_to_the_best_and_ranks_absent_ones_last() -> None:
    rows = matrix("add a note", candidates({"bm25": 4.0}, {}, {"bm25": 2.0}))
    assert column(rows, "bm25_share") == [1.0, 0.0, 0.5]
    assert column(rows, "bm25_rank") == [1.0, round(1 / ABSENT_RANK, 3), 0.5]
    assert column(rows, "lead_gap") == [0.0, 0.2, 0.4] and column(rows, "vector_gap") == [0.0, 0.1, 0.2]


def test_word_overlap_is_the_idf_weighted_share_of_the_questions_words() -> None:
    rows = matrix("note content", candidates({}, {}, {}))
    assert column(rows, "overlap_body") == [0.5, 0.0, 0.0]  # `content` is a field of the body only
    assert column(rows, "overlap_name")[2] == 1.0  # the schema's name and field


def test_each_parts_overlap_is_the_share_of_the_questions_words_found_in_that_part() -> None:
    """The overlaps of all parts at once (one look-up per word in each chunk's parts) are each part's `share`."""
    words = [chunk_words(chunk, frozenset()) for chunk in (NOTES, NOTE, SCHEMA)]
    for question in ("note content", "update the notes of an incident", "create incidents", "nothing in common"):
        signals = question_signals(Query(question), profile(), (), False)
        shares = signals.part_shares(words)
        assert shares.shape == (3, len(OVERLAP_PARTS))
        for row, chunk in zip(shares, words, strict=True):
            assert list(row) == [signals.share(getattr(chunk, part)) for part in OVERLAP_PARTS]
    assert signals.part_shares([]).shape == (0, len(OVERLAP_PARTS))


def test_short_texts_say_what_a_chunk_does_in_words() -> None:
    assert lead_text(NOTES) == "Create a note on an incident"
    assert lead_text(NOTE) == "Update an existing note."  # no summary: the description's first sentence, no tags
    assert name_text(NOTE) == "update incident note" and name_text(SCHEMA) == "note"


def test_a_summary_that_runs_on_leads_with_its_first_sentence() -> None:
    """Gitea's `POST /repos/{owner}/{repo}/issues` adds a caveat to its summary; whole, the caveat outweighs
    "Create an issue" when compared with "how do I create an issue?"."""
    issues = make_chunk(
        "gitea.paths./repos/{owner}/{repo}/issues.post", "POST /repos/{owner}/{repo}/issues", kind="operation",
        method="post", path="/repos/{owner}/{repo}/issues", operation_id="issueCreateIssue",
        summary="Create an issue. If using deadline only the date will be taken into account, and time of day "
                "ignored.",
    )
    assert lead_text(issues) == "Create an issue."
    # An opening aside (a question, a labelled note) says nothing of what it does: the operationId says it.
    for summary in ("Starting a new project? Creates a model response.",
                    "NOTE: This endpoint requires an admin API key. Owners can list a model's permissions."):
        assert lead_text(replace(issues, summary=summary)) == "issue create issue"


def test_an_operation_with_no_words_of_its_own_is_said_from_its_method_path_and_required_fields() -> None:
    """An API Gateway export says nothing of `POST /documents` but its method, path and body: the lead text says
    what those amount to ("upload a pdf" has words to meet there); one the spec names by an operationId keeps its
    title's words, as the ranker was trained."""
    body = RequestBodyFacts(("application/json",), True, "", fields=(
        FieldFacts("content", "string", required=True),
        FieldFacts("contentType", "string", required=True, enum=("application/pdf", "image/png")),
        FieldFacts("kind", "integer", required=True, enum=("1", "4")), FieldFacts("name", "string"),
    ))
    upload = make_chunk("lt.paths./documents.post", "POST /documents", kind="operation", method="post",
                        path="/documents", request_body=body)
    assert lead_text(upload) == "create documents with content, content type (application/pdf, image/png), kind"
    trainings = make_chunk("lt.paths./models/{modelId}/trainings.get", "GET /models/{modelId}/trainings",
                           kind="operation", method="get", path="/models/{modelId}/trainings")
    assert lead_text(trainings) == "list trainings of models"
    one = make_chunk("lt.paths./models/{modelId}.delete", "DELETE /models/{modelId}", kind="operation",
                     method="delete", path="/models/{modelId}")
    assert lead_text(one) == "delete models"
    named = make_chunk("lt.paths./documents.put", "PUT /documents", kind="operation", method="put",
                       path="/documents", operation_id="replaceDocuments", request_body=body)
    assert lead_text(named) == "PUT /documents"


def test_another_action_of_an_rpc_apis_resource_is_on_the_subjects_resource() -> None:
    """Airbyte's `POST /v1/workspaces/update_name` acts on what `POST /v1/workspaces/create` made: "rename it" after
    creating a workspace asks about the subject's resource, not another."""
    create, rename, sources = (
        make_chunk(f"ab.paths.{path}.post", f"POST {path}", kind="operation", method="post", path=path)
        for path in ("/v1/workspaces/create", "/v1/workspaces/update_name", "/v1/sources/create")
    )
    found = [RetrievedChunk(chunk, {}, rank) for rank, chunk in enumerate((create, rename, sources), start=1)]
    query = Query("rename it", subject=create.covers[0])
    signals = question_signals(query, CorpusProfile(1, ["ab"], operations=[create, rename, sources]), (), False)
    inputs = CandidateInputs(found, [chunk_words(c.chunk, frozenset()) for c in found], [0.5] * 3, [0.5] * 3,
                             [0.5] * 3)
    rows = feature_matrix(signals, inputs, profile())
    assert column(rows, "subject") == [1.0, 0.0, 0.0]
    assert column(rows, "subject_resource") == [1.0, 1.0, 0.0]
