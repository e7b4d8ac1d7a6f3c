-- A document a library rebuild skipped so as not to lose a person's chunk work keeps chunks
-- made with the earlier chunking settings: marked here (1) until a sync or rebuild gives it
-- chunks made with the library's settings, so "waiting for rebuild" can say which documents
-- still wait and why.
ALTER TABLE documents ADD COLUMN kept_old_chunks INTEGER NOT NULL DEFAULT 0;
