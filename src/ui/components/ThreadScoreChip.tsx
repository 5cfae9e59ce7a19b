import { Tooltip } from '@mantine/core';
import type { ThreadScore } from '../api/threads.ts';

/**
 * A thread score as a chip: the monitor's name and its verdict or score, with the turns it
 * covered. `verdictOnly`: without the name (a column of the threads list names the monitor).
 */
export function ThreadScoreChip({ score: s, verdictOnly = false }: { score: Pick<ThreadScore, 'name' | 'passed' | 'score' | 'status' | 'label' | 'turns'>; verdictOnly?: boolean }) {
  const verdict = s.status === 'error' ? 'error' : s.passed === true ? 'passed' : s.passed === false ? 'failed' : (s.label ?? (s.score !== null ? `score ${s.score}` : s.status));
  const mark = s.passed === true ? ' ✓' : s.passed === false ? ' ✗' : s.status === 'error' ? ' !' : '';
  const shownScore = s.passed === null && s.score !== null ? `${Math.round(s.score * 100) / 100}` : '';
  const word = s.passed === true ? 'Pass' : s.passed === false ? 'Fail' : s.status === 'error' ? 'Error' : shownScore || (s.label ?? s.status);
  return (
    <Tooltip label={`${s.name}: ${verdict} (turns 1–${s.turns})`}>
      <span className={`score-chip${s.passed === true ? ' pass' : s.passed === false || s.status === 'error' ? ' fail' : ''}`} tabIndex={0}>
        {verdictOnly ? word : `${s.name}${shownScore ? ` ${shownScore}` : ''}`}
        {mark}
      </span>
    </Tooltip>
  );
}
