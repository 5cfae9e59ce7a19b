-- What a public share hides from its visitors: the end user, the trace's
-- metadata, the spans' attributes. Shares made before this keep showing everything.
ALTER TABLE trace_shares ADD COLUMN hide_user boolean NOT NULL DEFAULT false;
ALTER TABLE trace_shares ADD COLUMN hide_metadata boolean NOT NULL DEFAULT false;
ALTER TABLE trace_shares ADD COLUMN hide_span_attributes boolean NOT NULL DEFAULT false;
