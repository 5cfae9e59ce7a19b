-- Repetitions: a row of a run may be run k times (a server run's `repetitions`, an SDK run's
-- `repetition` index). Each result and evaluation keeps its repetition (0 for the first, and for
-- every result logged without one), and the key of a result grows by it.
ALTER TABLE experiment_results ADD COLUMN repetition integer NOT NULL DEFAULT 0;
ALTER TABLE experiment_results DROP CONSTRAINT experiment_results_pkey;
ALTER TABLE experiment_results ADD PRIMARY KEY (experiment_id, run_id, idx, target_id, repetition);

ALTER TABLE experiment_evaluations ADD COLUMN repetition integer NOT NULL DEFAULT 0;
ALTER TABLE experiment_evaluations DROP CONSTRAINT experiment_evaluations_pkey;
ALTER TABLE experiment_evaluations ADD PRIMARY KEY (experiment_id, run_id, idx, target_id, evaluator, repetition);
