-- A prompt version's model parameters (temperature, max_tokens, top_p, stop, seed,
-- response_format, tools, tool_choice): what the playground's "save as new version" keeps,
-- and what a run of that version sends unless the run says otherwise.
ALTER TABLE prompt_versions ADD COLUMN parameters jsonb NOT NULL DEFAULT '{}'::jsonb;
