"""The catalogue of messages for people: every code and its English template (the GUI's
translations live in ``ui/i18n/messages.py``). How codes travel is in ``contracts/messages.py``."""

from __future__ import annotations

#: code → English template. Parameters in braces; a parameter named ``reason``, ``reasons``,
#: ``error`` or ``detail`` may itself be a catalogue sentence (the GUI translates it in turn).
CATALOGUE: dict[str, str] = {
    # documents: reading and parsing
    "parse.empty_file": "empty file",
    "parse.unsupported_type": "unsupported file type “{suffix}”",
    "parse.no_text": "no text content",
    "parse.headings_only": "only headings, no text under them",
    "parse.pdf_encrypted": "the PDF is encrypted",
    "parse.pdf_unreadable": "the PDF could not be read ({error})",
    "parse.pdf_no_text": "the PDF has no extractable text (scanned pages need OCR)",
    "parse.docx_unreadable": "the Word document could not be read ({error})",
    "parse.bad_encoding": "text is not valid {encoding}",
    "parse.binary": "binary content, not text",
    "parse.unknown_encoding": "unknown text encoding",
    "parse.pdf_no_pages": "the PDF has no pages",
    "parse.limit_cells": "the file is too large to parse: {count} table cells; the limit is {limit}",
    "parse.limit_columns": (
        "the file is too large to parse: {count} table columns; the limit is {limit}"
    ),
    "parse.limit_sections": "the file is too large to parse: {count} sections; the limit is {limit}",
    "parse.limit_characters": (
        "the file is too large to parse: {count} characters; the limit is {limit}"
    ),
    # OCR: scanned PDF pages and images
    "ocr.off": "scanned pages need OCR, which is off for this library (turn it on in its settings)",
    "ocr.not_indexed_off": "not indexed: OCR is off",
    "ocr.failed": "OCR failed ({error})",
    "ocr.task_failed": "OCR failed for documents: {count} (first: {path}: {reason})",
    "ocr.unavailable_package": "OCR is unavailable: the OCR package (rapidocr) is not installed",
    "ocr.unavailable_models": "OCR is unavailable: the OCR models are missing ({files})",
    "ocr.unavailable_runtime": "OCR is unavailable: the OCR runtime could not be loaded ({error})",
    "ocr.unavailable_engine": "OCR is unavailable: the OCR engine failed to start ({error})",
    "ocr.image_unreadable": "the image could not be read ({error})",
    "ocr.image_too_large": (
        "the image is too large ({width}×{height} pixels; the limit is {limit} megapixels)"
    ),
    "ocr.image_too_large_to_decode": "the image is too large to decode",
    "ocr.pdf_unopenable": "the PDF could not be opened for OCR ({error})",
    "ocr.page_unrenderable": "page {page} could not be rendered ({error})",
    "ocr.page_undecodable": "page {page} could not be decoded ({error})",
    "ocr.page_cap": "only the first {limit} scanned {limit:plural:page is|pages are} recognised (the page cap)",
    "ocr.time_budget": "the OCR time budget ({minutes} min) ran out after page {page}",
    "read.too_large": "file too large ({size} MB; the limit is {limit} MB)",
    "read.permission": "the file cannot be read (permission denied)",
    "read.failed": "the file cannot be read ({detail})",
    "read.file_gone": "the file was moved or deleted",
    "read.folder_gone": "the folder was moved or deleted",
    "read.unsupported_content": "unsupported content type “{media}”",
    # web pages
    "web.scheme": "only http(s) addresses can be imported (got “{scheme}”)",
    "web.redirect_scheme": "only http(s) addresses can be imported (a redirect led elsewhere)",
    "web.http_status": "the server answered HTTP {status}",
    "web.too_large": "the page is larger than {limit} MB",
    "web.slow": "the page did not arrive within {seconds} s",
    "web.no_answer": "the page did not answer within {seconds} s",
    "web.fetch_failed": "the page could not be fetched ({error})",
    "web.redirects": "too many redirects",
    # sources
    "source.overflow": "{count} {count:plural:file|files} past the {limit}-file limit {count:plural:was|were} not imported",
    "source.path_not_absolute": "the path must be absolute",
    "source.no_such_file": "no such file: {path}",
    "source.no_such_folder": "no such folder: {path}",
    "source.unsupported_type": "this kind of file cannot be read ({detail}); readable are {suffixes}",
    "source.no_extension": "no file name extension",
    "source.watch_folder_only": "only folder sources can be watched",
    "source.duplicate": "this library already has that source",
    "source.not_found": "source not found in this library",
    "source.data_dir": (
        "this is the app's own data folder or lies inside it: its database, logs and exports"
        " are not documents"
    ),
    "source.inside_folder": "this file is already taken in by the folder source {other}",
    "source.shares_files": (
        "{count} {count:plural:file|files} of this folder {count:plural:is|are} already taken in"
        " by the source {other} (first: {path}); remove that source first, or add this folder"
        " from the command line with `goodbuddy-kb source add --exclude` patterns that leave"
        " {count:plural:it|them} out"
    ),
    # libraries, documents, tasks, conversations
    "library.duplicate_name": "a library named “{name}” already exists",
    "library.limit": "at most {limit} {limit:plural:library|libraries} per data directory",
    "library.not_found": "library not found",
    "document.not_found": "document not found in this library",
    "task.not_found": "task not found",
    "task.cancelled_by_user": "cancelled by the user",
    "task.app_closing": "the app is closing",
    "task.library_deleted": "the library was deleted",
    "task.interrupted": "the app stopped before the task finished",
    # (rows an earlier version wrote)
    "task.interrupted_closed": "the app closed before the task finished; run it again",
    "conversation.not_found": "conversation not found",
    "chat.stopped_by_user": "stopped by the user",
    # embeddings and vectors
    "vector.no_model": "no embedding model is configured",
    "vector.no_model_hint": "no embedding model is configured (Settings → Model connections)",
    "vector.no_index": "no vector index yet",
    "vector.not_finished": "no vector index yet: vectorisation has not finished",
    "vector.incompatible": "index built with another model or endpoint; rebuild needed",
    "vector.encoder_upgrade": (
        "index built with the bundled model's other encoder (float32 or int8): still"
        " searchable; rebuild it to use the configured one"
    ),
    "vector.query_not_embedded": "the query could not be embedded: {reason}",
    "vector.provider_cannot_start": "the embedding provider cannot start ({error})",
    "vector.embedding_failed": "embedding failed",
    "vector.embedding_failed_because": "embedding failed: {reason}",
    "vector.gaps": "{count} {count:plural:chunk|chunks} still {count:plural:has|have} no vector",
    "vector.local_missing": "the bundled local embedding model is not installed",
    "embedding.timeout": "the embedding service did not answer in time",
    "embedding.unreachable": "the embedding service cannot be reached ({error})",
    "embedding.http_status": "the embedding service answered HTTP {status}",
    "embedding.too_large": "the embedding service's answer is too large",
    "embedding.malformed": "the embedding service sent malformed JSON",
    "embedding.not_numbers": "the embedding service sent vectors that are not numbers",
    "embedding.wrong_count": "the embedding service sent the wrong number of vectors",
    "embedding.non_finite": "the embedding service sent non-finite values",
    "embedding.no_embeddings": "the embedding service's answer has no embeddings",
    "embedding.ollama_no_embeddings": "the Ollama answer has no embeddings",
    "embedding.off": "semantic search is off: there is no embedding model to test",
    # the parsers' and the reader's refusals, past the first catalogue
    "parse.too_much_memory": "the file needs too much memory to parse",
    "parse.nested_too_deeply": "the file is nested too deeply to parse",
    "parse.failed": "the file could not be parsed ({error})",
    "parse.chunking_failed": "the file could not be split into chunks ({error})",
    "parse.too_slow": "parsing took longer than {seconds} s",
    "parse.archive_parts": "the archive has too many parts ({count})",
    "parse.archive_damaged": "the archive is damaged ({error})",
    "parse.archive_member": "a part of the archive expands past {limit} MB ({name})",
    "parse.archive_ratio": "a part of the archive expands more than {ratio}× (a zip bomb?)",
    "parse.archive_total": "the archive expands past {limit} MB",
    "parse.html_depth": "the page is nested more than {levels} levels deep",
    "parse.html_open_elements": "the page is nested more than {elements} elements deep",
    "parse.html_nodes": "the page has more than {elements} elements",
    "parse.pdf_pages": "the PDF has too many pages ({count}; at most {limit})",
    "parse.docx_too_large": "the Word document has too many paragraphs and tables",
    "parse.epub_unreadable": "the e-book could not be read ({error})",
    "parse.email_unreadable": "the e-mail could not be read ({error})",
    "parse.attachment_gone": "the message no longer carries this attachment",
    "parse.attachments_left_out": (
        "{count} {count:plural:attachment|attachments} past the limit of {limit} a file"
        " {count:plural:was|were} not indexed"
    ),
    "parse.slides_unreadable": "the presentation could not be read ({error})",
    "parse.slides_too_many": "the presentation has too many slides ({count}; at most {limit})",
    "parse.odf_unreadable": "the OpenDocument file could not be read ({error})",
    "parse.rtf_unreadable": "the RTF document could not be read ({error})",
    # spreadsheets (XLSX, ODS, CSV)
    "parse.sheet_unreadable": "the spreadsheet could not be read ({error})",
    "parse.sheet_count": "the spreadsheet has too many sheets ({count}; at most {limit})",
    "parse.hidden_sheets": "hidden sheets were skipped: {names}",
    # (it matches the sentence older versions stored for .xls: "the old Excel format (.xls) …")
    "parse.old_format": (
        "the old {name} format ({suffix}) is not supported: save the file as {target}"
    ),
    "parse.csv_unreadable": "the CSV file could not be read ({error})",
    "read.outside_source": "the path leads outside the source folder",
    "read.now_link": "the file is now a symbolic link (links are not followed)",
    "read.folder_now_link": "a folder on the path is now a symbolic link or a file",
    "read.now_folder": "the path is now a folder (FIFOs, devices and sockets are not read)",
    "read.now_special": (
        "the path is now not a regular file (FIFOs, devices and sockets are not read)"
    ),
    "read.changed_while_opening": "the file changed while it was being opened",
    "web.unreadable": "the page could not be read ({error})",
    "net.too_large": "the answer is larger than {limit} MB",
    "net.encodings": "more than one content encoding ({encodings})",
    "net.unsupported_encoding": "unsupported content encoding “{encoding}”",
    "net.damaged": "the compressed answer is damaged",
    "document.no_retrievable_content": "no retrievable content",
    "document.source_removed": "the document's source was removed",
    "chunk.not_found": "chunk not found in this document",
    # embeddings, vectors and rebuilds, past the first catalogue
    "embedding.timeout_seconds": "the embedding service did not answer in time ({seconds} s)",
    "embedding.unreadable": "the embedding service's answer is unreadable ({error})",
    "embedding.wrong_dimensions": (
        "the embedding service sent {got}-dimensional vectors; {expected} were expected"
    ),
    "embedding.absurd_values": "the embedding service sent non-finite or absurd values",
    "embedding.constant_vector": (
        "the embedding service sent an empty (all-zero or constant) vector"
    ),
    "vector.partial": "{count} {count:plural:chunk|chunks} {count:plural:has|have} no vector yet; {count:plural:it is|they are}"
    " found by full-text only",
    "vector.filling": "vectors cover {covered}/{total} documents so far; the rest is found by"
    " full text only until vectorisation finishes",
    "vector.interrupted": "interrupted: the app stopped during the build",
    "rebuild.dimensions": (
        "the service returned {got}-dimensional vectors; the index has {expected}"
    ),
    "rebuild.embedding_stopped": (
        "the embedding service failed for {count} {count:plural:document|documents} in a row ({error}); "
        "{left} {left:plural:document was|documents were} not rebuilt and"
        " {left:plural:keeps its|keep their} previous version"
    ),
    "rebuild.one_failed": (
        "1 document failed; a document with a previous version keeps it (first: {detail})"
    ),
    "rebuild.failed": (
        "{count} {count:plural:document|documents} failed; a document with a previous version"
        " keeps it (first: {detail})"
    ),
    "rebuild.kept_previous": "{error} (the previous version is still searchable)",
    # the knowledge graph
    "graph.no_entities": "no entity of the graph was found in the question",
    "graph.search_failed": "the knowledge graph could not be searched ({error})",
    "graph.task_off": "the knowledge graph is off for this library",
    "graph.model_unavailable": (
        "model extraction is not available in this version; choose the local strategy"
    ),
    "graph.entity_not_found": "entity not found",
    # other reasons, past the first catalogue
    "chat.reply_unreadable": "the chat model's reply: {error}",
    "rerank.bad_scores": "the rerank service sent scores that are not finite or out of range",
    "rerank.unreadable": "the rerank service's answer is unreadable ({error})",
    "reference.stale": (
        "This citation is no longer valid: the passage was deleted or disabled, "
        "or its document changed."
    ),
    "reference.no_opener": (
        "no program to open files is available on this system ({program} was not found)"
    ),
    "reference.no_file_manager": (
        "no program to show files in their folder is available on this system"
    ),
    "reference.reveal_failed": (
        "{program} could not show it in its folder (exit status {exit_code})"
    ),
    "reference.opener_failed": (
        "{program} could not open it (exit status {exit_code}): no program on this system took it"
    ),
    "chat.regenerate_kept": "the answer was not written again ({reason}); the earlier one is kept",
    "chat.tool_refused": (
        "the model's search was refused: it asked for libraries outside this chat's knowledge"
        " scope; the answer was not checked against your documents"
    ),
    "chat.not_searched_empty_scope": (
        "nothing was searched: no library is selected in this chat's knowledge scope"
    ),
    "diagnostics.cannot_write": "the file cannot be written ({detail})",
    "source.path_unusable": "the path cannot be used ({detail})",
    "source.link_loop": "symbolic link loop or invalid name",
    "invalid.retrieval_settings": "Invalid retrieval settings: {detail}",
    "invalid.rerank_needs_url_model": "the service address and the model are required for a rerank service",
    "backend.locked": "another backend is serving {folder}",
    "backend.invalid_response": "the backend produced an invalid response",
    # retrieval
    "graph.off": "the knowledge graph is not enabled for this library",
    "graph.no_chat_model": "model extraction needs a chat model (Settings → Model connections)",
    "graph.model_failed": "the chat model could not extract the graph: {reason}",
    "graph.answers_all_rejected": "no answer of the chat model could be used ({count} rejected;"
    " first: {reason}); the previous graph is kept",
    "graph.answers_some_rejected": "{count} {count:plural:answer|answers} of the chat model {count:plural:was|were} rejected (first:"
    " {reason}); their chunks keep their previous graph",
    "graph.answer_rejected": "the chat model's answer was rejected ({reason}); the chunk keeps"
    " its previous graph",
    "graph.answer_empty": "the answer is empty",
    "graph.answer_not_json": "the answer is not a JSON object",
    "graph.answer_shape": "the answer does not hold the entities and relations lists",
    "graph.answer_nothing_valid": "nothing the answer named holds up against the ontology and"
    " the chunk",
    "graph.answer_too_deep": "the answer nests deeper than {limit} levels",
    "graph.answer_stream": "the answer came as an invalid stream",
    "graph.answer_too_long": "the answer is longer than {limit} {limit:plural:character|characters}",
    "graph.run_empty": "the chat model named nothing in the {count} {count:plural:chunk|chunks} it read; the"
    " previous graph is kept",
    # knowledge graph: a person's edits, checked against the library's ontology
    "graph.unknown_entity_type": "unknown entity type “{type}”: pick a type of the library's ontology",
    "graph.unknown_relation_type": (
        "unknown relation type “{type}”: pick a type of the library's ontology"
    ),
    "graph.incompatible_endpoints": "a “{relation}” relation cannot link a {head} to a {tail}",
    "graph.self_relation": "a relation needs two different entities",
    "graph.relation_exists": "that relation already exists",
    "graph.entity_not_in_library": "entity not found in this library",
    "graph.relation_not_found": "relation not found in this library",
    "graph.name_taken": "another {type} is already called “{name}”: merge the two instead",
    "graph.merge_across_types": "only entities of the same type can be merged: retype one first",
    "graph.merge_self": "an entity cannot be merged into itself",
    "graph.retype_breaks_relations": (
        "retyping to {type} would leave {count} {count:plural:relation|relations} with endpoints"
        " their type does not allow"
    ),
    "graph.ontology_type_in_use": (
        "entity type “{type}” is still used by {count} {count:plural:entity|entities} a person"
        " created or edited"
    ),
    "graph.ontology_relation_in_use": (
        "relation type “{type}” is still used by {count} {count:plural:relation|relations} a person"
        " created or edited"
    ),
    "graph.ontology_breaks_relations": (
        "the endpoints of “{type}” would no longer allow {count} {count:plural:relation|relations}"
        " a person created"
        " or edited"
    ),
    "rerank.not_configured": "no rerank service is configured",
    "rerank.timeout": "the rerank service did not answer within {seconds} s",
    "rerank.unreachable": "the rerank service cannot be reached ({error})",
    "rerank.http_status": "the rerank service answered HTTP {status}",
    "rerank.too_large": "the rerank service's answer is too large",
    "rerank.invalid": "the rerank service sent an invalid answer",
    "rerank.incomplete": "the rerank service did not score every candidate",
    "zero.empty_library": "The selected libraries have no searchable content yet.",
    "zero.empty_library.next": (
        "Add files, folders or web pages in Documents & sources and let the sync finish."
    ),
    "zero.index_unavailable": "No search channel could run: {reasons}.",
    "zero.index_unavailable.next": (
        "Check the index status in Documents & sources, enable full-text search, "
        "or rebuild the vector index."
    ),
    "zero.no_channel": "no channel could run",
    "zero.filtered": (
        "{count} vector {count:plural:match was|matches were} below the minimum similarity and"
        " nothing else matched."
    ),
    "zero.filtered.next": (
        "Lower the minimum vector similarity in the retrieval settings and run the query again."
    ),
    "zero.no_match": "Nothing in the selected libraries matches this question.",
    "zero.no_match.next": (
        "Try other keywords, a synonym, or a shorter question; "
        "check that the right libraries are selected."
    ),
    "zero.nothing_relevant": (
        "Nothing relevant enough: the best match has relevance {best},"
        " below this library's minimum of {floor}."
    ),
    "zero.nothing_relevant.next": (
        "Rephrase the question, check the selected libraries, or lower the minimum relevance "
        "in the retrieval settings."
    ),
    "channel.reason": "{channel}: {reason}",
    # chat model
    "chat.timeout": "the chat model did not answer in time",
    "chat.timeout_seconds": "the chat model did not answer within {seconds} s",
    "chat.unreachable": "the chat model cannot be reached ({error})",
    "chat.http_status": "the chat model answered HTTP {status}",
    "chat.invalid_stream": "the chat model sent an invalid stream",
    "chat.nothing_to_test": "no chat model is configured: there is nothing to test",
    "chat.regenerate_no_question": "this conversation has no question to answer again",
    "chat.regenerate_busy": "the last answer is still being written; stop it first",
    "chat.not_a_chat_model": (
        "the address answered, but not as a chat model (no chat stream came back)"
    ),
    # model lists
    "models.timeout": "the service did not answer in time",
    "models.unreachable": "the service cannot be reached ({error})",
    "models.http_status": "the service answered HTTP {status}",
    "models.too_large": "the service's model list is too large",
    "models.no_list": "the service sent no model list",
    # connection tests: an error with a hint
    "test.with_hint": "{error} — {hint}",
    "test.service_says": "{error}; the service says: {says}",
    "hint.check_key": "check the API key",
    "hint.check_key_permissions": "check the API key and its permissions",
    "hint.check_url_model": "check the base URL and the model name",
    "hint.check_service": "check the address and that the service is running",
    "hint.check_url_list": "check the base URL (not every service lists its models: type the model name)",
    # references
    "reference.stale_open": "citation no longer valid: nothing was opened",
    "reference.web_only": "only http(s) pages can be opened; nothing was opened",
    "reference.file_gone": "the source file was moved or deleted; nothing was opened",
    "reference.not_regular": (
        "the stored file was replaced by a link or is not a regular file; nothing was opened"
    ),
    "reference.outside": "the stored file now leads outside its source; nothing was opened",
    # the backend process and its link
    "backend.not_running": "the backend is not running",
    "backend.closed": "the backend closed the connection",
    "backend.stopped": "the backend stopped",
    "backend.shutting_down": "the backend is shutting down",
    "backend.starting": "the backend is starting",
    "backend.cannot_start": "cannot start the backend: {detail}",
    "backend.could_not_start": "the backend could not start: {detail}",
    "backend.unreachable": "cannot reach the backend: {detail}",
    "backend.no_handshake": "the backend did not answer the handshake",
    # a data directory the backend cannot use (at start, or under a running task)
    "data.read_only": (
        "the data directory cannot be written ({detail}); check its permissions or choose"
        " another with --data-dir"
    ),
    "data.corrupt_database": (
        "the database file is damaged ({detail}); restore it from a backup, or move"
        " goodbuddy-kb.sqlite3 aside to start with an empty one"
    ),
    "data.disk_full": "the disk holding the data directory is full; free some space and try again",
    "data.unusable": "the data directory could not be used ({detail})",
    "data.newer": (
        "this data directory was written by a newer version of GoodBuddy KB (data version {found};"
        " this version knows up to {known}); it was left unchanged: open it with that version or a"
        " later one"
    ),
    "data.removed_meanwhile": "the library or source was removed while the task ran",
    "diagnostics.exists": (
        "a file of that name already exists; choose another name, or replace it (--force)"
    ),
    "diagnostics.not_a_file": (
        "that path is a link, folder or device, not a file; only a file can be replaced"
    ),
    # where text goes (model connections)
    "datapath.off": "Semantic search is off: only full-text search runs and no text is sent.",
    "datapath.local": (
        "The bundled multilingual-e5-small model runs on this computer; no text leaves it."
    ),
    "datapath.deterministic": "A hashing embedder on this computer (for tests); no text leaves it.",
    "datapath.remote": "Chunk text and queries are sent to {url} (model {model}).",
    "datapath.remote_unset": "Chunk text and queries will be sent to the address entered above.",
    "datapath.remote_no_model": "Chunk text and queries are sent to {url} (no model entered yet).",
    # validation problems raised by the contracts themselves (pydantic ones: validation.<type>)
    "invalid.chat_needs_url_model": "the service address and the model are required for a chat model",
    "invalid.embedding_needs_url_model": (
        "the service address and the model are required for a remote embedding provider"
    ),
    "invalid.url_scheme": "the service address must start with http:// or https://",
    "invalid.url_credentials": (
        "the service address must not hold credentials (a name or key before @);"
        " give the key as the API key"
    ),
    "invalid.url_query": (
        "the service address must not have a query (?…) or a fragment (#…);"
        " give a key as the API key"
    ),
    # a stored API key goes only to the address it was saved for (main_process/key_origin.py)
    "key.elsewhere": (
        "the stored API key was saved for {origin}; type it again to send it to {target}"
        " (a stored key is never sent to another address on its own)"
    ),
    "key.elsewhere_unknown": (
        "the stored API key was saved for another address; type it again to send it to {target}"
        " (a stored key is never sent to another address on its own)"
    ),
    "invalid.no_channel_weight": (
        "at least one channel weight (ftsWeight, vectorWeight, graphWeight) must be greater than 0"
    ),
    "invalid.no_runnable_channel": (
        "no channel that can run has a weight above 0: give full-text a weight, or vectors a "
        "weight with an embedding model configured (the knowledge graph is off)"
    ),
    "invalid.no_runnable_channel_graph_on": (
        "no channel that can run has a weight above 0: give full-text, the knowledge graph or"
        " vectors (with an embedding model configured) a weight"
    ),
    "invalid.overlap_share": "must be at most 40% of the target length ({limit})",
    "invalid.child_vs_parent": "must be smaller than the parent length ({limit})",
    "invalid.empty": "must not be empty",
    "invalid.control_characters": "must not contain control characters",
    "invalid.too_many_characters": "must be at most {limit} {limit:plural:character|characters}",
    "invalid.request": "Invalid {prefix}: {fields}: {problem}",
    "storage.conflict": "the change conflicts with stored data",
    "storage.unavailable": "database unavailable: {detail}",
    "storage.error": "database error",
    "internal": "internal error",
}
