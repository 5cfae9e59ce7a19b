-- The channels a rule notifies: a JSON array of alert channel ids; NULL: every channel of the
-- project (what rules made before this did). A deleted channel is taken out of every rule.
ALTER TABLE alert_rules ADD COLUMN channel_ids jsonb;

-- Which rule each message is about: a rule's page lists its notifications.
ALTER TABLE alert_deliveries ADD COLUMN rule_id text;
CREATE INDEX alert_deliveries_rule ON alert_deliveries (rule_id, created_at DESC);
