"""Relations between the names of one chunk, sentence by sentence: the patterns of the
ontology between two names (`local`); for a clause that names only one side, the sentence's
subject, the last name before it or the document's title entity as the other side (部长谭一鸣
after 信息技术部位于B栋3楼; "It is run by …"); appositions of a unit, a head's role word and a
person (财务部经理孙悦); lists that share one relation word (下设A、B和C); table rows; and,
as a low-confidence fallback, co-occurrence of a pair whose types exactly one relation type
allows. Words that deny or end a link (不归, 不再, not, no longer, instead of) link nothing.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from goodbuddy_kb.contracts.graph import Ontology
from goodbuddy_kb.main_process.graph.lists import lists
from goodbuddy_kb.main_process.graph.local import (
    BRACKET,
    CLAUSE_BREAK,
    COOCCURRENCE_CONFIDENCE,
    LOOSE_CONFIDENCE,
    MAX_FREE_LATIN,
    PATTERN_CONFIDENCE,
    CompiledPattern,
    Context,
    FoundRelation,
    RelationPlan,
    allowed_options,
    gap_candidates,
    negated,
    plan_for,
    sentences,
    squash,
    typed_pair,
)
from goodbuddy_kb.main_process.graph.matching import Match, fold
from goodbuddy_kb.main_process.graph.names import HEAD_ROLES, TAKES_POST
from goodbuddy_kb.main_process.graph.referents import (
    actor,
    before_title,
    business_of,
    for_business,
    modified,
    opens_sentence,
    referent,
    unnumbered,
    with_other_forms,
)
from goodbuddy_kb.main_process.graph.tables import row_relations


def relations_in(
    text: str,
    mentions: list[Match],
    type_of: dict[str, str],
    patterns: list[CompiledPattern],
    ontology: Ontology,
    folded: str | None = None,
    title: Match | None = None,
) -> list[FoundRelation]:
    """Pattern relations between mentions of one sentence; then, for a clause that names only
    one side, the sentence's topic (its first name, or ``title``, the entity the document's
    title names) as the other side; table rows; then co-occurrence for pairs that nothing
    linked and whose types exactly one relation type allows (``folded``: `fold(text)` when the
    caller has it)."""
    found: list[FoundRelation] = []
    if not mentions or (len(mentions) < 2 and title is None):
        return found
    mentions = with_other_forms(text, mentions)
    plan = plan_for(patterns, ontology)
    folded = fold(text) if folded is None else folded
    earlier: list[Match] = []
    chunk_breaks = [m.end() for m in _BREAK.finditer(folded)]
    for span, inside in _by_sentence(text, mentions):
        if not inside:
            continue
        linked: set[tuple[int, int]] = set()
        here = _pattern_relations(plan, ontology, folded, span, inside, type_of, linked)
        opens = opens_sentence(folded[span[0] : inside[0].start])
        topic, exact = (
            (None, True)
            if opens or (title is None and not earlier)
            else referent(folded, span, earlier, type_of, title)
        )
        here += _topic_relations(
            plan,
            ontology,
            folded,
            span,
            inside,
            type_of,
            linked,
            topic,
            exact,
            chunk_breaks,
            business_of(earlier, type_of) if exact and topic is title else None,
        )
        if title is not None:
            here += _object_references(plan, folded, span, inside, type_of, title)
            if opens and not here:
                here += actor(ontology, folded, span, inside[0], type_of, title)
        found += here + lists(folded, inside, here, type_of)
        found += _cooccurrences(plan, ontology, inside, type_of, linked, folded)
        earlier = inside if not earlier else [*earlier[-8:], *inside]
    if "|" in text:
        for relation, head, tail, start, end in row_relations(text, mentions, type_of, ontology):
            found.append(
                FoundRelation(relation.key, head, tail, LOOSE_CONFIDENCE, start, end, "table row")
            )
    return found


#: A count and its noun before a colon (下设四个团队：): what follows is the list it counts.
_COUNTED = re.compile(r"[一二三四五六七八九十两几多\d]+[个家名位项支类]?[\u4e00-\u9fff]{0,4}$")
#: A relative pronoun after a name reads as the name itself ("X, who heads Y" = "X heads Y").
#: A bracket and a relative clause set off by commas after a name: what follows the clause
#: is said of the name ("X (…), who heads Y, chairs Z": X chairs Z).
_INSERTED = re.compile(r"\s*(?:[（(][^（()）]{1,30}[)）])?\s*,\s*(?:who|which)\s[^,;.]{1,80},\s*")
#: An apposition may stand between ("X, Managing Director, who reports to Y").
_RELATIVE = re.compile(r"^\s*,\s*(?:[^,;]{1,40},\s*)?(who|which|that)\s+")


def _object_relative(raw: str) -> str:
    """The gap between two names with a relative clause read: the pronoun as the name before it
    ("X, who heads Y": X heads Y), unless the clause's subject is the next name ("X, which Y
    looks after": Y looks after X), where the pronoun stays for a pattern to read."""
    m = _RELATIVE.match(raw)
    if m is None:
        return raw
    rest = raw[m.end() :]
    return ", " + m.group(1) if not squash(rest).strip() else " " + rest


