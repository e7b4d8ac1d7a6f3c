"""What the model extractor accepts from one answer: nothing the model says is trusted. A type
outside the ontology, endpoints the relation type does not allow, a name the chunk does not
contain (folded matching, like the local matcher), a malformed answer, or more than the
per-chunk maximum is rejected and counted by reason in the run's ``Counts``; accepted names
keep their real offsets in the chunk.

A whole answer is rejected — and the chunk keeps its previous extraction — when it is empty,
not a JSON object (read with bounded nesting), lacks the two lists, came as an invalid stream,
or named things of which not one held up; ``read_answer`` says which, as a catalogue sentence
counted by its message code in ``Counts.rejected_answers``."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from goodbuddy_kb.contracts.graph import GraphRunSummary, GraphSettings, JsonMode, Ontology
from goodbuddy_kb.contracts.messages import classify
from goodbuddy_kb.main_process import boundedjson
from goodbuddy_kb.main_process.graph.matching import Matcher, normalise_name
from goodbuddy_kb.main_process.graph.model_request import MAX_NAME_CHARACTERS

#: Items read from one answer at most (a runaway answer cannot cost more than this).
MAX_ANSWER_ITEMS = 400
#: The longest answer read (the request allows ``MAX_REPLY_TOKENS`` tokens, a few characters
#: each): a longer one is refused before it is parsed, so it costs no parsing time or memory.
MAX_ANSWER_CHARACTERS = 64_000

#: Why a whole answer was rejected (catalogue sentences, "graph.answer_*").
ANSWER_EMPTY = "the answer is empty"
ANSWER_NOT_JSON = "the answer is not a JSON object"
ANSWER_SHAPE = "the answer does not hold the entities and relations lists"
ANSWER_STREAM = "the answer came as an invalid stream"
ANSWER_NOTHING_VALID = "nothing the answer named holds up against the ontology and the chunk"


def answer_too_long(limit: int) -> str:
    return f"the answer is longer than {limit} characters"


def answer_too_deep(limit: int) -> str:
    return f"the answer nests deeper than {limit} levels"


def all_rejected(count: int, first: str) -> str:
    return (
        f"no answer of the chat model could be used ({count} rejected; first: {first});"
        " the previous graph is kept"
    )


def some_rejected(count: int, first: str) -> str:
    return (
        f"{count} answers of the chat model were rejected (first: {first});"
        " their chunks keep their previous graph"
    )


def chunk_rejected(reason: str) -> str:
    return f"the chat model's answer was rejected ({reason}); the chunk keeps its previous graph"


@dataclass
class Counts:
    """A run's counts while it runs (``GraphRunSummary`` is the frozen contract of them)."""

    run_id: str
    model: str
    chunks: int = 0
    model_calls: int = 0
    unchanged: int = 0
    capped: int = 0
    failed_chunks: int = 0
    entities: int = 0
    relations: int = 0
    rejected_unknown_type: int = 0
    rejected_endpoints: int = 0
    rejected_mention: int = 0
    rejected_malformed: int = 0
    rejected_over_limit: int = 0
    #: Whole answers rejected, by the reason's message code (their chunks kept their graph).
    rejected_answers: dict[str, int] = field(default_factory=dict)
    #: The JSON mode the run asked in last (plainer once a server refused a schema).
    json_mode: JsonMode = "json_schema"

    def summary(self) -> GraphRunSummary:
        return GraphRunSummary(strategy="model", **asdict(self))

    def reject(self, reason: str) -> str:
        """Counts a whole answer rejected for ``reason`` (a catalogue sentence); returns it."""
        coded = classify(reason)
        code = coded.code if coded is not None else "graph.answer_rejected"
        self.rejected_answers[code] = self.rejected_answers.get(code, 0) + 1
        return reason


@dataclass
class Accepted:
    #: (type key, name as the model gave it, start, end) for every occurrence in the chunk
    mentions: list[tuple[str, str, int, int]] = field(default_factory=list)
    #: (relation type, head (type, name), tail (type, name), start, end)
    relations: list[tuple[str, tuple[str, str], tuple[str, str], int, int]] = field(
        default_factory=list
    )


def parse_answer(text: str) -> dict[str, Any] | str:
    """The answer's JSON object (a fenced code block or text around it tolerated), or why
    there is none (a catalogue sentence)."""
    body = text.strip()
    if not body:
        return ANSWER_EMPTY
    if len(body) > MAX_ANSWER_CHARACTERS:
        return answer_too_long(MAX_ANSWER_CHARACTERS)
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.S)
    if fenced:
        body = fenced.group(1).strip()
    if not body.startswith("{"):
        start, end = body.find("{"), body.rfind("}")
        if start < 0 or end < start:
            return ANSWER_NOT_JSON
        body = body[start : end + 1]
    try:
        value = boundedjson.loads(body)
    except boundedjson.TooDeep as exc:
        return answer_too_deep(exc.limit)
    except ValueError:
        return ANSWER_NOT_JSON
    return value if isinstance(value, dict) else ANSWER_NOT_JSON


