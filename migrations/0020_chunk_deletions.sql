-- 0019: a person's chunk deletions are remembered, so a rebuild or re-sync that chunks the same
-- text again does not bring a deleted chunk back unnoticed. One row per deleted chunk: its
-- stable id, role and text (what the next chunking is matched against). Rows go with their
-- document; a rebuild that discards manual work (or a new generation in which the text no
-- longer appears) removes them.
CREATE TABLE chunk_deletions (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('standalone', 'parent', 'child')),
    content TEXT NOT NULL,
    deleted_at TEXT NOT NULL,
    PRIMARY KEY (document_id, chunk_id)
);
