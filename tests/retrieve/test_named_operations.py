"""The operations a question names exactly: by method and path, by path alone, by operationId, or by the identifier
that ends one path alone."""

from __future__ import annotations

from dataclasses import replace

from rag.chunk import Chunk
from rag.retrieve.named_operations import OperationNames, named_operations
from tests.fakes import make_chunk


def operation(method: str, path: str, operation_id: str = "") -> Chunk:
    chunk = make_chunk(f"crm.paths.{path}.{method}", f"{method.upper()} {path}", api="crm", kind="operation")
    return replace(chunk, method=method, path=path, operation_id=operation_id, title=f"{method.upper()} {path}")


LISTS = operation("get", "/unified/crm/lists", "crm_list_lists")
LIST = operation("get", "/unified/crm/lists/{id}", "crm_get_list")
UPDATE = operation("patch", "/unified/crm/lists/{id}", "crm_update_list")
CONTACTS = operation("get", "/unified/crm/contacts", "listContacts")
SEARCH = operation("get", "/search", "search")
CALL = operation("get", "/Accounts/{AccountSid}/Calls/{Sid}.json", "FetchCall")
OPERATIONS = [LISTS, LIST, UPDATE, CONTACTS, SEARCH, CALL]


def names(question: str) -> list[list[str]]:
    return [[op.title for op in group] for group in named_operations(question, OperationNames.of(OPERATIONS))]


def test_a_method_and_path_name_one_operation_with_or_without_values() -> None:
    assert names("What does GET /unified/crm/lists/{id} return?") == [["GET /unified/crm/lists/{id}"]]
    assert names("what does get /unified/crm/lists/123 return?") == [["GET /unified/crm/lists/{id}"]]
    assert names("What does DELETE /unified/crm/lists/{id} do?") == [], "no such operation: nothing is named"
    call = "GET /Accounts/{AccountSid}/Calls/{Sid}.json"
    assert names("why does GET /Accounts/AC12/Calls/CA34.json fail?") == [[call]]
    assert names("why does GET /Accounts/AC12/Calls/CA34.xml fail?") == []


def test_a_path_alone_names_every_operation_on_it() -> None:
    assert names("what can I do on /unified/crm/lists/{id}?") == [
        ["GET /unified/crm/lists/{id}", "PATCH /unified/crm/lists/{id}"]]


def test_an_operation_id_is_named_as_an_identifier_or_in_backticks() -> None:
    assert names("What does the crm_get_list function do?") == [["GET /unified/crm/lists/{id}"]]
    assert names("how do I call listContacts?") == names("and ListContacts?") == [["GET /unified/crm/contacts"]]
    assert names("what does `search` return?") == [["GET /search"]]
    assert names("how do I search for contacts?") == [], "a plain word names no operation, even an operationId"
    assert names("is crm_get_lists a thing?") == [], "an identifier names only the operation it spells"


def test_the_identifier_that_ends_one_path_alone_names_every_operation_on_it() -> None:
    """Spoonacular: "what does the findByIngredients response look like?" names `GET /recipes/findByIngredients`
    (operationId `searchRecipesByIngredients`); it led with another operation. An identifier that ends two paths
    (`code-signing-config`), a plain word or a segment holding a parameter names none."""
    by_ingredients = operation("get", "/recipes/findByIngredients", "searchRecipesByIngredients")
    signing = [operation("get", "/2020-06-30/functions/{FunctionName}/code-signing-config"),
               operation("put", "/2020-06-30/functions/{FunctionName}/code-signing-config"),
               operation("get", "/2020-06-30/layers/{LayerName}/code-signing-config")]
    found = OperationNames.of([*OPERATIONS, by_ingredients, *signing])

    def named(question: str) -> list[list[str]]:
        return [[op.title for op in group] for group in named_operations(question, found)]

    assert named("what does the findByIngredients response look like?") == [["GET /recipes/findByIngredients"]]
    assert named("and `findbyingredients`?") == [["GET /recipes/findByIngredients"]]
    assert named("how do I set the code-signing-config?") == []
    assert named("how do I find by ingredients?") == named("what is FunctionName?") == []


def test_names_come_in_the_order_the_question_gives_each_operation_once() -> None:
    question = "difference between GET /unified/crm/lists/{id} and crm_list_lists, and GET /unified/crm/lists/42?"
    assert names(question) == [["GET /unified/crm/lists/{id}"], ["GET /unified/crm/lists"]]


def test_an_operation_named_as_what_was_done_before_is_context_not_what_is_asked() -> None:
    assert names("After GET /unified/crm/lists/{id}, how do I change the list's name?") == []
    assert names("once I have crm_get_list's result; how do I update it?") == []
    assert names("Having called listContacts, which endpoint adds one to a list?") == []
    context = named_operations("After GET /unified/crm/lists/{id}, how do I change its name?",
                               OperationNames.of(OPERATIONS), context=True)
    assert [[op.title for op in group] for group in context] == [["GET /unified/crm/lists/{id}"]]
    # What the question asks for is named outside the clause: it is named.
    assert names("After GET /unified/crm/lists, how do I call crm_update_list?") == [["PATCH /unified/crm/lists/{id}"]]
    # "after" that opens no clause before the question, or a name before it, is no context.
    assert names("What does GET /unified/crm/lists/{id} return after an update?") == [["GET /unified/crm/lists/{id}"]]
    gone = "Does crm_get_list still work after the migration, or is it gone?"
    assert names(gone) == [["GET /unified/crm/lists/{id}"]]
    assert names("How do I filter updated_after in GET /unified/crm/contacts?") == [["GET /unified/crm/contacts"]]
