export { buildPrompts, promptsModule, type Prompts } from './module.ts';
export type { PromptRunner, PromptScope, PreparedPromptRun, VersionSelection } from './context.ts';
export type { PromptView, TagView } from './presenters.ts';
export { promptSchema, selectionQuery, tagBody, tagSchema, updatePromptBody } from './schemas.ts';
