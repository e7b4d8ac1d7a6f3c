-- 0014: a person's graph edits hold against every extractor. What a person deleted or retyped
-- away is remembered in graph_suppressed, and the triggers below make the database itself
-- refuse an extractor's attempt to bring it back: an extracted entity, alias or relation that a
-- person suppressed is silently not inserted, and neither is an alias, relation or evidence row
-- whose entity or relation was not inserted. Manual writes (created_by/extractor 'manual') pass.
-- An extractor's evidence for a span a person's evidence already holds is not doubled.

CREATE TABLE graph_suppressed (
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('entity', 'alias', 'relation')),
    type_key TEXT NOT NULL,
    -- entity/alias: the normalised name; relation: "<head id>><tail id>"
    key TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (library_id, kind, type_key, key)
);

CREATE TRIGGER graph_entities_suppressed BEFORE INSERT ON graph_entities
WHEN new.created_by != 'manual' AND EXISTS (
    SELECT 1 FROM graph_suppressed s WHERE s.library_id = new.library_id AND s.kind = 'entity'
    AND s.type_key = new.type_key AND s.key = new.normalized)
BEGIN
    SELECT RAISE(IGNORE);
END;

CREATE TRIGGER graph_aliases_suppressed BEFORE INSERT ON graph_aliases
WHEN NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = new.entity_id) OR EXISTS (
    SELECT 1 FROM graph_suppressed s JOIN graph_entities e ON e.id = new.entity_id
    WHERE s.library_id = new.library_id AND s.kind IN ('entity', 'alias')
    AND s.type_key = e.type_key AND s.key = new.normalized)
BEGIN
    SELECT RAISE(IGNORE);
END;

CREATE TRIGGER graph_relations_suppressed BEFORE INSERT ON graph_relations
WHEN new.extractor != 'manual' AND (
    NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = new.head_id)
    OR NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = new.tail_id)
    OR EXISTS (
        SELECT 1 FROM graph_suppressed s WHERE s.library_id = new.library_id
        AND s.kind = 'relation' AND s.type_key = new.type_key
        AND s.key = new.head_id || '>' || new.tail_id))
BEGIN
    SELECT RAISE(IGNORE);
END;

CREATE TRIGGER graph_evidence_orphan BEFORE INSERT ON graph_evidence
WHEN new.extractor != 'manual' AND (
    (new.entity_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM graph_entities e WHERE e.id = new.entity_id))
    OR (new.relation_id IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM graph_relations r WHERE r.id = new.relation_id))
    OR EXISTS (
        SELECT 1 FROM graph_evidence v WHERE v.chunk_seq = new.chunk_seq
        AND v.extractor = 'manual' AND v.start = new.start AND v."end" = new."end"
        AND v.entity_id IS new.entity_id AND v.relation_id IS new.relation_id))
BEGIN
    SELECT RAISE(IGNORE);
END;
