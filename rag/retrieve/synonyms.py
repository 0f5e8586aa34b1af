"""Query expansion with a glossary of the vocabulary developers use for HR, recruiting, learning and CRM APIs.

People ask about "PTO", "staff" or "applicants"; specs say `time_off`, `employees` and
`candidates`/`applications`. The glossary appends the spec's words to the query (the original
words stay), so both BM25 and the embedding see them.
"""

from __future__ import annotations

import re

GLOSSARY: dict[str, str] = {
    "pto": "time off",
    "vacation": "time off",
    "holiday": "time off",
    "on leave": "time off",
    "sick leave": "time off",
    "annual leave": "time off",
    "parental leave": "time off",
    "leave request": "time off",
    "leave requests": "time off",
    "leave balance": "time off balances",
    "leave balances": "time off balances",
    "leave rules": "time off policies",
    "leave policy": "time off policies",
    "leave policies": "time off policies",
    "leave types": "time off types",
    "absence": "time off",
    "sick": "time off",
    "staff": "employees",
    "worker": "employees",
    "workers": "employees",
    "personnel": "employees",
    "headcount": "employees",
    "hr": "hris",
    "payroll": "employments compensation",
    "salary": "compensation pay",
    "org chart": "manager departments",
    "applicant": "candidate application",
    "applicants": "candidates applications",
    "recruiting": "ats",
    "recruiter": "ats users",
    "recruiters": "ats users",
    "hiring manager": "ats users",
    "hiring managers": "ats users",
    "turn down": "reject",
    "decline": "reject",
    "feedback": "scorecards",
    "applied": "applications",
    "opening": "job",
    "openings": "jobs",
    "vacancy": "job posting",
    "vacancies": "job postings",
    "learner": "user",
    "learners": "users",
    "finished": "completion",
    "completed": "completion",
    "training": "course content",
    "lesson": "content",
    "lessons": "content",
    "customer": "account contact",
    "customers": "accounts contacts",
    "client": "account",
    "clients": "accounts",
    "lead": "contact",
    "leads": "contacts",
    "mailing": "email",
    "newsletter": "email campaign",
    "integration": "linked account",
    "integrations": "linked accounts",
    "unlink": "delete account",
    "disconnect": "delete account",
    "page through": "pagination next cursor",
    "paginate": "pagination next cursor",
    "paging": "pagination next cursor",
    "rate limit": "429 too many requests",
    "rate limited": "429 too many requests",
    "login": "authentication",
    "log in": "authentication",
    "credentials": "authentication basic",
    "token": "authentication",
    "rules": "policies",
    "function": "operation",
    "functions": "operations",
    "criteria": "filter",
}
EXPANSION_OPEN = " (glossary: "
_PATTERNS = [(re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE), words) for term, words in GLOSSARY.items()]


def expand_query(query: str) -> str:
    """The query plus the spec vocabulary for any glossary term it uses (unchanged when none)."""
    additions: list[str] = []
    for pattern, words in _PATTERNS:
        if pattern.search(query) and words not in additions:
            additions.append(words)
    return f"{query}{EXPANSION_OPEN}{'; '.join(additions)})" if additions else query


def original_query(query: str) -> str:
    """The question without the glossary words `expand_query` appended."""
    return query.split(EXPANSION_OPEN, 1)[0]
