"""The tools' arguments: one model per tool, the limits every other layer uses, and no other key.

The published input schema says ``additionalProperties: false`` and the call recorder checks each
call against the same model before a tool runs, so a mistyped key (``library`` for
``libraries``) is refused with a clear tool error instead of being ignored — ignoring it searched
every library. Messages name the field and never echo the value.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from goodbuddy_kb.contracts.external import CITATION_FORMAT, DEFAULT_EXTERNAL_TOP_K
from goodbuddy_kb.contracts.limits import (
    MAX_LIBRARIES_PER_REQUEST,
    MAX_LIBRARY_NAME_CHARACTERS,
    MAX_QUERY_CHARACTERS,
    MAX_TOP_K,
)

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_QUERY_CHARACTERS,
        description=f"What to look for, in any language (1–{MAX_QUERY_CHARACTERS:,} characters).",
    ),
]
LibraryRefs = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_LIBRARY_NAME_CHARACTERS * 4)]] | None,
    Field(
        min_length=1,
        max_length=MAX_LIBRARIES_PER_REQUEST,
        description=(
            f"Library names or ids from list_libraries (at most {MAX_LIBRARIES_PER_REQUEST}); "
            "omit to search every available library."
        ),
    ),
]
TopK = Annotated[
    int,
    Field(ge=1, le=MAX_TOP_K, description=f"How many passages to return (1–{MAX_TOP_K})."),
]
CitationId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=200,
        description=f"A citation id from knowledge_search: {CITATION_FORMAT}.",
    ),
]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchArgs(_Closed):
    query: Query
    libraries: LibraryRefs = None
    top_k: TopK = DEFAULT_EXTERNAL_TOP_K


class ReferenceArgs(_Closed):
    citation_id: CitationId


class NoArgs(_Closed):
    pass


ARGUMENTS: dict[str, type[BaseModel]] = {
    "list_libraries": NoArgs,
    "knowledge_search": SearchArgs,
    "get_reference_context": ReferenceArgs,
}


def closed_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema that refuses keys it does not list."""
    return {**schema, "additionalProperties": False}


def _problem(tool: str, error: Any) -> str:
    field = ".".join(str(p) for p in error["loc"]) or "arguments"
    if error["type"] == "extra_forbidden":
        known = ", ".join(ARGUMENTS[tool].model_fields) or "no arguments"
        return f"{field}: unknown argument ({tool} takes {known})"
    return f"{field}: " + str(error["msg"]).removeprefix("Value error, ")


def describe(tool: str, exc: ValidationError) -> str:
    """What is wrong with a call's arguments, field by field, never echoing them."""
    problems = [_problem(tool, e) for e in exc.errors(include_input=False, include_url=False)]
    return f"Invalid arguments for {tool}: " + "; ".join(problems)


def check_arguments(tool: str, arguments: dict[str, Any]) -> str | None:
    try:
        ARGUMENTS[tool].model_validate(arguments)
    except ValidationError as exc:
        return describe(tool, exc)
    return None
