import { TYPE_CHECKS, placeholdersOf } from '../../modules/prompts/template.schema.ts';
import type { PromptInputType, PromptOutputType } from '../api/types.ts';

/** Every input type the API accepts, with its value check (the same code compile runs). */
export const INPUT_TYPES = Object.keys(TYPE_CHECKS) as PromptInputType[];
/** The compile route's own code: which variables a template uses, and each input type's check. */
export { TYPE_CHECKS as INPUT_TYPE_CHECKS, placeholdersOf };

/** The output types; the compiler refuses a list that misses or adds one (the schema is the source). */
const OUTPUTS = ['str', 'float', 'bool', 'json_schema'] as const satisfies readonly PromptOutputType[];
type Missing = Exclude<PromptOutputType, (typeof OUTPUTS)[number]>;
export const OUTPUT_TYPES: [Missing] extends [never] ? PromptOutputType[] : never = [...OUTPUTS];
