-- 0013: model extraction of the knowledge graph — which chunks the chat model already read,
-- from which text, with which model and ontology, so a later run (or one stopped by the
-- per-run cap) never pays twice for the same chunk. An edit or a disable forgets it.

CREATE TABLE graph_model_done (
    chunk_seq INTEGER PRIMARY KEY REFERENCES chunks (seq) ON DELETE CASCADE,
    library_id TEXT NOT NULL,
    checksum TEXT NOT NULL,
    model TEXT NOT NULL,
    ontology_hash TEXT NOT NULL,
    run_id TEXT NOT NULL
);
CREATE INDEX graph_model_done_library ON graph_model_done (library_id);

CREATE TRIGGER graph_model_done_on_chunk_change AFTER UPDATE OF content, enabled ON chunks
WHEN new.content != old.content OR new.enabled = 0
BEGIN
    DELETE FROM graph_model_done WHERE chunk_seq = new.seq;
END;

-- The graph channel looks entities up by name across types.
CREATE INDEX graph_entities_name ON graph_entities (library_id, normalized);

-- The graph channel sums evidence per chunk for a few entities or relations: covering indexes
-- answer that from the index alone.
DROP INDEX graph_evidence_entity;
DROP INDEX graph_evidence_relation;
CREATE INDEX graph_evidence_entity ON graph_evidence (entity_id, chunk_seq, confidence);
CREATE INDEX graph_evidence_relation ON graph_evidence (relation_id, chunk_seq, confidence);
