-- The summaries' full-text index (GIN) keeps new entries in an unsorted pending list until the
-- list outgrows gin_pending_list_limit (4 MB by default; the writer that outgrows it then merges
-- them all, in its transaction) or a vacuum merges it, and every text search reads the whole
-- list of every day's partition it searches. At 1M traces copied in bulk over 30 days, about
-- 8,000 entries waited in each day's list, and a text query on a rare word spent 70-180 ms a
-- day reading them (under load). On PGlite (no autovacuum), ingest already set 256 kB for its
-- own transactions: every search read about a quarter of the CPU it did against 4 MB, and the
-- writes cost about the same (docs/performance.md: Ingest against a raw insert, and overload).
-- The index now carries that limit itself, on both databases and every partition, present and
-- future: it is made again with it, and each day's partition copies it.
DROP INDEX traces_fulltext;
CREATE INDEX traces_fulltext ON traces USING gin (search_tsv) WITH (gin_pending_list_limit = 256);
