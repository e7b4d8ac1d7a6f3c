-- 0001: libraries, sources, documents (staged statuses), chunks and tasks.
-- Full-text, CJK and vector tables arrive with their issues, as migrations of their own.

CREATE TABLE libraries (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    retrieval_settings TEXT NOT NULL CHECK (json_valid(retrieval_settings)),
    chunking_settings TEXT NOT NULL CHECK (json_valid(chunking_settings)),
    settings_pending_rebuild INTEGER NOT NULL DEFAULT 0 CHECK (settings_pending_rebuild IN (0, 1)),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX libraries_name_nocase ON libraries (name COLLATE NOCASE);

CREATE TABLE sources (
    id TEXT PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('file', 'folder', 'web')),
    location TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
    watch INTEGER NOT NULL DEFAULT 0 CHECK (watch IN (0, 1)),
    state TEXT NOT NULL DEFAULT 'ok' CHECK (state IN ('ok', 'unavailable', 'overflow')),
    state_reason TEXT,
    last_synced_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX sources_library ON sources (library_id);

CREATE TABLE documents (
    id TEXT PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    source_id TEXT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    relative_path TEXT NOT NULL,
    title TEXT NOT NULL,
    media_type TEXT,
    checksum TEXT,
    size_bytes INTEGER,
    parse_status TEXT NOT NULL DEFAULT 'pending'
        CHECK (parse_status IN ('pending', 'running', 'done', 'failed')),
    parse_error TEXT,
    fulltext_status TEXT NOT NULL DEFAULT 'pending'
        CHECK (fulltext_status IN ('pending', 'done', 'failed')),
    fulltext_error TEXT,
    vector_status TEXT NOT NULL DEFAULT 'disabled'
        CHECK (vector_status IN ('disabled', 'pending', 'running', 'done', 'failed', 'incompatible')),
    vector_error TEXT,
    graph_status TEXT NOT NULL DEFAULT 'disabled'
        CHECK (graph_status IN ('disabled', 'on_demand', 'pending', 'running', 'done', 'failed')),
    graph_error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (source_id, relative_path)
);
CREATE INDEX documents_library ON documents (library_id);

CREATE TABLE chunks (
    -- seq is the stable integer key the full-text and CJK tables use as their rowid.
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    library_id TEXT NOT NULL REFERENCES libraries (id) ON DELETE CASCADE,
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL CHECK (ordinal >= 0),
    role TEXT NOT NULL DEFAULT 'standalone' CHECK (role IN ('standalone', 'parent', 'child')),
    parent_chunk_id TEXT REFERENCES chunks (id) ON DELETE CASCADE,
    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    manually_edited INTEGER NOT NULL DEFAULT 0 CHECK (manually_edited IN (0, 1)),
    heading TEXT,
    heading_path TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(heading_path)),
    locator TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(locator)),
    block_type TEXT,
    content TEXT NOT NULL,
    index_text TEXT NOT NULL,
    checksum TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    CHECK ((role = 'child') = (parent_chunk_id IS NOT NULL))
);
CREATE INDEX chunks_document_ordinal ON chunks (document_id, role, ordinal);
CREATE INDEX chunks_library ON chunks (library_id);
CREATE INDEX chunks_parent ON chunks (parent_chunk_id);

CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    library_id TEXT REFERENCES libraries (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    state TEXT NOT NULL
        CHECK (state IN ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted')),
    progress_done INTEGER NOT NULL DEFAULT 0,
    progress_total INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    details TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
);
CREATE INDEX tasks_library ON tasks (library_id, created_at);
