"""A request example as curl and Python (rag.request_example): every auth kind, path and query parameters, JSON,
form and multipart bodies; the Python is valid Python, the curl a well-formed shell command, and both send the same
request to a server on 127.0.0.1."""

from __future__ import annotations

import ast
import base64
import contextlib
import json
import re
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

import pytest

from rag.chunk import FieldFacts, RequestExample, SecurityFacts
from rag.request_example import (
    curl_command,
    example_view,
    form_pairs,
    python_snippet,
    with_body_values,
    with_question_values,
)

BASIC = SecurityFacts("basic", "http", scheme="basic", location="header", parameter="Authorization")
BEARER = SecurityFacts("token", "http", scheme="bearer", location="header", parameter="Authorization")
HEADER_KEY = SecurityFacts("key", "apiKey", location="header", parameter="X-Api-Key")
QUERY_KEY = SecurityFacts("key", "apiKey", location="query", parameter="api_key")
COOKIE_KEY = SecurityFacts("session", "apiKey", location="cookie", parameter="sid")
OAUTH = SecurityFacts("oauth", "oauth2", location="header", parameter="Authorization", flows=("authorizationCode",))


def example(**fields: Any) -> RequestExample:
    """An example POSTing a JSON body to api.acme.test, changed by `fields`."""
    base: dict[str, Any] = {"method": "POST", "url": "https://api.acme.test/v1/owners/<owner>/repos",
                            "media_type": "application/json", "body": '{"name": "it\'s \\"mine\\"", "private": true}',
                            "credential": "ACME"}
    return RequestExample(**{**base, **fields})


def words(command: str) -> list[str]:
    """The curl command as the shell splits it (line continuations joined)."""
    return shlex.split(command.replace("\\\n", " "))


def shell_words(command: str) -> list[str]:
    """The words bash passes to curl (curl a function that prints them; each `$VARIABLE` set to its own name, so
    it reads as written): an unquoted `<` or `>` would be a redirection, a word split at a space two words."""
    variables = {name: f"${name}" for name in re.findall(r"\$([A-Z][A-Z0-9_]*)", command)}
    printed = subprocess.run(["bash", "-c", "curl() { printf '%s\\0' \"$@\"; }\n" + command],
                             env={"PATH": "/usr/bin:/bin", **variables}, capture_output=True, check=True, timeout=30)
    return ["curl", *printed.stdout.decode().split("\0")[:-1]]


def check_both(found: RequestExample) -> tuple[list[str], str]:
    """The curl words and the Python snippet, after checking that each parses and that bash reads the command
    as `shlex` does."""
    command, snippet = curl_command(found), python_snippet(found)
    ast.parse(snippet)
    split = words(command)
    assert split[0] == "curl"
    if shutil.which("bash"):
        assert shell_words(command) == split
    return split, snippet


@pytest.mark.parametrize(("scheme", "curl_part", "python_part"), [
    (BASIC, ["-u", "$ACME_USERNAME:$ACME_PASSWORD"],
     'auth=(os.environ["ACME_USERNAME"], os.environ["ACME_PASSWORD"])'),
    (BEARER, ["-H", "Authorization: Bearer $ACME_API_KEY"], '"Authorization": "Bearer " + os.environ["ACME_API_KEY"]'),
    (HEADER_KEY, ["-H", "X-Api-Key: $ACME_API_KEY"], '"X-Api-Key": os.environ["ACME_API_KEY"]'),
    (OAUTH, ["-H", "Authorization: Bearer $ACME_ACCESS_TOKEN"],
     '"Authorization": "Bearer " + os.environ["ACME_ACCESS_TOKEN"]'),
    (COOKIE_KEY, ["-b", "sid=$ACME_API_KEY"], 'cookies={"sid": os.environ["ACME_API_KEY"]}'),
])
def test_each_auth_kind_sends_its_secret_from_an_environment_variable(
        scheme: SecurityFacts, curl_part: list[str], python_part: str) -> None:
    split, snippet = check_both(example(auth=(scheme,)))
    position = split.index(curl_part[0], 2)
    assert split[position:position + 2] == curl_part
    assert python_part in snippet and "import os" in snippet