_BREAK = re.compile(r"[，,；;：:（）()、]|\s(?:and|but|which|who|while)\s")
_ROLE_GAP = re.compile(
    r"[^，,。；;]{0,8}?(?:" + "|".join(sorted(HEAD_ROLES, key=len, reverse=True)) + r")"
    r"\s*(?:[：:]|是|为|由)?"
)


#: What may stand between a post and the person who holds it (总经理为顾承泽, 财务总监邵雨桐).
_HOLDER_GAPS = frozenset(["", "为", "是", "由", "：", ":"])

#: The types of what is carried out in steps (a process, a project): their own documents' clauses
#: without a subject are steps of them.
_UNDERTAKINGS = ("process", "project")


def _apposition(
    ontology: Ontology, gap: str, a: Match, b: Match, type_of: dict[str, str]
) -> FoundRelation | None:
    """A unit, a head's role word and a person (财务部经理孙悦, 部长：谭一鸣): led by; a unit
    right before a person, or before 的 and a person (市场部汤磊, 客服中心的吴佩珊): member of."""
    if b.payload and type_of.get(b.payload[0]) != "person":
        return None
    role = bool(a.payload) and type_of.get(a.payload[0]) == "role"
    key = (
        "led_by"
        if (gap and _ROLE_GAP.fullmatch(gap)) or (role and gap in _HOLDER_GAPS)
        else "member_of"
        if gap in ("", "的")
        else None
    )
    relation = next((r for r in ontology.relation_types if r.key == key), None)
    if relation is None or key is None:
        return None
    person = Match(b.start, b.end, b.key, (b.payload[0],))
    for h in a.payload:
        unit = Match(a.start, a.end, a.key, (h,))
        if h == b.payload[0] or type_of.get(h) == "person":
            continue  # Jason He (贺思远): one person's two names, no relation
        if relation.allows(type_of.get(h, ""), "person"):  # the unit is led by the person
            return FoundRelation(key, unit, person, LOOSE_CONFIDENCE, a.start, b.end, key)
        if relation.allows("person", type_of.get(h, "")):  # the person is a member of it
            return FoundRelation(key, person, unit, LOOSE_CONFIDENCE, a.start, b.end, key)
    return None


#: A short reference in object position: the document's own subject ("chairs the board").
_OBJECT_REFERENCE = re.compile(
    r"^(.{1,40}?)\s*(?:\bthe (?:board|committee|department|team|project|group|company)\b"
    r"|该部门|该组|该委员会|本部门)"
)


def _object_references(
    plan: RelationPlan,
    folded: str,
    span: tuple[int, int],
    inside: list[Match],
    type_of: dict[str, str],
    title: Match,
) -> list[FoundRelation]:
    """A name, a relation word and a short reference to what the document is about (Fu
    Jiacheng … chairs the board, under the board's terms of reference)."""
    found: list[FoundRelation] = []
    for index, a in enumerate(inside):
        if a.key == title.key:
            continue
        inserted = _INSERTED.match(folded, a.end, span[1])  # "X, who heads Y, chairs …"
        begin = inserted.end() if inserted else a.end
        stop = next((z.start for z in inside[index + 1 :] if z.start >= begin), span[1])
        clause = _BREAK.split(folded[begin:stop], maxsplit=1)[0]
        m = _OBJECT_REFERENCE.match(_RELATIVE.sub(" ", BRACKET.sub("", folded[begin:stop])))
        if m is None or len(m.group(0)) > len(clause) + 40:
            continue
        gap = squash(m.group(1)).strip()
        virtual = Match(begin + m.end(), begin + m.end(), title.key, title.payload)
        for p, confidence in gap_candidates(plan, gap, adjacent=True):
            typed = typed_pair(p, a, virtual, type_of)
            if typed is not None and not negated(gap):
                sure = min(confidence, LOOSE_CONFIDENCE)
                found.append(FoundRelation(p.relation.key, *typed, sure, a.start, a.end, p.source))
                break
    return found


