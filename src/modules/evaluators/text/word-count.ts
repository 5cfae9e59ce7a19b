import { z } from 'zod';
import { check } from '../checks/index.ts';

/** example/word_count: langevals' example evaluator, words split by single spaces. */
export const wordCount = check({
  path: 'example/word_count',
  name: 'Example Evaluator',
  description: 'Counts the words of the output, split by space (langevals’ example evaluator).',
  data: z.object({ output: z.string().describe('The text counted.') }),
  settings: z.object({}),
  evaluate: ({ data }) => {
    const found = data.output.split(' ');
    return Promise.resolve({ status: 'processed', score: found.length, details: `Words found: ${found.join(', ')}` });
  },
});
