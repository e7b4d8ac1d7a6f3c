-- 0010: the knowledge graph — per-library settings and ontology, entities with aliases,
-- relations, and evidence spans tied to chunks. Existing libraries get strategy "off" and the
-- starter ontology on first read; nothing is extracted automatically.

CREATE TABLE graph_settings (
    library_id TEXT PRIMARY KEY REFERENCES libraries (id) ON DELETE CASCADE,
    settings TEXT NOT NULL CHECK (json_valid(settings)),
    ontology TEXT NOT NULL CHECK (json_valid(ontology)),
    needs_rebuild INTEGER NOT NULL DEFAULT 0 CHECK (needs_rebuild IN (0, 1)),
    updated_at TEXT NOT NULL
);

CREATE TABLE graph_entities (
    id TEXT PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    type_key TEXT NOT NULL,
    name TEXT NOT NULL,
    normalized TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    locked_fields TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(locked_fields)),
    created_by TEXT NOT NULL CHECK (created_by IN ('local', 'model', 'manual')),
    created_at TEXT NOT NULL,
    UNIQUE (library_id, type_key, normalized)
);

CREATE TABLE graph_aliases (
    entity_id TEXT NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
    library_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    normalized TEXT NOT NULL,
    PRIMARY KEY (entity_id, normalized)
);
CREATE INDEX graph_aliases_lookup ON graph_aliases (library_id, normalized);

CREATE TABLE graph_relations (
    id TEXT PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    type_key TEXT NOT NULL,
    head_id TEXT NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
    tail_id TEXT NOT NULL REFERENCES graph_entities (id) ON DELETE CASCADE,
    confidence REAL NOT NULL,
    extractor TEXT NOT NULL CHECK (extractor IN ('local', 'model', 'manual')),
    locked INTEGER NOT NULL DEFAULT 0 CHECK (locked IN (0, 1)),
    UNIQUE (library_id, type_key, head_id, tail_id)
);
CREATE INDEX graph_relations_head ON graph_relations (head_id);
CREATE INDEX graph_relations_tail ON graph_relations (tail_id);

CREATE TABLE graph_evidence (
    id INTEGER PRIMARY KEY,
    library_id TEXT NOT NULL,
    chunk_seq INTEGER NOT NULL REFERENCES chunks (seq) ON DELETE CASCADE,
    entity_id TEXT REFERENCES graph_entities (id) ON DELETE CASCADE,
    relation_id TEXT REFERENCES graph_relations (id) ON DELETE CASCADE,
    start INTEGER NOT NULL CHECK (start >= 0),
    "end" INTEGER NOT NULL,
    confidence REAL NOT NULL,
    extractor TEXT NOT NULL CHECK (extractor IN ('local', 'model', 'manual')),
    provenance TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(provenance)),
    CHECK ((entity_id IS NULL) != (relation_id IS NULL)),
    CHECK ("end" > start)
);
CREATE INDEX graph_evidence_chunk ON graph_evidence (chunk_seq);
CREATE INDEX graph_evidence_entity ON graph_evidence (entity_id);
CREATE INDEX graph_evidence_relation ON graph_evidence (relation_id);

-- Evidence never points at changed or disabled text: an edit or a disable drops it (a later
-- extraction re-creates it from the chunk's current content).
CREATE TRIGGER graph_evidence_on_chunk_change AFTER UPDATE OF content, enabled ON chunks
WHEN new.content != old.content OR new.enabled = 0
BEGIN
    DELETE FROM graph_evidence WHERE chunk_seq = new.seq;
END;
