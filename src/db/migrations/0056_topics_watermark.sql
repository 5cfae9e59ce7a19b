-- Topics: where embedding new traces got to. Each round reads the traces first ingested since
-- this position (less a margin for transactions that committed late) instead of looking for
-- traces without an embedding across the whole table, so a round costs what arrived, not what
-- is stored.
ALTER TABLE topic_settings ADD COLUMN embedded_through bigint;
