-- What a parser wants a person to know about a document it read whole, beside any error
-- (e.g. "hidden sheets were skipped: …"): an English sentence of the message catalogue.
ALTER TABLE documents ADD COLUMN parse_note TEXT;
