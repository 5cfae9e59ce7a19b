import { variablesOf } from './definition.ts';
import { customConfigSchema, type CustomEvaluatorView } from './schemas.ts';
import type { CustomRow, VersionRow } from './store.ts';

export function presentCustom(row: CustomRow, version: VersionRow): CustomEvaluatorView {
  const config = customConfigSchema.parse(version.config);
  return {
    id: row.id,
    slug: row.slug,
    path: `custom/${row.slug}`,
    name: row.name,
    description: row.description,
    version: version.version,
    latest_version: row.latestVersion,
    ...config,
    variables: variablesOf(config.prompt),
    commit_message: version.commitMessage,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
