export { PromptService, DEFAULT_VERSION, type PromptContext, type PromptView, type TagView } from './service.ts';
export { promptRoutes } from './routes.ts';
export { promptSchema, selectionQuery, tagBody, tagSchema, updatePromptBody } from './schemas.ts';
