"""The tokenizer splits identifiers; word forms meet singular/plural and common endings."""

from rag.corpus.vocabulary import (
    normalize_term,
    opening_sentence,
    operation_words,
    readable_name,
    singular,
    summary_opening,
    tokenize,
    word_forms,
)


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


# (word, its singular): the word normalizer's table. Each plural meets its singular, which stays as it is.
SINGULARS = [
    ("statuses", "status"), ("status", "status"), ("policies", "policy"), ("policy", "policy"),
    ("addresses", "address"), ("address", "address"), ("employees", "employee"), ("employee", "employee"),
    ("categories", "category"), ("boxes", "box"), ("box", "box"), ("matches", "match"), ("wishes", "wish"),
    ("processes", "process"), ("access", "access"), ("analysis", "analysis"), ("bonuses", "bonus"),
    ("buses", "bus"), ("causes", "cause"), ("houses", "house"), ("responses", "response"), ("fields", "field"),
    ("apis", "api"), ("credentials", "credential"), ("entries", "entry"), ("uses", "use"), ("ids", "ids"),
    ("time_offs", "time_off"),
]


def test_singular_meets_each_plural_with_its_singular() -> None:
    assert [(word, singular(word)) for word, _ in SINGULARS] == SINGULARS


def test_word_forms_strip_common_endings() -> None:
    assert "list" in word_forms("listing")
    assert {"create", "creat"} <= word_forms("created")
    assert "delete" in word_forms("deletion")
    assert "authenticate" in word_forms("authentication")


def test_readable_name_spells_out_a_name_written_as_one_identifier() -> None:
    assert readable_name("getLatestCountryDataByName") == "get latest country data by name"
    assert readable_name("hris_list_employees") == "hris list employees"
    assert readable_name("getHTTPStatus") == "get HTTP status"
    assert readable_name("x-account-id") == "x account id"
    # Text in words, and empty text, come back as they are.
    assert readable_name("Get GIF by Id") == "Get GIF by Id"
    assert readable_name("List employees.") == "List employees."
    assert readable_name("") == ""


def test_operation_words_say_an_operation_from_its_summary_else_its_operation_id_else_its_method_and_path() -> None:
    member = "/guilds/{guild_id}/members/{user_id}"
    assert operation_words("Remove a member", "delete_guild_member", "delete", member) == "Remove a member"
    assert operation_words("getLatestCountryDataByName", "", "get", "/country") == "get latest country data by name"
    # Specs without prose: the operationId in any naming style, spelled out.
    assert operation_words("", "delete_guild_member", "delete", member) == "delete guild member"
    assert operation_words("", "getGuildMember", "get", member) == "get guild member"
    assert operation_words("", "get-an-albums-tracks", "get", "/albums/{id}/tracks") == "get an albums tracks"
    assert operation_words("", "Get the user", "get", "/users/{id}") == "Get the user"  # words already
    # Neither: the method and the path's fixed segments, parameters, format extensions and numbers left out.
    assert operation_words("", "", "DELETE", member) == "delete guilds members"
    calls = "/2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json"
    assert operation_words("", "", "GET", calls) == "get accounts incoming phone numbers"


def test_a_summary_that_runs_on_says_what_the_operation_does_in_its_first_sentence() -> None:
    """Gitea's and Twilio's summaries add caveats after what the operation does; OpenAI's open some with an aside."""
    caveat = "Create an issue. If using deadline only the date will be taken into account, and time of day ignored."
    assert summary_opening(caveat) == "Create an issue."
    assert operation_words(caveat, "issueCreateIssue", "post", "/repos/{owner}/{repo}/issues") == "Create an issue."
    assert summary_opening("  Generates audio from the input text.\n\nReturns the audio file content.") == (
        "Generates audio from the input text.")
    for aside in ("Starting a new project? We recommend trying Responses. Creates a model response.",
                  "NOTE: This endpoint requires an admin API key. Owners can list a model's permissions."):
        assert summary_opening(aside) == ""
        assert operation_words(aside, "createChatCompletion", "post", "/chat/completions") == "create chat completion"
    assert summary_opening("Get release v1.2 by tag") == "Get release v1.2 by tag"
    assert opening_sentence("One. Two.") == "One." and opening_sentence("  ") == ""
    # An abbreviation inside a sentence ends none: Trakt's "(i.e. title, overview, etc). Results are …"
    assert opening_sentence("Search all fields (i.e. title, overview, etc). Results are ordered.") == (
        "Search all fields (i.e. title, overview, etc).")
    assert opening_sentence("Lists items, e.g. files. `type` sets which.") == "Lists items, e.g. files."
    assert opening_sentence("At most 1,000 posts (eg. Bookmarks are not). Then more.") == (
        "At most 1,000 posts (eg. Bookmarks are not).")  # a mark inside parentheses ends none
    assert opening_sentence("Unclosed (paren. Still.") == "Unclosed (paren."


def test_tokenize_gives_each_words_tokens_in_order_however_often_it_is_asked() -> None:
    text = "GET /unified/hris/employees lists employeeNumber and expires_in; the employees of a company"
    first = tokenize(text)
    assert tokenize(text) == first and tokenize(text + " " + text) == first + first
    assert first[:4] == ["get", "unified/hris/employees", "unified", "hris"]