def read_answer(
    text: str, chunk: str, ontology: Ontology, settings: GraphSettings, counts: Counts
) -> Accepted | str:
    """The accepted parts of one answer, or why the whole answer is rejected (then nothing of
    the chunk's previous extraction may be replaced). Both are counted in ``counts``."""
    answer = parse_answer(text)
    if isinstance(answer, dict):
        entities, relations = answer.get("entities", []), answer.get("relations", [])
        if not isinstance(entities, list) or not isinstance(relations, list):
            answer = ANSWER_SHAPE
    if isinstance(answer, str):
        counts.rejected_malformed += 1
        return counts.reject(answer)
    accepted = validate(answer, chunk, ontology, settings, counts)
    if (entities or relations) and not accepted.mentions:
        return counts.reject(ANSWER_NOTHING_VALID)
    return accepted


def validate(
    answer: dict[str, Any],
    text: str,
    ontology: Ontology,
    settings: GraphSettings,
    counts: Counts,
) -> Accepted:
    """The parts of ``answer`` that hold up against the ontology and the chunk; every other
    part is counted in ``counts`` by reason."""
    accepted = Accepted()
    raw_entities = answer.get("entities", [])
    raw_relations = answer.get("relations", [])
    if not isinstance(raw_entities, list) or not isinstance(raw_relations, list):
        counts.rejected_malformed += 1
        return accepted
    entity_types = {t.key for t in ontology.entity_types}
    relation_types = {t.key: t for t in ontology.relation_types}
    named: dict[str, tuple[str, str]] = {}  # normalised name → (type, name)
    for item in raw_entities[:MAX_ANSWER_ITEMS]:
        name, type_key = _field(item, "name"), _field(item, "type")
        if name is None or type_key is None:
            counts.rejected_malformed += 1
        elif type_key not in entity_types:
            counts.rejected_unknown_type += 1
        elif normalise_name(name) in named:
            continue  # the same entity twice: not a fault
        elif len(named) >= settings.max_entities_per_chunk:
            counts.rejected_over_limit += 1
        else:
            named[normalise_name(name)] = (type_key, name.strip())
    spans = _spans(text, named)
    for key, value in list(named.items()):
        if key not in spans:
            counts.rejected_mention += 1
            del named[key]
            continue
        # the chunk's own spelling names the entity (the model may change case or width)
        first = spans[key][0]
        named[key] = (value[0], text[first[0] : first[1]])
        for start, end in spans[key]:
            accepted.mentions.append((value[0], named[key][1], start, end))
    seen: set[tuple[str, str, str]] = set()
    for item in raw_relations[:MAX_ANSWER_ITEMS]:
        head, type_key, tail = _field(item, "head"), _field(item, "type"), _field(item, "tail")
        if head is None or tail is None or type_key is None:
            counts.rejected_malformed += 1
            continue
        relation = relation_types.get(type_key)
        if relation is None:
            counts.rejected_unknown_type += 1
            continue
        h, t = named.get(normalise_name(head)), named.get(normalise_name(tail))
        if h is None or t is None:
            found = _spans(text, {normalise_name(x): ("", x) for x in (head, tail)})
            if normalise_name(head) not in found or normalise_name(tail) not in found:
                counts.rejected_mention += 1
            else:  # in the chunk, but not an entity of this answer: no type to check
                counts.rejected_endpoints += 1
            continue
        if h == t or not relation.allows(h[0], t[0]):
            counts.rejected_endpoints += 1
            continue
        if (type_key, h[1], t[1]) in seen:
            continue
        if len(seen) >= settings.max_relations_per_chunk:
            counts.rejected_over_limit += 1
            continue
        seen.add((type_key, h[1], t[1]))
        h_span = spans[normalise_name(h[1])]
        t_span = spans[normalise_name(t[1])]
        # the closest pair of the two mentions is the relation's evidence
        start, end = min(
            ((min(a[0], b[0]), max(a[1], b[1])) for a in h_span for b in t_span),
            key=lambda s: s[1] - s[0],
        )
        accepted.relations.append((type_key, h, t, start, end))
    return accepted


def _field(item: object, name: str) -> str | None:
    if not isinstance(item, dict):
        return None
    value = item.get(name)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_CHARACTERS:
        return None
    return value


def _spans(text: str, names: dict[str, tuple[str, str]]) -> dict[str, list[tuple[int, int]]]:
    """Every occurrence of each name in ``text`` (folded, whole words for Latin names)."""
    if not names:
        return {}
    matcher = Matcher((value[1], key) for key, value in names.items())
    found: dict[str, list[tuple[int, int]]] = {}
    for match in matcher.find(text):
        for key in match.payload:
            found.setdefault(key, []).append((match.start, match.end))
    return found