def _compound(a: Match, b: Match, type_of: dict[str, str]) -> bool:
    """Two units' names written as one (财务部费用核算组): the second is part of the first."""
    return (
        a.end == b.start
        and type_of.get(a.payload[0]) == "organization"
        and type_of.get(b.payload[0]) == "organization"
        and a.payload[0] != b.payload[0]
    )


#: A person, an apposition perhaps, and a copula before a post ("Tom Fletcher, our Operations
#: Manager, is also the fire warden": squashed, the copula and "also" are gone).
#: What stands between a person and the post they hold: an apposition ("Ann Lee, Managing
#: Director,"), nothing, or a copula or verb of taking office (张伟是财务部经理, 李娜担任…经理).
_COPULA = re.compile(rf"\s*(?:,[^,;]{{1,40}},)?\s*|{TAKES_POST}")


def _post_after_person(
    ontology: Ontology, a: Match, b: Match, gap: str, type_of: dict[str, str]
) -> bool:
    """A person's name, then a post's in apposition (Ann Lee, Managing Director,): the person
    holds the post."""
    bare = gap.strip().lstrip(")）").strip()  # (Grace Lim (林佳慧), our Managing Director)
    # "has been our", "also acts as our": a copula's words squash to nothing, or "acts as"
    copula = bare in ("acts as", "serves as") or (not bare and b.start - a.end > 3)
    return (
        (bare in (",", "，", "(", "（") or copula or _COPULA.fullmatch(gap) is not None)
        and any(r.key == "led_by" and r.allows("role", "person") for r in ontology.relation_types)
        and type_of.get(a.payload[0]) == "person"
        and type_of.get(b.payload[0]) == "role"
    )


def _role(a: Match, b: Match, type_of: dict[str, str]) -> bool:
    """A post's name right before a person's (财务总监邵雨桐): read as the role word it is."""
    return (
        a.end == b.start
        and type_of.get(a.payload[0]) == "role"
        and type_of.get(b.payload[0]) == "person"
    )


