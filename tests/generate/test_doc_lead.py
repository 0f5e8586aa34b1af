"""The lead of an answer from documentation sections (`rag.generate.doc_lead`): the statement that answers, chosen
by what the section's headings and its text say of the question, then where it stands."""

from __future__ import annotations

from rag.chunk import Chunk
from rag.generate.context import build_context
from rag.generate.doc_lead import docs_lead, statements
from rag.generate.lead import lead_for
from rag.query import Query
from tests.fakes import make_chunk, retrieved
from tests.generate.test_lead import EMPLOYEES


def section(path: str, body: str, url: str = "https://docs.acme.test/guide.html") -> Chunk:
    """A documentation section as the HTML chunker makes it: its breadcrumb, its heading, its paragraphs."""
    title = path.split(" > ")[-1]
    slug = path.lower().replace(" > ", "/").replace(" ", "-")
    return make_chunk(f"acme.doc.guide/{slug}", f"{path}\n\n{title}\n\n{body}", api="acme", kind="doc",
                      title=title, source=url, section_path=path)


RATE = section("Rate limits", "Each API key may make 100 requests per minute. Over it you get HTTP 429.",
               "https://docs.acme.test/limits.html")
BURSTS = section("Rate limits > Bursts", "Bursts of 20 requests per second are fine.",
                 "https://docs.acme.test/limits.html")
KEYS = section("Authentication > API keys", "Create a key in the dashboard.\n\nSend your API key in the "
               "`X-Acme-Key` header.", "https://docs.acme.test/auth.html")
SIGNATURES = section("Webhooks > Signature header", "Each delivery carries an `X-Acme-Signature` header keyed "
                     "with your signing secret.", "https://docs.acme.test/webhooks.html")


def lead(question: str, *chunks: Chunk) -> tuple[str, str]:
    found = lead_for(question, build_context(retrieved(*chunks), 4000))
    return found.sentence, found.detail


def test_the_section_named_by_the_question_leads_with_its_opening_statement_and_its_url() -> None:
    assert lead("What is the rate limit?", BURSTS, SIGNATURES, RATE) == (
        "Each API key may make 100 requests per minute. Over it you get HTTP 429. [3]",
        "From Rate limits, https://docs.acme.test/limits.html [3]")


def test_the_statement_saying_what_the_headings_do_not_wins_over_a_sibling_titled_with_a_question_word() -> None:
    sentence, detail = lead("Which header carries the API key?", SIGNATURES, KEYS)
    assert sentence == "Send your API key in the `X-Acme-Key` header. [2]"
    assert detail == "From Authentication > API keys, https://docs.acme.test/auth.html [2]"


def test_statements_leave_out_the_breadcrumb_headings_and_code() -> None:
    chunk = section("Guide > Install", "Run the installer.\n\n```sh\npip install acme\n```\n\n- Then sign in.")
    blocks = build_context(retrieved(chunk), 4000)
    assert statements(blocks[0]) == ["Run the installer.", "Then sign in."]


def test_an_operation_keeps_the_lead_and_no_documentation_gives_none() -> None:
    sentence, _ = lead("How do I list employees?", RATE, EMPLOYEES)
    assert sentence.startswith("Use GET /unified/hris/employees")
    assert docs_lead(Query.of("What is the rate limit?"), build_context(retrieved(EMPLOYEES), 4000)) == ("", "", 0)


def test_below_a_better_ranked_section_an_operation_leads_only_by_what_it_is_about() -> None:
    """"how do I get the next page of results?" over a guide's Pagination section, ranked first, and another API's
    operations below it: Notion's `GET /v1/pages/{id}` shares the verb and the word "page" with the question, and
    the lead used to say how Notion's comments page. The section states the answer; an operation that the question
    names by what it is about still leads ("How do I list employees?")."""
    from dataclasses import replace

    from rag.chunk import PaginationFacts

    paging = section("Pagination", "List endpoints return at most 100 items. Pass the `starting_after` cursor "
                     "from the last item to get the next page.")
    page = replace(make_chunk("notion.paths./v1/pages/{id}.get", "GET /v1/pages/{id}", api="notion",
                              kind="operation"), method="get", path="/v1/pages/{id}", summary="Retrieve a Page")
    comments = replace(make_chunk("notion.paths./v1/comments.get", "GET /v1/comments", api="notion",
                                  kind="operation"), method="get", path="/v1/comments", summary="Retrieve comments",
                       pagination=PaginationFacts("cursor", cursor="start_cursor", size="page_size"))
    sentence, _ = lead("how do I get the next page of results?", paging, page, comments)
    assert sentence.startswith("List endpoints return at most 100 items.") and sentence.endswith("[1]")
    assert lead("How do I list employees?", RATE, EMPLOYEES)[0].startswith("Use GET /unified/hris/employees")


def overview(description: str, *prose: tuple[str, str]) -> Chunk:
    """An API's overview as ingest makes it: its description as one line, and its statements under their
    headings (none: an overview indexed before they were kept)."""
    from dataclasses import replace

    from rag.chunk import ProseStatement

    chunk = make_chunk("cloud.overview", "API overview: Cloud API  [cloud API]", api="cloud", kind="overview",
                       title="Cloud API overview", source="cloud.json")
    return replace(chunk, description=description, prose=tuple(ProseStatement(h, t) for h, t in prose))


CLOUD = overview(
    "The Cloud API manages servers. Rate Limiting. All requests are rate limited. Current limits:; 3600 requests "
    "per hour; 60 per minute. Authentication. Send your token in the `Authorization` header.",
    ("", "The Cloud API manages servers."),
    ("Rate Limiting", "All requests are rate limited. Current limits:"),
    ("Rate Limiting", "3600 requests per hour"), ("Rate Limiting", "60 per minute."),
    ("Authentication", "Send your token in the `Authorization` header."))


