-- Spans, traces and outbox events are written by the hundred per ingest request, and a
-- foreign key checks (and share-locks) the project row once per row written: 160 checks
-- per 100 spans, a fifth of PGlite's ingest time (measured: see the README's numbers).
-- Integrity stays: the ingest transaction share-locks its project row once, so a project
-- cannot be deleted under it, and deleting a project deletes its traces and spans in the
-- same transaction (organizations module's project-deleted hook). Events of a deleted
-- project stay in the outbox, without receivers, until the outbox prune removes them.
ALTER TABLE spans DROP CONSTRAINT IF EXISTS spans_project_id_fkey;
ALTER TABLE traces DROP CONSTRAINT IF EXISTS traces_project_id_fkey;
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_organization_id_fkey;
ALTER TABLE events DROP CONSTRAINT IF EXISTS events_project_id_fkey;

-- The outbox is read in (txid, seq) order only (events_txid_seq); this index only cost writes.
DROP INDEX IF EXISTS events_project_seq;
