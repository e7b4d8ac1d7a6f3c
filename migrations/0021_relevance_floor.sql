-- Relevance became a calibrated probability (retrieval/calibration.py): the old default floor,
-- 0.015 on the old scale, let nearly every unanswerable question through. Libraries still on that
-- default move to the new one (0.2, chosen on the development sets); a floor a person chose
-- stays as it was.
UPDATE libraries
SET retrieval_settings = json_set(retrieval_settings, '$.minimumRelevance', 0.2)
WHERE json_extract(retrieval_settings, '$.minimumRelevance') = 0.015;
