-- The channels a rule notifies: a JSON array of alert channel ids; NULL: every channel of the
-- project (what rules made before this did). A deleted channel is taken out of every rule.
ALTER TABLE alert_rules ADD COLUMN channel_ids jsonb;
