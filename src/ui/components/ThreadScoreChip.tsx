import { Tooltip } from '@mantine/core';
import type { ThreadScore } from '../api/threads.ts';

/** A thread score as a chip: the monitor's name and its verdict or score, with the turns it covered. */
export function ThreadScoreChip({ score: s }: { score: Pick<ThreadScore, 'name' | 'passed' | 'score' | 'status' | 'label' | 'turns'> }) {
  const verdict = s.status === 'error' ? 'error' : s.passed === true ? 'passed' : s.passed === false ? 'failed' : (s.label ?? (s.score !== null ? `score ${s.score}` : s.status));
  return (
    <Tooltip label={`${s.name}: ${verdict} (turns 1–${s.turns})`}>
      <span className={`score-chip${s.passed === true ? ' pass' : s.passed === false || s.status === 'error' ? ' fail' : ''}`} tabIndex={0}>
        {s.name}
        {s.passed === null && s.score !== null ? ` ${Math.round(s.score * 100) / 100}` : ''}
        {s.passed === true ? ' ✓' : s.passed === false ? ' ✗' : s.status === 'error' ? ' !' : ''}
      </span>
    </Tooltip>
  );
}
