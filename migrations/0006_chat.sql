-- 0006: conversations and messages of the chat runtime.
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('complete', 'streaming', 'stopped', 'failed')),
    retrieval TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(retrieval)),
    citations TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(citations)),
    error TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX messages_conversation ON messages (conversation_id, ordinal);