def _topic_relations(
    plan: RelationPlan,
    ontology: Ontology,
    folded: str,
    span: tuple[int, int],
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
    title: Match | None,
    exact: bool,
    chunk_breaks: list[int],
    business: Match | None = None,
) -> list[FoundRelation]:
    """A clause with one name: the other side is the sentence's topic (部长谭一鸣 after
    信息技术部位于B栋3楼; "It is run by …" under the department's title). ``exact``: ``title``
    may only take a clause that is nothing but a relation word and the name (下设安保组)."""
    found: list[FoundRelation] = []
    first = inside[0]
    opens = opens_sentence(folded[span[0] : first.start])
    second = {b for _a, b in linked}
    all_breaks = chunk_breaks[
        bisect_right(chunk_breaks, span[0]) : bisect_right(chunk_breaks, inside[-1].start)
    ]
    if (not all_breaks or all_breaks[-1] <= first.start) and (opens or title is None):
        return found  # one clause with its own subject: the pairs' patterns read it all
    for index, b in enumerate(inside):
        # the sentence's subject, else the last name before (部门下设X组，由Y带领), else what
        # the sentence's short reference or the document's title names
        breaks = all_breaks[: bisect_right(all_breaks, b.start)]
        start = max([span[0], *breaks])
        topic = first if opens else inside[index - 1] if index else title
        he = folded[start : start + 1] in ("他", "她") and folded[start + 1 : start + 2] != "们"
        if he:  # ，他直接向…汇报: the clause's subject is the last person named before it
            people = [m for m in inside[:index] if type_of.get(m.payload[0]) == "person"]
            topic = people[-1] if people else topic
        if not opens and folded[start - 5 : start] in (" and ", " but "):
            # "It is run by X and sits on Y": the verb is the reference's, never X's
            undertaking = title is not None and type_of.get(title.payload[0]) in _UNDERTAKINGS
            topic = None if exact and not undertaking else title
        compound = index > 0 and _compound(inside[index - 1], b, type_of)
        if topic is None or b is topic or (b.start in second and not compound):
            continue
        if b.key == topic.key:
            continue
        # a process's own document: its clauses without a subject of their own are steps of it
        # (1. 开发团队在Jira中创建变更单; 常规发布须经CAB审批)
        strict = (
            exact
            and topic is title
            and type_of.get(topic.payload[0]) not in _UNDERTAKINGS
            and business is None  # (a rule's clause about the business it named: a step of it)
        )
        if topic in inside and topic.end > start:
            continue  # the same clause as the topic: the pairs' patterns read it
        words = folded[start + he : b.start]
        if start == span[0]:
            words = unnumbered(words)  # (- IT软硬件采购须先交…: the list mark is no word)
        if start > span[0] and folded[start - 1] in "：:" and not words.strip():
            # 下设四个团队：A…: the clause before the colon says what the list is
            colon = start - 1
            start = max([span[0], *(e for e in breaks if e < colon)])
            words = _COUNTED.sub("", folded[start:colon])
            strict = False  # (委员出席：A、B: the words before the colon relate the list)
        before = inside[index - 1] if index else None
        if before is not None and before.end > start and _compound(before, b, type_of):
            # 由财务部费用核算组负责维护: the unit's name is its parent's and its own
            words = folded[start : before.start]
        elif before is not None and before.end > start and not _role(before, b, type_of):
            continue  # another name stands between
        gap = squash(words).strip()
        if negated(gap):
            continue
        virtual = Match(start, start, topic.key, topic.payload)
        apposed = _apposition(ontology, gap, virtual, b, type_of) if gap else None
        if apposed is not None:
            found.append(apposed)
            linked.add((topic.start, b.start))
            continue
        context = Context(folded, span, virtual, b)
        candidates = gap_candidates(plan, gap, adjacent=True) if gap else []
        if not candidates and type_of.get(b.payload[0]) == "person":
            # 请联系工厂IT驻场工程师严可: the words before the person's title relate them
            candidates = before_title(plan, gap)
        for p, confidence in candidates:
            if strict and confidence < PATTERN_CONFIDENCE:
                break
            typed = typed_pair(p, virtual, b, type_of) if context.fits(p) else None
            if typed is not None and business is not None and topic is title:
                typed = for_business(p, typed, virtual, business, type_of) or typed
            if typed is not None:
                # read across a clause: never surer than a loose match
                sure = min(confidence, LOOSE_CONFIDENCE)
                found.append(FoundRelation(p.relation.key, *typed, sure, start, b.end, p.source))
                linked.add((topic.start, b.start))
                break
    return found


def _by_sentence(text: str, mentions: list[Match]) -> list[tuple[tuple[int, int], list[Match]]]:
    """The mentions of each sentence, in one pass (both lists are in text order)."""
    spans = sentences(text)
    groups: list[list[Match]] = [[] for _ in spans]
    index = 0
    for m in mentions:
        while index < len(spans) and m.start >= spans[index][1]:
            index += 1
        if index < len(spans) and m.end <= spans[index][1]:
            groups[index].append(m)
    return list(zip(spans, groups, strict=True))


