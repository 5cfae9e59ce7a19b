-- What a project needs before it trusts a judge (the judge-alignment module's table): the
-- statistic held to the bar (kappa or accuracy for pass/fail and categories; numeric scores are
-- always held by Spearman's rho), the bar its 95 % lower bound must reach, and the labels needed.
-- A project without a row uses the documented default (kappa >= 0.6 on at least 50 labels).
CREATE TABLE judge_trust_rules (
  project_id text PRIMARY KEY,
  statistic text NOT NULL CHECK (statistic IN ('kappa', 'accuracy')),
  at_least double precision NOT NULL CHECK (at_least >= -1 AND at_least <= 1),
  minimum_labels int NOT NULL CHECK (minimum_labels >= 1),
  updated_at bigint NOT NULL
);
