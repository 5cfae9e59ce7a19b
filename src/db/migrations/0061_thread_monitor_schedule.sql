-- A thread monitor runs either once a thread has been idle (idle_minutes) or on a schedule
-- (schedule_minutes: every so many minutes on the UTC clock), never both. The monitors module
-- owns the column.
ALTER TABLE monitors ADD COLUMN schedule_minutes integer CHECK (schedule_minutes IS NULL OR (schedule_minutes >= 5 AND schedule_minutes <= 10080));
ALTER TABLE monitors ADD CONSTRAINT monitors_one_trigger CHECK (idle_minutes IS NULL OR schedule_minutes IS NULL);