def _pattern_relations(
    plan: RelationPlan,
    ontology: Ontology,
    folded: str,
    span: tuple[int, int],
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
) -> list[FoundRelation]:
    """Pairs of one sentence that a pattern's literal joins; each linked pair is added to
    ``linked``. Whitespace and articles may stretch the raw text between two names beyond the
    pattern, hence the reach."""
    found: list[FoundRelation] = []
    reach = 3 * plan.longest_between + MAX_FREE_LATIN + 8
    lists_of = modified(folded, inside) if "的" in folded[span[0] : span[1]] else {}
    modifier = {k for head, first in lists_of.items() for k in range(first, head)}
    for i, a in enumerate(inside):
        for j in range(i + 1, len(inside)):
            b = inside[j]
            if b.start - a.end > reach:
                break
            if j in modifier and i not in modifier:
                continue  # (OA系统和企业微信的账号开通: the names before 的 say whose it is)
            raw = folded[a.end : b.start]
            if "(" in raw or "（" in raw or "," in raw:
                inserted = _INSERTED.match(raw) if "wh" in raw else None
                raw = raw[inserted.end() :] if inserted else raw
                raw = _object_relative(BRACKET.sub("", raw, count=1))
            gap = squash(raw)
            if negated(gap) and negated(_BREAK.split(gap)[-1]):  # the relation word's clause
                linked.add((a.start, b.start))
                continue
            if j == i + 1 and not gap.strip() and _compound(a, b, type_of):
                head = Match(b.start, b.end, b.key, (b.payload[0],))
                tail = Match(a.start, a.end, a.key, (a.payload[0],))
                found.append(
                    FoundRelation(
                        "part_of", head, tail, LOOSE_CONFIDENCE, a.start, b.end, "part_of"
                    )
                )
                linked.add((a.start, b.start))
                continue
            if j == i + 1 and _post_after_person(ontology, a, b, gap, type_of):
                person = Match(a.start, a.end, a.key, (a.payload[0],))
                post = Match(b.start, b.end, b.key, (b.payload[0],))
                found.append(
                    FoundRelation(
                        "led_by", post, person, LOOSE_CONFIDENCE, a.start, b.end, "led_by"
                    )
                )
                continue
            if j == i + 1 and type_of.get(b.payload[0]) == "person":
                bare = gap.strip().lstrip("（(").rstrip("：: ")
                apposed = (
                    None
                    if CLAUSE_BREAK.search(bare)
                    else _apposition(ontology, bare, a, b, type_of)
                )
                if apposed is not None:
                    found.append(apposed)
                    if type_of.get(a.payload[0]) != "role":  # 财务总监邵雨桐 heads a unit too
                        linked.add((a.start, b.start))
                    continue
            adjacent = j == i + 1
            if j == i + 2 and _compound(inside[i + 1], b, type_of):
                # 由质量管理部质量保证组管理: the unit's name is its parent's and its own
                gap, adjacent = squash(folded[a.end : inside[i + 1].start]), True
            elif not adjacent and lists_of.get(j, j) <= i + 1:
                # 由IT服务台统一办理OA系统和企业微信的账号开通: the names before 的 modify the
                # last one; the verb before them relates the two ends
                gap, adjacent = squash(folded[a.end : inside[i + 1].start]), True
            candidates = gap_candidates(plan, gap, adjacent=adjacent)
            if not candidates:
                continue
            context = Context(folded, span, a, b)
            single = len(a.payload) == 1 and len(b.payload) == 1
            ta, tb = type_of.get(a.payload[0], ""), type_of.get(b.payload[0], "")
            for p, confidence in candidates:
                if single and not plan.allows(p, ta, tb):
                    continue  # (the cheap test first: most patterns of a word fail on types)
                if not context.fits(p):
                    continue
                typed = typed_pair(p, a, b, type_of)
                if typed is None:
                    continue
                found.append(
                    FoundRelation(p.relation.key, *typed, confidence, a.start, b.end, p.source)
                )
                linked.add((a.start, b.start))
                break
    return found


def _cooccurrences(
    plan: RelationPlan,
    ontology: Ontology,
    inside: list[Match],
    type_of: dict[str, str],
    linked: set[tuple[int, int]],
    folded: str,
) -> list[FoundRelation]:
    """Pairs of one sentence no pattern linked, whose types exactly one relation type allows,
    unless the words between them deny the link."""
    found: list[FoundRelation] = []
    bound = {start for pair in linked for start in pair}
    for i, a in enumerate(inside):
        ta = type_of[a.payload[0]]
        for b in inside[i + 1 :]:
            if a.key == b.key or set(a.payload) & set(b.payload):
                continue
            if {a.start, b.start} & bound:
                continue  # the sentence's grammar related them already
            tb = type_of[b.payload[0]]
            if ta == tb:
                continue
            options = allowed_options(plan, ontology, ta, tb)
            if len(options) == 1 and not negated(folded[a.end : b.start]):
                r, a_is_head = options[0]
                head, tail = (a, b) if a_is_head else (b, a)
                found.append(
                    FoundRelation(
                        r.key, head, tail, COOCCURRENCE_CONFIDENCE, a.start, b.end, "co-occurrence"
                    )
                )
    return found
