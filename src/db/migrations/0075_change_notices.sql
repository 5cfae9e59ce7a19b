-- Every server process keeps copies of a project key's row and a project's privacy settings
-- (each request reads them). A change to either table tells every process listening on the
-- primary at once (NOTIFY spyglass_changes, with the table's name, delivered at commit), so
-- that a process may keep its copies until told, instead of reading the primary again every
-- second (src/db/changes.ts). A key's "last used" time, written once a minute while it is
-- used, changes nothing a copy decides and tells nobody.
CREATE FUNCTION spyglass_change_notice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('spyglass_changes', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_change_notice AFTER UPDATE ON api_keys FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION spyglass_change_notice();
CREATE TRIGGER api_keys_delete_notice AFTER DELETE ON api_keys FOR EACH STATEMENT
  EXECUTE FUNCTION spyglass_change_notice();
CREATE TRIGGER privacy_settings_change_notice AFTER INSERT OR UPDATE OR DELETE ON privacy_settings FOR EACH STATEMENT
  EXECUTE FUNCTION spyglass_change_notice();
