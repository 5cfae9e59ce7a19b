import type { Database } from '../../db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DetectionPool } from './detection-pool.ts';
import type { Detector } from './detect.ts';
import type { RedactionMeter } from './redaction.ts';
import type { Policies } from './policies.ts';

/** What the privacy module's use cases work with. */
export interface PrivacyContext {
  db: Database;
  clock: Clock;
  /** The installation's keyed hash (the token-hash key): each project's key of hash-mode tokens is made with it. */
  keyedHash: (label: string) => string;
  /** The detector of texts searched on the calling thread (not prepared, or no pool). */
  detector: Detector;
  /** Worker threads that search prepared texts; null: every text is searched on the calling thread (a test's injected detector, or 0 threads configured). */
  detection: DetectionPool | null;
  /** How long detecting in one value may take before it is stored as [redaction failed]. */
  budgetMs: number;
  meter: RedactionMeter;
  /** This process's copy of the projects' settings. */
  policies: Policies;
}
