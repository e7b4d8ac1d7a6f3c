-- 0008: external AI tools (MCP): a per-library opt-in, and a bounded record of their calls.
-- New and existing libraries stay private until the user switches this on (PRD §2 item 4).
ALTER TABLE libraries ADD COLUMN external_access INTEGER NOT NULL DEFAULT 0
    CHECK (external_access IN (0, 1));

-- One row per tool call of an external client: which tool, how it ended, how long it took.
-- Never the query text or any argument. Pruned to the newest rows on every insert.
CREATE TABLE external_calls (
    seq INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    tool TEXT NOT NULL,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
    error_code TEXT,
    ms REAL NOT NULL CHECK (ms >= 0)
);
