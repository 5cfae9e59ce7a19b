-- The threads list filters and sorts threads by their newest result of one thread evaluation
-- (a thread monitor's name): read per project and name, newest first per thread.
CREATE INDEX thread_evaluations_name ON thread_evaluations (project_id, name, thread_id, inserted_at DESC);
