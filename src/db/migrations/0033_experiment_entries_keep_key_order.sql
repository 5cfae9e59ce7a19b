-- json, not jsonb: a result's dataset entry and prediction read back with their keys in the
-- order the SDK sent them (a DataFrame's columns), as dataset records already do (0018).
-- Rows written before keep the order jsonb gave them. The values are the same JSON: nothing
-- that reads them changes, and none of them is compared or indexed as jsonb.
ALTER TABLE experiment_results ALTER COLUMN entry TYPE json USING entry::json;
ALTER TABLE experiment_results ALTER COLUMN predicted TYPE json USING predicted::json;