def test_an_apis_description_answers_under_its_heading_with_the_list_a_statement_introduces() -> None:
    """DigitalOcean's "Current rate limits:" is followed by the limits, as list items; Hetzner's rate limit
    stands under its description's "Rate Limiting" heading, where no sentence says "rate limit" in full."""
    assert lead("What's the rate limit of the cloud api?", CLOUD) == (
        "All requests are rate limited. Current limits: 3600 requests per hour; 60 per minute. [1]",
        "From Cloud API overview > Rate Limiting, cloud.json [1]")
    assert lead("How do I authenticate?", CLOUD)[0] == "Send your token in the `Authorization` header. [1]"


def test_a_description_statement_that_only_names_the_api_answers_nothing() -> None:
    """"The documentation for the StackOne API." is no answer to "How do I list tickets from the StackOne ticketing
    API?": a description says its API's name everywhere."""
    described = overview("The documentation for the Cloud API.", ("", "The documentation for the Cloud API."))
    assert docs_lead(Query.of("How do I list tickets from the Cloud API?"),
                     build_context(retrieved(described), 4000)) == ("", "", 0)
    # Nor one saying half of what the question asks: Paylocity's "For general questions and support of the API,
    # contact: …" is no answer to "does paylocity support webhooks?".
    contact = overview("For support, contact: help@cloud.test.", ("", "For support, contact: help@cloud.test."))
    assert docs_lead(Query.of("does the cloud api support webhooks?"),
                     build_context(retrieved(contact), 4000)) == ("", "", 0)


def test_an_overview_indexed_before_its_statements_were_kept_reads_its_description_by_sentence() -> None:
    older = overview("Intro. The Cloud API manages servers. Rate Limiting. Each token may send 3600 requests an hour.")
    assert statements(build_context(retrieved(older), 4000)[0]) == [
        "The Cloud API manages servers.", "Each token may send 3600 requests an hour."]


def test_a_statement_introducing_an_example_comes_with_its_code_which_never_leads_alone() -> None:
    """Docker's "The body of the response will be JSON in the following format:" is followed by the format, as code;
    a guide's fenced example likewise."""
    from dataclasses import replace

    from rag.chunk import ProseStatement

    errors = replace(CLOUD, prose=(
        ProseStatement("Errors", "The API uses HTTP status codes. Errors come as JSON in the following format:"),
        ProseStatement("Errors", '{\n  "message": "page not found"\n}', code=True)))
    assert lead("How are errors returned?", errors)[0] == (
        'The API uses HTTP status codes. Errors come as JSON in the following format: `{ "message": "page not '
        'found" }`. [1]')
    guide = section("Errors", 'Errors come as JSON like this:\n\n```json\n{"error": "bad_request"}\n```')
    assert lead("What do errors look like?", guide)[0] == (
        'Errors come as JSON like this: `{"error": "bad_request"}`. [1]')
    assert statements(build_context(retrieved(guide), 4000)[0]) == ["Errors come as JSON like this:"]


def test_paging_no_operation_s_facts_describe_is_answered_from_the_api_s_description() -> None:
    """Hetzner's list operations have no paging parameters in the spec; its description's "Pagination" section says
    how they page. An operation whose facts say how it pages still answers."""
    from dataclasses import replace

    from rag.chunk import FieldFacts, PaginationFacts, ProseStatement

    paged = replace(CLOUD, prose=(ProseStatement("Pagination", "Lists page with the `page` and `per_page` query "
                                                               "parameters; `per_page` is at most 50."),))
    servers = make_chunk("cloud.paths./servers.get", "GET /servers  [cloud API]", api="cloud", kind="operation",
                         title="GET /servers", method="get", path="/servers", summary="Get all Servers")
    sentence, detail = lead("how do I page through my servers?", servers, paged)
    assert sentence.startswith("Lists page with the `page` and `per_page` query parameters")
    assert detail.startswith("From Cloud API overview > Pagination")
    listing = replace(servers, parameters=(FieldFacts("page", "integer", "query"),),
                      pagination=PaginationFacts("page", page="page"))
    assert lead("how do I page through my servers?", listing, paged)[0].startswith("GET /servers pages by page")


def test_a_section_titled_with_the_kind_asked_answers_with_the_statement_that_shows_how() -> None:
    """Snyk declares no security scheme; its description's "Authorization" section says how, though no word of it is
    "authenticate": the statement naming the header, with its example (one block of code: what follows it is said of
    something else), leads above the operation ranked first."""
    from dataclasses import replace

    from rag.chunk import ProseStatement

    snyk = replace(CLOUD, prose=(
        ProseStatement("Authorization", "To use this API, you must get your token from Snyk. It can be seen on your "
                                        "account page after you register and login."),
        ProseStatement("Authorization", "The token should be supplied in an `Authorization` header with the token, "
                                        "preceded by `token`:"),
        ProseStatement("Authorization", "Authorization: token API_KEY", code=True),
        ProseStatement("Authorization", 'Otherwise, a 401 "Unauthorized" response will be returned.'),
        ProseStatement("Authorization", "HTTP/1.1 401 Unauthorized", code=True)))
    clone = make_chunk("cloud.paths./integrations/{id}/clone.post", "POST /integrations/{id}/clone  [cloud API]",
                       api="cloud", kind="operation", title="POST /integrations/{id}/clone", method="post",
                       path="/integrations/{id}/clone", summary="Clone an integration (with settings and credentials)")
    sentence, detail = lead("how do I authenticate?", clone, snyk)
    assert sentence == ("The token should be supplied in an `Authorization` header with the token, preceded by "
                        "`token`: `Authorization: token API_KEY`. [2]")
    assert detail == "From Cloud API overview > Authorization, cloud.json [2]"
