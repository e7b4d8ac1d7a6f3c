-- 0002: the per-library contextual-indexing switch (US-F4). Existing libraries keep it off and
-- keep their chunks as they are.
ALTER TABLE libraries ADD COLUMN contextual_indexing INTEGER NOT NULL DEFAULT 0
    CHECK (contextual_indexing IN (0, 1));
