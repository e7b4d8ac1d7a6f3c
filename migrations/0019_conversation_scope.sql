-- 0019: each conversation keeps its knowledge scope (libraries, the ones chosen among, the
-- retrieval mode) as JSON; NULL for conversations made before scopes were kept.
ALTER TABLE conversations ADD COLUMN scope TEXT CHECK (scope IS NULL OR json_valid(scope));
