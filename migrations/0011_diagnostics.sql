-- A bounded, local diagnostics record (PRD §13): one row per retrieval, sync, vectorisation or
-- rebuild, with counts and timings only (no query text, no document text, no paths; library
-- ids at most). The writer keeps the newest rows (see main_process/diagnostics.py).
CREATE TABLE diagnostic_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL,
    duration_ms REAL NOT NULL DEFAULT 0,
    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details))
);
CREATE INDEX diagnostic_events_kind ON diagnostic_events (kind, id);
