"""Every size and count limit of the product, as named constants shared by both processes."""

from __future__ import annotations

#: Longest retrieval query, in characters (PRD §7.4).
MAX_QUERY_CHARACTERS = 4_000
#: Most libraries one request may name (scope, retrieval).
MAX_LIBRARIES_PER_REQUEST = 20
#: Most documents one retrieval may leave out (``RetrieveRequest.exclude_document_ids``).
MAX_EXCLUDED_DOCUMENTS = 100
#: Most results one retrieval returns (the settings' Top K, an external tool's top_k).
MAX_TOP_K = 20
#: Most tool calls of external AI tools kept in the local call record.
MAX_EXTERNAL_CALL_RECORDS = 1_000
#: Most chunks one page of a chunk listing returns (PRD §10).
MAX_CHUNKS_PER_PAGE = 200
#: Longest chunk content a user may store by editing (parents go up to 16,000; edits get headroom).
MAX_CHUNK_CONTENT_CHARACTERS = 20_000
#: Largest JSON-RPC frame either side accepts or sends, in bytes (payload, without the header).
MAX_FRAME_BYTES = 8 * 1024 * 1024
#: Largest offset a listing accepts (anything past it cannot hold rows; SQLite integers end at
#: 2⁶³, and a bigger one must be a clear `invalid_request`, never an internal error).
MAX_LIST_OFFSET = 1_000_000_000
#: Deepest JSON nesting a frame may have (our messages nest fewer than ten levels).
MAX_JSON_DEPTH = 64
#: Reply bytes a connection may leave unread before it is dropped.
MAX_QUEUED_REPLY_BYTES = 4 * MAX_FRAME_BYTES
#: Requests one connection may have running at once; more are answered `unavailable`.
MAX_INFLIGHT_PER_CONNECTION = 64
#: Longest file path a request may name.
MAX_PATH_CHARACTERS = 4_096
#: Most citations kept on one chat message.
MAX_CITATIONS_PER_MESSAGE = 20
#: Longest library name, in characters.
MAX_LIBRARY_NAME_CHARACTERS = 100
#: Most libraries one data directory holds.
MAX_LIBRARIES = 10_000
#: Seconds a freshly connected client has to authenticate before it is dropped.
AUTH_TIMEOUT_SECONDS = 5.0
#: Seconds the backend waits for in-flight requests when it shuts down.
SHUTDOWN_GRACE_SECONDS = 5.0
#: Longest a "Test connection" request may wait for a model or service, in seconds.
CONNECTION_TEST_TIMEOUT_SECONDS = 15.0
