"""The chunks dialog: a document's chunks, viewed, edited, enabled and disabled — ``dialog``
(the page, the requests, the edit flow), ``pane`` (the chunk in full and its editor) and
``model`` (how a chunk reads; the table's columns)."""
