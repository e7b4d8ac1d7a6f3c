-- 0007: rebuild jobs. When re-reading a document fails (file missing, parse error, web error,
-- embedding service down) a document that has a generation (chunks, index rows, vectors) keeps
-- it serving and records why here, apart from the stage statuses of the generation that
-- serves. The next successful sync or rebuild clears it; sync retries such documents even when
-- their checksum did not change.
ALTER TABLE documents ADD COLUMN retryable_error TEXT;
