import type { EntityType } from './entities.ts';

/** A name, place or group the NLP pass (nlp.ts) found in a text; recognizers read them from AnalyzeOptions. */
export interface NlpEntity {
  entity: EntityType;
  start: number;
  end: number;
  score: number;
}
