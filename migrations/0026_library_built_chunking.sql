-- The chunking settings (and contextual indexing) every document of a library was last chunked
-- with, as {"chunking": …, "contextual": 0|1}: a change of settings that is then put back needs
-- no rebuild ("waiting for rebuild" stayed after 1600 → 1200 → 1600). NULL while the library
-- holds chunks made with other settings too (a rebuild or sync under way after a change).
ALTER TABLE libraries ADD COLUMN built_chunking TEXT;
UPDATE libraries
SET built_chunking = json_object('chunking', json(chunking_settings), 'contextual', contextual_indexing)
WHERE settings_pending_rebuild = 0;
