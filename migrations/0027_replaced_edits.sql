-- A person's chunk edits that a changed file's new text replaced (a re-sync, or a rebuild told
-- to discard the work it cannot keep), kept with their document until the person dismisses
-- them: a one-digit change to a file wiped a typed paragraph, and every place said "no
-- problems" (a helper's try).
CREATE TABLE replaced_edits (
    id INTEGER PRIMARY KEY,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL,
    content TEXT NOT NULL,
    replaced_at TEXT NOT NULL
);
CREATE INDEX replaced_edits_document ON replaced_edits(document_id, id);
