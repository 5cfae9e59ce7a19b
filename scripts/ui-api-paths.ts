/**
 * src/ui/api/openapi.gen.ts from the OpenAPI document the server serves (`GET /api/openapi.json`):
 * the `paths` types the web app's client (src/ui/api/client.ts) checks every call against, so a
 * route, parameter or answer changed on the server fails the web app's typecheck. Like
 * docs/api-reference.md, test/foundation/api-reference.test.ts fails when the file is not current
 * and rewrites it with `npm run generate`.
 */
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export async function renderUiApiPaths(doc: object): Promise<string> {
  // `defaultNonNullable: false`: a field with a default is optional where the document does not
  // list it as required, as in a request body (the server fills it in); answers list theirs.
  // `silent` keeps openapi-typescript's progress lines out of the test's output.
  const ast = await openapiTS(JSON.parse(JSON.stringify(doc)) as Parameters<typeof openapiTS>[0], { silent: true, defaultNonNullable: false });
  return COMMENT_HEADER + astToString(ast);
}
