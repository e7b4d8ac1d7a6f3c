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