def test_an_api_key_in_the_query_joins_the_url() -> None:
    split, snippet = check_both(example(method="GET", body="", media_type="", auth=(QUERY_KEY,),
                                        query=(("q", "a b"), ("type", "album"), ("type", "artist"))))
    assert split[1] == "https://api.acme.test/v1/owners/<owner>/repos?q=a%20b&type=album&type=artist" \
                       "&api_key=$ACME_API_KEY"
    assert 'params={"q": "a b", "type": ["album", "artist"], "api_key": os.environ["ACME_API_KEY"]}' in snippet


def test_two_api_keys_are_two_variables_and_mutual_tls_a_client_certificate() -> None:
    app_id = SecurityFacts("app", "apiKey", location="header", parameter="x-app-id")
    split, snippet = check_both(example(auth=(HEADER_KEY, app_id, SecurityFacts("mtls", "mutualTLS"))))
    assert "X-Api-Key: $ACME_X_API_KEY" in split and "x-app-id: $ACME_X_APP_ID" in split
    assert "--cert" in split and 'cert=("client.pem", "client.key")' in snippet


def test_no_auth_no_secret_and_no_os_import() -> None:
    split, snippet = check_both(example(method="GET", body="", media_type=""))
    assert split == ["curl", "https://api.acme.test/v1/owners/<owner>/repos"]
    assert "import os" not in snippet and "httpx.get(" in snippet


def test_a_json_body_survives_the_shell_quoting_and_python_has_it_as_a_literal() -> None:
    found = example(headers=(("x-account-id", "<x-account-id>"),))
    split, snippet = check_both(found)
    assert split[split.index("-d") + 1] and json.loads(split[split.index("-d") + 1]) == json.loads(found.body)
    assert split[split.index("x-account-id: <x-account-id>") - 1:][:2] == ["-H", "x-account-id: <x-account-id>"]
    call = ast.parse(snippet).body[-2].value  # response = httpx.post(...)
    body = next(keyword.value for keyword in call.keywords if keyword.arg == "json")  # type: ignore[attr-defined]
    assert ast.literal_eval(body) == json.loads(found.body)


def test_a_form_body_is_sent_field_by_field() -> None:
    found = example(media_type="application/x-www-form-urlencoded", body=json.dumps(
        {"To": "<To>", "Body": "Hi there", "metadata": {"order": "6735"}, "Events": ["a", "b"]}))
    split, snippet = check_both(found)
    assert split[split.index("To=<To>") - 1:][:2] == ["-d", "To=<To>"]
    assert split[split.index("Body=Hi there") - 1:][:2] == ["--data-urlencode", "Body=Hi there"]
    assert "metadata[order]=6735" in split and split.count("Events=a") == 1
    assert 'data={' in snippet and '"metadata[order]": "6735"' in snippet and '"Events": ["a", "b"]' in snippet


def test_form_pairs_flatten_objects_and_arrays_as_form_encoding_does() -> None:
    assert form_pairs({"a": 1, "b": {"c": True}, "d": [{"e": None}], "f": ["x", "y"]}) == [
        ("a", "1"), ("b[c]", "true"), ("d[0][e]", ""), ("f", "x"), ("f", "y")]


def test_a_multipart_upload_sends_its_file_fields_as_files() -> None:
    found = example(media_type="multipart/form-data", body=json.dumps({"file": "<file>", "purpose": "batch"}),
                    files=("file",))
    split, snippet = check_both(found)
    assert "file=@<path to file>" in split and "purpose=batch" in split
    assert 'files={"file": open("<path to file>", "rb")}' in snippet and 'data={"purpose": "batch"}' in snippet


