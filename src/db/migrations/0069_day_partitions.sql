-- Spans and trace summaries partitioned by day (native range partitions on `day`: UTC days
-- since 1970-01-01), so that retention drops a whole day instead of deleting its rows.
--
-- A trace's day is the UTC day its summary started on when it was first stored, and it never
-- changes: every span of the trace is stored in the trace's day, so (project_id, trace_id,
-- span_id) stays unique although the keys carry the day. Each table has a DEFAULT partition
-- for a day whose partition does not exist (the app makes days ahead and before each ingest
-- transaction; the default should stay empty).
--
-- Existing installations are converted in place: each table is renamed, a partitioned table
-- takes its name, one partition per day found is made, the rows are copied, and the old
-- table's indexes (whatever migrations made them, read from the catalogue) are made again on
-- the partitioned table, which makes them on every partition, present and future.

CREATE FUNCTION pg_temp.day_partition(tbl text, d integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
    tbl || '_d' || to_char(date '1970-01-01' + d, 'YYYYMMDD'), tbl, d, d + 1);
END $$;

-- Renames `tbl`, makes the partitioned `tbl` (its columns, defaults, generated columns and
-- checks, plus `day`, keyed by `pk`) and its default partition; answers the old table's
-- index definitions other than its primary key, to be made once the rows are in.
CREATE FUNCTION pg_temp.start_partitioning(tbl text, pk text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  defs text[];
  old text := tbl || '_unpartitioned';
BEGIN
  SELECT coalesce(array_agg(i.indexdef ORDER BY i.indexname), '{}') INTO defs
    FROM pg_indexes i
   WHERE i.schemaname = 'public' AND i.tablename = tbl
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = tbl::regclass AND c.conname = i.indexname);
  EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
  EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', old, tbl || '_pkey', old || '_pkey');
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION,
                    day integer NOT NULL, PRIMARY KEY (%s)) PARTITION BY RANGE (day)', tbl, old, pk);
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
  RETURN defs;
END $$;

-- The columns of `tbl` an INSERT may set (not generated), as a list.
CREATE FUNCTION pg_temp.insertable(tbl text) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
    FROM pg_attribute a
   WHERE a.attrelid = tbl::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '' AND a.attname <> 'day'
$$;

CREATE FUNCTION pg_temp.finish_partitioning(tbl text, defs text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  def text;
BEGIN
  EXECUTE format('DROP TABLE %I', tbl || '_unpartitioned');
  FOREACH def IN ARRAY defs LOOP
    EXECUTE def;
  END LOOP;
END $$;

DO $$
DECLARE
  trace_defs text[];
  span_defs text[];
  d integer;
  cols text;
BEGIN
  trace_defs := pg_temp.start_partitioning('traces', 'project_id, trace_id, day');
  span_defs := pg_temp.start_partitioning('spans', 'project_id, trace_id, span_id, day');
  -- Both tables get the same days: each trace's own, and the start days of spans without a trace.
  FOR d IN
    SELECT floor(started_at / 86400000.0)::int FROM traces_unpartitioned
    UNION SELECT floor(s.started_at / 86400000.0)::int FROM spans_unpartitioned s
      WHERE NOT EXISTS (SELECT 1 FROM traces_unpartitioned t WHERE t.project_id = s.project_id AND t.trace_id = s.trace_id)
  LOOP
    PERFORM pg_temp.day_partition('traces', d);
    PERFORM pg_temp.day_partition('spans', d);
  END LOOP;
  cols := pg_temp.insertable('traces_unpartitioned');
  EXECUTE format('INSERT INTO traces (%s, day) SELECT %s, floor(started_at / 86400000.0)::int FROM traces_unpartitioned', cols, cols);
  cols := pg_temp.insertable('spans_unpartitioned');
  EXECUTE format('INSERT INTO spans (%s, day) SELECT %s, coalesce(t.day, floor(s.started_at / 86400000.0)::int)
                    FROM spans_unpartitioned s LEFT JOIN (SELECT project_id, trace_id, floor(started_at / 86400000.0)::int AS day FROM traces_unpartitioned) t
                    USING (project_id, trace_id)',
                 cols, (SELECT string_agg('s.' || c, ', ') FROM unnest(string_to_array(cols, ', ')) c));
  PERFORM pg_temp.finish_partitioning('traces', trace_defs);
  PERFORM pg_temp.finish_partitioning('spans', span_defs);
END $$;

DROP FUNCTION pg_temp.day_partition(text, integer);
DROP FUNCTION pg_temp.start_partitioning(text, text);
DROP FUNCTION pg_temp.insertable(text);
DROP FUNCTION pg_temp.finish_partitioning(text, text[]);
