import type { Database } from '../../db/index.ts';
import type { ScoreConfigService } from '../annotations/index.ts';

export interface JudgeAlignmentContext {
  db: Database;
  scoreConfigs: ScoreConfigService;
}
