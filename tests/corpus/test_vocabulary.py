"""The tokenizer splits identifiers; word forms meet singular/plural and common endings."""

from rag.corpus.vocabulary import normalize_term, tokenize, word_forms


def test_tokenize_splits_snake_case_paths_and_camel_case() -> None:
    tokens = tokenize("expires_in on /unified/hris/employees createdAt")
    assert {"expires_in", "expires", "unified/hris/employees", "hris", "employees", "createdat", "created"} <= set(
        tokens
    )


def test_tokenize_keeps_acronyms_whole_and_drops_stop_words() -> None:
    tokens = tokenize("Which APIs let me list the users?")
    assert "apis" not in tokens and "the" not in tokens
    assert "list" in tokens and "users" in tokens


def test_normalize_term_strips_plural_endings_only() -> None:
    assert normalize_term("Employees") == "employee"
    assert normalize_term("categories") == "category"
    assert normalize_term("address") == "address"
    assert normalize_term("bus") == "bus"


def test_word_forms_strip_common_endings() -> None:
    assert "list" in word_forms("listing")
    assert {"create", "creat"} <= word_forms("created")
    assert "delete" in word_forms("deletion")
    assert "authenticate" in word_forms("authentication")
