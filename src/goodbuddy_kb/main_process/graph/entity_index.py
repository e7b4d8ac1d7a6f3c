"""The library's entities by type and name, read once for a local extraction run: thousands of
discovered names resolved without a query each, new ones and their aliases written in one batch;
a person named in the other script (苗若琳, Miao Ruolin) resolves to the one entity
(``romanise``)."""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Sequence

from goodbuddy_kb.main_process.graph.matching import normalise_name
from goodbuddy_kb.main_process.graph.romanise import pairs
from goodbuddy_kb.main_process.ids import now_iso

#: A company's legal form at the end of its name: the name without it is how the company's own
#: notes call it ("Hongjin Pharma Singapore – who we are" for … Singapore Pte. Ltd.).
_LEGAL_FORM = re.compile(
    r"(?:,?\s+(?:Pte\.?|Pty\.?|Co\.,?)?\s*(?:Ltd|Limited|Inc|LLC|GmbH|Corp)\.?|(?:股份)?有限(?:责任)?公司)$"
)
_CJK = re.compile(r"[\u4e00-\u9fff]{2,}")
#: A system named by a Latin name and the word for a system (CRM系统, OA平台, the ITSM portal):
#: the Latin name alone is the system's too, and names it in either language.
_LATIN_WITH_KIND_WORD = re.compile(
    r"([A-Za-z][A-Za-z0-9]{1,11})(?:\s*(?:系统|平台)|\s(?:[Ss]ystem|[Pp]latform|[Pp]ortal|[Cc]onsole))"
)
#: The words after a unit's name that say it is one (normalised: lower case, a space before).
UNIT_WORDS = (" team", " department", " group", " office", " unit", " division", " section")


