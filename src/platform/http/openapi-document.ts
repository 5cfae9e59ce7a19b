import { jsonSchemaTransformObject } from 'fastify-type-provider-zod';

type TransformObject = typeof jsonSchemaTransformObject;

/**
 * The document's named schemas come from zod's global registry in the order their modules
 * were first imported; that order differs between a server and a test worker that loaded
 * other files first. Sorted by name, the document (and everything generated from it) is the
 * same wherever it is made.
 */
export const sortedJsonSchemaTransformObject: TransformObject = (input) => {
  const document = jsonSchemaTransformObject(input) as { components?: { schemas?: Record<string, unknown> } };
  const schemas = document.components?.schemas;
  if (schemas) {
    document.components!.schemas = Object.fromEntries(Object.keys(schemas).sort().map((name) => [name, schemas[name]]));
  }
  return document as ReturnType<TransformObject>;
};
