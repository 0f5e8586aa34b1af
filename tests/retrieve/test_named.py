"""Named operations: the operations whose path a question names join its candidate pool."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk
from rag.retrieve.named import MAX_NAMED_OPERATIONS, add_named_operations, named_operations
from tests.fakes import make_chunk, retrieved


def operation(method: str, path: str, api: str = "twilio") -> Chunk:
    chunk = make_chunk(f"{api}.paths.{path}.{method}", f"{method.upper()} {path}", api=api, kind="operation")
    return replace(chunk, method=method, path=path, title=f"{method.upper()} {path}")


CALLS = "/2010-04-01/Accounts/{AccountSid}/Calls.json"
LIST_CALLS, MAKE_CALL = operation("get", CALLS), operation("post", CALLS)
ONE_CALL = operation("get", "/2010-04-01/Accounts/{AccountSid}/Calls/{Sid}.json")
BETA = operation("get", "/responses/{response_id}?beta=true", "openai")
PLAIN = operation("get", "/responses/{response_id}", "openai")
OPERATIONS = [LIST_CALLS, MAKE_CALL, ONE_CALL, BETA, PLAIN]


def test_a_named_path_brings_its_operations_the_stated_method_only() -> None:
    question = "What is the largest `PageSize` when I call GET /2010-04-01/Accounts/{AccountSid}/Calls.json?"
    assert named_operations(question, OPERATIONS) == [LIST_CALLS]
    # Parameters may be written any way; without a method every operation on the path counts.
    both = [LIST_CALLS, MAKE_CALL]
    assert named_operations("What does /2010-04-01/Accounts/{sid}/Calls.json return?", OPERATIONS) == both
    assert named_operations("What does /2010-04-01/Accounts/AC123/Calls.json return?", OPERATIONS) == both
    assert named_operations("What does GET /2010-04-01/Accounts/AC1/Calls/CA9.json return?", OPERATIONS) == [
        ONE_CALL
    ]
    assert named_operations("How do I list calls?", OPERATIONS) == []
    assert named_operations(question, OPERATIONS, apis=("openai",)) == []


def test_a_path_keyed_with_a_query_is_named_only_when_written_whole() -> None:
    assert named_operations("Which headers does GET /responses/{response_id}?beta=true take?", OPERATIONS) == [BETA]
    assert named_operations("Which headers does GET /responses/{response_id} take?", OPERATIONS) == [PLAIN]


def test_named_operations_join_the_pool_once_with_a_note() -> None:
    pool = retrieved(ONE_CALL)
    grown, note = add_named_operations(pool, [LIST_CALLS, ONE_CALL])
    assert [c.chunk for c in grown] == [ONE_CALL, LIST_CALLS] and grown[1].scores == {"named": 1.0}
    assert "GET /2010-04-01/Accounts/{AccountSid}/Calls.json" in note
    assert add_named_operations(pool, [ONE_CALL]) == (pool, "")


def test_a_pasted_listing_of_many_paths_names_no_one_operation() -> None:
    many = [operation("get", f"/things/{i}") for i in range(MAX_NAMED_OPERATIONS + 1)]
    listing = " ".join(f"GET /things/{i}" for i in range(MAX_NAMED_OPERATIONS + 1))
    assert named_operations(listing, many) == []
