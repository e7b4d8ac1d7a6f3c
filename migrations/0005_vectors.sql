-- 0005: application settings (model connections) and vector index versions.
-- Vectors live in one float32 file per version (vectors/<version id>.f32) with a row map here;
-- a library serves only its current ready version, swapped in one transaction.
CREATE TABLE app_settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL CHECK (json_valid(value))
);

CREATE TABLE vector_versions (
    id TEXT PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    label TEXT NOT NULL,
    dims INTEGER NOT NULL CHECK (dims > 0),
    state TEXT NOT NULL CHECK (state IN ('building', 'ready', 'failed', 'superseded')),
    row_count INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX vector_versions_library ON vector_versions (library_id, state);

CREATE TABLE vector_rows (
    version_id TEXT NOT NULL REFERENCES vector_versions (id) ON DELETE CASCADE,
    row INTEGER NOT NULL,
    chunk_seq INTEGER NOT NULL,
    checksum TEXT NOT NULL,
    alive INTEGER NOT NULL DEFAULT 1 CHECK (alive IN (0, 1)),
    PRIMARY KEY (version_id, row)
);
CREATE INDEX vector_rows_chunk ON vector_rows (chunk_seq);
CREATE INDEX vector_rows_dead ON vector_rows (version_id, row) WHERE alive = 0;

ALTER TABLE libraries ADD COLUMN current_vector_version TEXT;

-- A chunk that is deleted, disabled or whose text changes loses its vectors at once, whatever
-- path changed it; the scanner skips dead rows and rebuilds compact them away.
CREATE TRIGGER vector_rows_chunk_deleted AFTER DELETE ON chunks BEGIN
    UPDATE vector_rows SET alive = 0 WHERE chunk_seq = old.seq AND alive = 1;
END;
CREATE TRIGGER vector_rows_chunk_changed AFTER UPDATE OF checksum, enabled ON chunks
    WHEN old.checksum IS NOT new.checksum OR (old.enabled = 1 AND new.enabled = 0)
BEGIN
    UPDATE vector_rows SET alive = 0 WHERE chunk_seq = old.seq AND alive = 1;
END;
