import { catalogueFor, customCatalogueEntry, type CatalogueAvailability } from '../catalogue.ts';
import type { EvaluationScope, EvaluatorsContext } from '../context.ts';
import { listCustom } from '../custom/manage-custom.ts';

/** The built-in evaluators (with whether this server's environment lets each run, and why not), then the project's custom ones (custom/<slug>) at their newest version. */
export async function projectCatalogue(ctx: EvaluatorsContext, scope: EvaluationScope): Promise<CatalogueAvailability[]> {
  const custom = await listCustom(ctx, scope.projectId);
  const entries: CatalogueAvailability[] = [];
  for (const c of custom) {
    let reason: string | null = null;
    try {
      const providers = await ctx.models.providersFor(scope, c.model, 'model');
      const provider = c.model.slice(0, c.model.indexOf('/'));
      if (!providers?.has(provider) && !ctx.models.env.OPENAI_API_KEY) reason = `Its model ${c.model} needs OPENAI_API_KEY on the server, or a model provider named ${provider} set in the app.`;
    } catch (err) {
      reason = err instanceof Error ? err.message.replace(/^model: /, '') : String(err);
    }
    entries.push(customCatalogueEntry({ path: c.path, name: c.name, description: c.description ?? `Custom LLM judge (${c.answer.type.replace('_', '/')})`, variables: c.variables, version: c.version, available: reason === null, unavailableReason: reason }));
  }
  return [...catalogueFor(ctx.models.env), ...entries];
}
