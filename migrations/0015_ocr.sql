-- 0014: local OCR. A per-library switch (on by default, existing libraries included), and per
-- document the OCR stage's status (NULL: the document needs no OCR), its failure reason and a
-- JSON note (pages recognised, mean confidence, low-confidence lines, pages left out).
ALTER TABLE libraries ADD COLUMN ocr_enabled INTEGER NOT NULL DEFAULT 1
    CHECK (ocr_enabled IN (0, 1));
ALTER TABLE documents ADD COLUMN ocr_status TEXT
    CHECK (ocr_status IS NULL OR ocr_status IN ('pending', 'running', 'done', 'failed', 'off'));
ALTER TABLE documents ADD COLUMN ocr_error TEXT;
ALTER TABLE documents ADD COLUMN ocr_note TEXT;
