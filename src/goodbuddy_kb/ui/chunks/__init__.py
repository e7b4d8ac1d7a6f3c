"""The chunks dialog: a document's chunks, viewed, edited, enabled and disabled."""
