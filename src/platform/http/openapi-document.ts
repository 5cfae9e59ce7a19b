import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { TAG_TITLE } from './route-group.ts';

type TransformObject = typeof jsonSchemaTransformObject;

interface Document {
  components?: { schemas?: Record<string, unknown> };
  paths?: Record<string, Record<string, Record<string, unknown>>>;
  tags?: { name: string; 'x-displayName': string }[];
}

/**
 * The document as the API reference reads it:
 * - its named schemas come from zod's global registry in the order their modules were first
 *   imported; that order differs between a server and a test worker that loaded other files
 *   first. Sorted by name, the document (and everything generated from it) is the same wherever
 *   it is made;
 * - its `tags` name each section with the title its route group declared (`tag` of
 *   route-group.ts), in the order the routes were added; the operations keep only the name.
 */
export const sortedJsonSchemaTransformObject: TransformObject = (input) => {
  const document = jsonSchemaTransformObject(input) as Document;
  const schemas = document.components?.schemas;
  if (schemas) {
    document.components!.schemas = Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
  }
  const titles = new Map<string, string>();
  for (const operations of Object.values(document.paths ?? {})) {
    for (const op of Object.values(operations)) {
      const name = (op.tags as string[] | undefined)?.[0];
      const title = op[TAG_TITLE];
      delete op[TAG_TITLE];
      if (name === undefined || typeof title !== 'string') continue;
      const known = titles.get(name);
      if (known !== undefined && known !== title) throw new Error(`the tag ${name} has two titles: "${known}" and "${title}"`);
      titles.set(name, title);
    }
  }
  if (titles.size) document.tags = [...titles].map(([name, title]) => ({ name, 'x-displayName': title }));
  return document;
};