class Entities:
    """The library's entities by (type, normalised name or alias), read once: resolution of
    thousands of discovered names without a query each; new ones are written in one batch."""

    def __init__(self, conn: sqlite3.Connection, library_id: str) -> None:
        self._library_id = library_id
        self._ids: dict[tuple[str, str], str] = {}
        for entity_id, type_key, key in conn.execute(
            "SELECT id, type_key, normalized FROM graph_entities WHERE library_id = ?",
            (library_id,),
        ):
            self._ids[(type_key, key)] = entity_id
        for entity_id, type_key, key in conn.execute(
            "SELECT a.entity_id, e.type_key, a.normalized FROM graph_aliases a"
            " JOIN graph_entities e ON e.id = a.entity_id WHERE a.library_id = ?",
            (library_id,),
        ):
            self._ids.setdefault((type_key, key), entity_id)
        self._new: list[tuple[str, str, str, str, str]] = []
        self._now = now_iso()
        self._aliases: list[tuple[str, str, str, str]] = []
        #: (type, name, other name) a text gave as one thing's where both were known
        self._same: list[tuple[str, str, str]] = []

    def resolve(self, type_key: str, name: str, key: str | None = None) -> str:
        """``key``: ``normalise_name(name)`` when the caller has it."""
        key = normalise_name(name) if key is None else key
        entity_id = self._ids.get((type_key, key))
        latin = None
        if entity_id is None and type_key == "system":  # (a known name is read no further)
            latin = _LATIN_WITH_KIND_WORD.fullmatch(name.strip())
            if latin is not None:  # the ITSM portal is the ITSM平台 named before
                entity_id = self._ids.get((type_key, normalise_name(latin.group(1))))
                if entity_id is not None:
                    self.alias(entity_id, type_key, name)
        if entity_id is None:
            entity_id = uuid.uuid4().hex
            self._ids[(type_key, key)] = entity_id
            self._new.append((entity_id, type_key, name.strip(), key, self._now))
            short = _LEGAL_FORM.sub("", name.strip()) if type_key == "organization" else ""
            if short != name.strip() and (len(short.split()) >= 2 or _CJK.fullmatch(short)):
                self.alias(entity_id, type_key, short)
            if latin is not None:  # CRM系统 is "the CRM" too
                self.alias(entity_id, type_key, latin.group(1))
        return entity_id

    def resolve_with(
        self, type_key: str, name: str, aliases: Sequence[str], key: str | None = None
    ) -> str:
        """``resolve`` for a name given with others of the same thing ("the HQ Application
        Development team (应用开发组)"): where the name is new and one of the others is known
        already, the name is that entity's alias; the others become the entity's aliases."""
        key = normalise_name(name) if key is None else key
        entity_id = self._ids.get((type_key, key))
        if entity_id is None:
            entity_id = next(
                (
                    self._ids[(type_key, k)]
                    for k in (normalise_name(a) for a in aliases)
                    if (type_key, k) in self._ids
                ),
                None,
            )
            if entity_id is not None:
                self.alias(entity_id, type_key, name)
        if entity_id is None:
            entity_id = self.resolve(type_key, name, key)
        for alias in aliases:
            other_key = normalise_name(alias)
            other = self._ids.get((type_key, other_key))
            if other is not None and other != entity_id:  # the text says they are one
                self._same.append((type_key, key, other_key))
            self.alias(entity_id, type_key, alias)
        return entity_id

    def said_same(self) -> list[tuple[str, str]]:
        """The pairs of entities (ids, as written) a text gave as one thing's two names where
        both were known already ("The International Business Department (国际业务部)" after
        notes that named each): ``units.same_thing`` folds them once the relations are in."""
        pairs = []
        for type_key, a, b in self._same:
            ids = (self._ids.get((type_key, a)), self._ids.get((type_key, b)))
            if ids[0] is not None and ids[1] is not None and ids[0] != ids[1]:
                pairs.append((ids[0], ids[1]))
        return pairs

    def known(self, type_key: str, key: str) -> bool:
        return (type_key, key) in self._ids

    def names(self) -> set[str]:
        """The normalised names and aliases of every entity known so far, of any type."""
        return {key for _type, key in self._ids}

    def latin_names(self, types: tuple[str, ...]) -> list[tuple[str, str]]:
        """(normalised name or alias, type) of every Latin name of these types."""
        return [(k, t) for t, k in self._ids if t in types and k.isascii()]

    def alias(self, entity_id: str, type_key: str, alias: str) -> None:
        key = normalise_name(alias)
        if key and (type_key, key) not in self._ids:
            self._ids[(type_key, key)] = entity_id
            self._aliases.append((entity_id, self._library_id, alias.strip(), key))

    def _link_people(self) -> None:
        """A person new in this run and named in the other script by another person (new or
        known) is that person: their name becomes its alias (the known one keeps its name; of
        two new ones, the name in Chinese characters).
        Only where the romanisation fits exactly one person each way (``romanise.pairs``)."""
        forms: dict[str, list[str]] = {}
        for (type_key, key), entity_id in self._ids.items():
            if type_key == "person":
                forms.setdefault(entity_id, []).append(key)
        order = {e[0]: n for n, e in enumerate(self._new)}
        latin = {e[0] for e in self._new if e[2].isascii()}
        merged: dict[str, str] = {}  # gone → kept
        for a, b in pairs(forms):
            if {a, b} & (merged.keys() | set(merged.values())):
                continue
            if a in order and b in order and (a in latin) != (b in latin):
                # both new: the name in Chinese characters is the person's own, the other its
                # romanisation (a Chinese window listed colleagues as "Nie Xiaochuan", 聂晓川
                # only an alias, because an English note named them first; a helper's try)
                keep, gone = (b, a) if a in latin else (a, b)
            elif a in order and b in order:
                keep, gone = (a, b) if order[a] < order[b] else (b, a)
            elif a in order or b in order:
                keep, gone = (b, a) if a in order else (a, b)
            else:
                continue  # both from earlier runs: a person merges them (graph tab)
            merged[gone] = keep
        self._merge(merged)

    def _merge(self, gone: dict[str, str], as_type: str | None = None) -> None:
        """The new entities in ``gone`` merged into the entity each maps to: their names become
        its aliases (found under ``as_type``, the kept entity's type, where that differs)."""
        if not gone:
            return
        for entity_id, _type, name, key, _at in self._new:
            if entity_id in gone:
                self._aliases.append((gone[entity_id], self._library_id, name, key))
        self._new = [e for e in self._new if e[0] not in gone]
        self._ids = {
            ((as_type or t, k) if e in gone else (t, k)): gone.get(e, e)
            for (t, k), e in self._ids.items()
        }
        self._aliases = [(gone.get(e, e), lib, a, k) for e, lib, a, k in self._aliases]

    def _units_not_people(self) -> None:
        """A "person" or a unit new in this run whose name with a unit's word after it is a unit
        ("Regulatory Affairs is headed by …" beside "the Regulatory Affairs team") is that unit,
        named without the word: its alias, and no entity of its own."""
        units = {
            key[: -len(word)]: entity_id
            for (type_key, key), entity_id in self._ids.items()
            if type_key == "organization"
            for word in UNIT_WORDS
            if key.endswith(word) and len(key) > len(word)
        }
        gone = {
            entity_id: units[key]
            for entity_id, type_key, _name, key, _at in self._new
            if type_key in ("person", "organization") and units.get(key, entity_id) != entity_id
        }
        self._merge(gone, "organization")

    def write(self, conn: sqlite3.Connection) -> None:
        self._units_not_people()
        self._link_people()
        inserted = conn.executemany(
            "INSERT OR IGNORE INTO graph_entities (id, library_id, type_key, name, normalized,"
            " created_by, created_at) VALUES (?, ?, ?, ?, ?, 'local', ?)",
            [(i, self._library_id, t, n, k, at) for i, t, n, k, at in self._new],
        ).rowcount
        # an entity another run (the model's) created meanwhile keeps its id (when every row
        # went in, none did)
        actual = (
            {}
            if inserted == len(self._new)
            else {
                i: row[0]
                for i, t, _n, k, _at in self._new
                if (
                    row := conn.execute(
                        "SELECT id FROM graph_entities WHERE library_id = ? AND type_key = ?"
                        " AND normalized = ?",
                        (self._library_id, t, k),
                    ).fetchone()
                )
                is not None
                and row[0] != i
            }
        )
        conn.executemany(
            "INSERT OR IGNORE INTO graph_aliases (entity_id, library_id, alias, normalized)"
            " VALUES (?, ?, ?, ?)",
            [(actual.get(e, e), lib, a, k) for e, lib, a, k in self._aliases],
        )
        self._new, self._aliases = [], []
