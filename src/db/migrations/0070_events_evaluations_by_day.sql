-- The events outbox and evaluation results partitioned by day too (native range partitions on
-- `day`: UTC days since 1970-01-01, as 0069 did for spans and traces), so that neither is
-- emptied row by row:
-- - an evaluation result is stored in its trace's day (the day of a result whose trace is not
--   stored yet is the day it was stored on): the traces' days are made and dropped with the
--   results' (db/day-partitions.ts), and a day dropped by retention takes its results along;
-- - an outbox event is stored in the day it was written on (created_at); the webhook
--   dispatcher drops a day once every event of it was fanned out and the day is a day old.
-- Keys carry the day, as PostgreSQL requires of a partitioned table's unique constraints:
-- events (seq, day) and UNIQUE (id, day); evaluations (id, day). Both ids are made unique by
-- the app (newId), the seq by its sequence.
--
-- Existing installations are converted in place, as 0069 did: each table is renamed, a
-- partitioned table takes its name, its days are made, the rows copied, and the old table's
-- indexes and foreign keys made again on the partitioned table.

CREATE FUNCTION pg_temp.day_partition(tbl text, d integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
    tbl || '_d' || to_char(date '1970-01-01' + d, 'YYYYMMDD'), tbl, d, d + 1);
END $$;

-- Renames `tbl`, makes the partitioned `tbl` (its columns, defaults, generated columns and
-- checks, plus `day` with `day_default`, keyed by `keys`) and its default partition; answers
-- the old table's index and foreign key definitions other than its keys, to be made once the
-- rows are in.
CREATE FUNCTION pg_temp.start_partitioning(tbl text, keys text, day_default text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
  defs text[];
  fks text[];
  old text := tbl || '_unpartitioned';
  con record;
BEGIN
  SELECT coalesce(array_agg(i.indexdef ORDER BY i.indexname), '{}') INTO defs
    FROM pg_indexes i
   WHERE i.schemaname = 'public' AND i.tablename = tbl
     AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = tbl::regclass AND c.conname = i.indexname);
  SELECT coalesce(array_agg(format('ALTER TABLE %I ADD CONSTRAINT %I %s', tbl, c.conname, pg_get_constraintdef(c.oid)) ORDER BY c.conname), '{}') INTO fks
    FROM pg_constraint c WHERE c.conrelid = tbl::regclass AND c.contype = 'f';
  EXECUTE format('ALTER TABLE %I RENAME TO %I', tbl, old);
  -- Constraint names (and their indexes' names) are free for the new table.
  FOR con IN SELECT c.conname FROM pg_constraint c WHERE c.conrelid = old::regclass AND c.contype IN ('p', 'u', 'f') LOOP
    EXECUTE format('ALTER TABLE %I RENAME CONSTRAINT %I TO %I', old, con.conname, con.conname || '_old');
  END LOOP;
  EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION,
                    day integer NOT NULL DEFAULT %s, %s) PARTITION BY RANGE (day)', tbl, old, day_default, keys);
  EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', tbl || '_default', tbl);
  RETURN defs || fks;
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
  evaluation_defs text[];
  event_defs text[];
  today text := '(floor(extract(epoch FROM now()) / 86400))::integer';
  d integer;
  cols text;
BEGIN
  evaluation_defs := pg_temp.start_partitioning('evaluations', 'PRIMARY KEY (id, day)', today);
  event_defs := pg_temp.start_partitioning('events', 'PRIMARY KEY (seq, day), UNIQUE (id, day)', today);
  -- The outbox's sequence now belongs to the partitioned table (else it goes with the old one).
  ALTER SEQUENCE events_seq_seq OWNED BY events.seq;

  -- Evaluation results take the traces' days (0069 made one per day holding traces); a result of
  -- a day without one (its trace never came, and no trace started that day) stays in the default.
  FOR d IN
    SELECT to_date(substr(c.relname, 9), 'YYYYMMDD') - date '1970-01-01'
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'traces'::regclass AND c.relname ~ '^traces_d[0-9]{8}$'
  LOOP
    PERFORM pg_temp.day_partition('evaluations', d);
  END LOOP;
  cols := pg_temp.insertable('evaluations_unpartitioned');
  EXECUTE format('INSERT INTO evaluations (%s, day)
                  SELECT %s, coalesce(t.day, floor(e.inserted_at / 86400000.0)::int)
                    FROM evaluations_unpartitioned e
                    LEFT JOIN (SELECT project_id, trace_id, min(day) AS day FROM traces GROUP BY 1, 2) t USING (project_id, trace_id)',
                 cols, (SELECT string_agg('e.' || c, ', ') FROM unnest(string_to_array(cols, ', ')) c));

  FOR d IN SELECT DISTINCT floor(extract(epoch FROM created_at) / 86400)::int FROM events_unpartitioned LOOP
    PERFORM pg_temp.day_partition('events', d);
  END LOOP;
  cols := pg_temp.insertable('events_unpartitioned');
  EXECUTE format('INSERT INTO events (%s, day) SELECT %s, floor(extract(epoch FROM created_at) / 86400)::int FROM events_unpartitioned', cols, cols);

  PERFORM pg_temp.finish_partitioning('evaluations', evaluation_defs);
  PERFORM pg_temp.finish_partitioning('events', event_defs);
END $$;

DROP FUNCTION pg_temp.day_partition(text, integer);
DROP FUNCTION pg_temp.start_partitioning(text, text, text);
DROP FUNCTION pg_temp.insertable(text);
DROP FUNCTION pg_temp.finish_partitioning(text, text[]);
