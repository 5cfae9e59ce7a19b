-- Thread monitors' results and people's thread scores as analytics series: read per project
-- over a range of when they were stored.
CREATE INDEX thread_evaluations_project_time ON thread_evaluations (project_id, inserted_at);
CREATE INDEX thread_review_scores_project_time ON thread_review_scores (project_id, created_at);