def test_a_delete_with_a_body_and_a_head_request() -> None:
    _, snippet = check_both(example(method="DELETE"))
    assert 'httpx.request(\n    "DELETE",' in snippet
    split, snippet = check_both(example(method="HEAD", body="", media_type=""))
    assert split[:2] == ["curl", "-I"] and "httpx.head(" in snippet


def test_other_media_types_send_the_text_or_a_file() -> None:
    split, snippet = check_both(example(media_type="application/sdp", body='"v=0"'))
    assert split[-2:] == ["--data-binary", "v=0"] and 'content="v=0"' in snippet
    assert '"Content-Type": "application/sdp"' in snippet
    split, snippet = check_both(example(media_type="application/octet-stream", body='"<file>"'))
    assert split[-2:] == ["--data-binary", "@<path to file>"] and 'content=open("<path to file>", "rb")' in snippet


def test_the_view_holds_the_typed_facts_and_both_snippets() -> None:
    found = example(auth=(BEARER,))
    view = example_view(found)
    assert view["curl"] == curl_command(found) and view["python"] == python_snippet(found)
    assert RequestExample.from_dict(view) == found


# --- both send the same request ---------------------------------------------------------------------------------


class Recorder(BaseHTTPRequestHandler):
    """Records each request it gets (method, path, query, headers, body) and answers 200."""

    seen: ClassVar[list[dict[str, Any]]] = []

    def _record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        parts = urlsplit(self.path)
        Recorder.seen.append({"method": self.command, "path": parts.path, "query": parse_qs(parts.query),
                              "headers": {k.lower(): v for k, v in self.headers.items()},
                              "body": self.rfile.read(length) if length else b""})
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _record  # noqa: N815 - the names http.server calls

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def recording_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sent_by_both(found: RequestExample, env: dict[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request the curl command sends and the one the Python snippet sends."""
    Recorder.seen = []
    subprocess.run(["bash", "-c", curl_command(found) + " --silent --show-error --output /dev/null"],
                   env={"PATH": "/usr/bin:/bin", **env}, check=True, timeout=30)
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        exec(compile(python_snippet(found), "<snippet>", "exec"), {})  # noqa: S102 - our own generated snippet
    assert len(Recorder.seen) == 2
    return Recorder.seen[0], Recorder.seen[1]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("kind", ["json-basic", "form-query-key", "get-bearer"])
def test_curl_and_python_send_the_same_request(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    env = {"ACME_USERNAME": "ada", "ACME_PASSWORD": "s3cret", "ACME_API_KEY": "k-123"}
    with recording_server() as base:
        found = {
            "json-basic": example(url=f"{base}/v1/repos", auth=(BASIC,), headers=(("x-account-id", "acc 1"),)),
            "form-query-key": example(url=f"{base}/v1/messages", auth=(QUERY_KEY,), query=(("dry", "true"),),
                                      media_type="application/x-www-form-urlencoded",
                                      body=json.dumps({"To": "+15550100", "Body": "Hi & bye", "Tags": ["a", "b"]})),
            "get-bearer": example(method="GET", url=f"{base}/v1/search", body="", media_type="", auth=(BEARER,),
                                  query=(("q", "kind of blue"), ("type", "album"))),
        }[kind]
        by_curl, by_python = sent_by_both(found, env)
    for key in ("method", "path", "query"):
        assert by_curl[key] == by_python[key], key
    for header in ("authorization", "x-account-id"):
        assert by_curl["headers"].get(header) == by_python["headers"].get(header), header
    if kind == "json-basic":
        assert by_curl["headers"]["authorization"] == "Basic " + base64.b64encode(b"ada:s3cret").decode()
        assert json.loads(by_curl["body"]) == json.loads(by_python["body"]) == json.loads(found.body)
    if kind == "form-query-key":
        assert by_curl["query"] == {"dry": ["true"], "api_key": ["k-123"]}
        assert parse_qs(by_curl["body"].decode()) == parse_qs(by_python["body"].decode()) == {
            "To": ["+15550100"], "Body": ["Hi & bye"], "Tags": ["a", "b"]}
    if kind == "get-bearer":
        assert by_curl["headers"]["authorization"] == "Bearer k-123"
        assert by_curl["query"] == {"q": ["kind of blue"], "type": ["album"]}
    assert "200" in capsys.readouterr().out


@pytest.mark.parametrize(("path", "url", "question", "filled"), [
    ("/containers/{id}/logs", "https://<host>/v1.33/containers/<id>/logs",
     "how do I get the logs of my running container web-1 from docker?", "https://<host>/v1.33/containers/web-1/logs"),
    ("/images/{name}/tag", "https://<host>/images/<name>/tag", "how do I tag image nginx:latest as myrepo/nginx:v2?",
     "https://<host>/images/nginx:latest/tag"),
    ("/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret/rotate/",
     "https://api.svix.com/api/v1/app/app_1sr/endpoint/<endpoint_id>/secret/rotate/",
     "rotate the secret of endpoint ep_2ab in app app_9", "https://api.svix.com/api/v1/app/app_9/endpoint/ep_2ab/secret/rotate/"),
    ("/v2/companies/{companyId}/employees/{employeeId}", "https://api.x.test/v2/companies/<companyId>/employees/<employeeId>",
     "get the employee with id E-77 of company 'ACME CO'", "https://api.x.test/v2/companies/ACME%20CO/employees/E-77"),
    ("/employees/{id}/documents", "https://api.x.test/employees/<id>/documents",
     "don't fetch employee x1's documents twice", "https://api.x.test/employees/x1/documents"),  # no quote in "don't"
    ("/bounces/{bounceid}/activate", "https://api.postmarkapp.com/bounces/<bounceid>/activate",  # an id run on
     "reactivate bounce 692560173", "https://api.postmarkapp.com/bounces/692560173/activate"),
])
def test_a_path_parameter_takes_the_value_the_question_names_after_its_item(
    path: str, url: str, question: str, filled: str
) -> None:
    example = RequestExample("GET", url, query=(("all", "true"),))
    assert with_question_values(example, path, question) == RequestExample("GET", filled, query=(("all", "true"),))


@pytest.mark.parametrize("question", [
    "how do I get an employee?",  # no value
    "create a server with 2 cpus for an employee",  # a number, not after the item's noun
    'get the employee named "Ann Lee"',  # a name is no id
    "list the employees that joined",  # a plain word is no value
])
def test_a_question_naming_no_value_for_the_item_leaves_the_spec_s_example(question: str) -> None:
    example = RequestExample("GET", "https://api.x.test/v2/companies/acme/employees/<employeeId>")
    assert with_question_values(example, "/v2/companies/{companyId}/employees/{employeeId}", question) == example


def test_a_body_field_takes_the_value_the_question_names_after_it() -> None:
    """Postmark: "send an email from me@acme.io to bob@example.com" sent `"From": "<From>"` and no `To`. A value
    of another type, outside the allowed values or pattern, or for a field of more words or a date is not set."""
    example = RequestExample("POST", "https://api.postmarkapp.com/email", media_type="application/json",
                             body='{"Bcc": "<Bcc>", "From": "<From>"}')
    fields = (FieldFacts("Bcc", "string"), FieldFacts("From", "string"), FieldFacts("To", "string"),
              FieldFacts("Count", "integer"), FieldFacts("TrackLinks", "string", enum=("None", "HtmlOnly")),
              FieldFacts("SendAt", "string", format="date-time"), FieldFacts("ReplyTo", "string"))
    filled = with_body_values(example, fields, "send an email from me@acme.io to bob@example.com, count x7, "
                                               "tracklinks html-1, sendat 2024-01-01, reply to a@b.co")
    assert json.loads(filled.body) == {"Bcc": "<Bcc>", "From": "me@acme.io", "To": "bob@example.com"}
    assert with_body_values(example, fields, "count 3").body == '{"Bcc": "<Bcc>", "From": "<From>", "Count": 3}'
    assert with_body_values(example, fields, "how do I send an email?") == example
