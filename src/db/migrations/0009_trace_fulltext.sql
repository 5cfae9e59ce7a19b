-- Full-text search over trace input and output: words (the 'simple' configuration, no
-- stemming, any language), GIN-indexed. Substring ILIKE over a trigram index fell back to
-- sequential scans (45 ms at 20k traces on PGlite) and grew with the table.
DROP INDEX IF EXISTS traces_search;
ALTER TABLE traces ADD COLUMN search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED;
CREATE INDEX traces_fulltext ON traces USING gin (search_tsv);
