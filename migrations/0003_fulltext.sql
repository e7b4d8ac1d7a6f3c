-- 0003: the full-text channel: FTS5 unicode61 over NFKC-normalised, case-folded Latin text.
-- rowid = chunks.seq. Only enabled, retrievable chunks (never parents) are indexed.
CREATE VIRTUAL TABLE chunks_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO chunks_fts (rowid, text)
    SELECT seq, kb_fts_text(index_text) FROM chunks WHERE enabled = 1 AND role != 'parent';
-- A chunk row deleted by any path (document removed, library cascade) takes its index row along.
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    DELETE FROM chunks_fts WHERE rowid = old.seq;
END;
