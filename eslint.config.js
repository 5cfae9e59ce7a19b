// ESLint: typescript-eslint with type information, react-hooks for the web app, and the
// house's boundaries (docs/architecture.md) as a rule of our own, so they are checked, not
// remembered.
import path from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const ROOT = import.meta.dirname;
const MODULES = path.join(ROOT, 'src/modules');
const PLATFORM = path.join(ROOT, 'src/platform');
const UI = path.join(ROOT, 'src/ui');
const SCHEMA = path.join(ROOT, 'src/db/schema');

/** The module folder (src/modules/<name>) a file belongs to, or null. */
function moduleOf(file) {
  const rel = path.relative(MODULES, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep)[0];
}

/**
 * A schema file: a module's `schemas.ts` (its zod contract), or a `*.schema.ts` file holding
 * pure pieces that the server and the web app both run (the template language's checks, the
 * permission vocabulary). Either may be imported from outside its module or platform folder.
 */
const isSchemaFile = (file) => /(^|[/\\])(schemas?|[^/\\]+\.schema)\.ts$/.test(file);

/** The start of an SQL statement in a string (an esquery regular expression for the lint's selectors). */
const SQL_STATEMENT = String.raw`/^\s*(SELECT\s|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|WITH\s+\w+\s+AS\s*\(|TRUNCATE\s)/`;

const within = (dir, file) => {
  const rel = path.relative(dir, file);
  return !rel.startsWith('..') && !path.isAbsolute(rel);
};

/**
 * - A module's files other than its index.ts and schema files are private to it: another
 *   module, app.ts or main.ts reaches it through `src/modules/<name>/index.ts`.
 * - `src/platform/` never imports a module.
 * - The web app (`src/ui/`) imports from the server only schema files (`schemas.ts`,
 *   `*.schema.ts`).
 * - A module's index.ts only re-exports (`export { ... } from`), and re-exports its one entry,
 *   module.ts: code and whole files (`export * as`) stay inside the module.
 * - A module imports tables only from its own schema file (src/db/schema/<module>.ts): each table
 *   has one owner (types of other owners' rows may be imported, `import type`).
 * - A module's module.ts exports its entry in the one shape every module has:
 *   `export const <name>Module: SpyglassModule<...>` (src/platform/module.ts), which app.ts lists.
 */
const boundaries = {
  meta: {
    type: 'problem',
    messages: {
      private: "{{target}} is private to the {{module}} module: import it through src/modules/{{module}}/index.ts",
      platform: 'src/platform/ never imports a module ({{target}}): pass what it needs in from the caller',
      ui: 'the web app imports from the server only schema files ({{target}}): the rest runs on the server',
      faceOnly: "a module's index.ts only re-exports what other modules may use (export { ... } from): put this in module.ts or another file of the module",
      entry: "a module's index.ts re-exports its entry, module.ts (its build and register functions)",
      tableOwner: "{{target}} holds another owner's tables: the {{module}} module imports tables only from src/db/schema/{{module}}.ts, and asks the owner's index.ts for the rest",
      shape: "a module's module.ts exports its entry as `export const {{name}}: SpyglassModule<...> = { name, register }` (src/platform/module.ts)",
    },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    function check(node) {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source);
      const rel = path.relative(ROOT, target);
      const targetModule = moduleOf(target);
      const typeOnly = node.importKind === 'type' || node.exportKind === 'type' || (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));
      if (moduleOf(file) && within(SCHEMA, target) && !typeOnly && target !== path.join(SCHEMA, `${moduleOf(file)}.ts`)) {
        context.report({ node: node.source, messageId: 'tableOwner', data: { target: rel, module: moduleOf(file) } });
      }
      if (within(UI, file)) {
        if (!within(UI, target) && within(path.join(ROOT, 'src'), target) && !isSchemaFile(target)) {
          context.report({ node: node.source, messageId: 'ui', data: { target: rel } });
        }
        return;
      }
      if (!targetModule) return;
      if (within(PLATFORM, file)) {
        context.report({ node: node.source, messageId: 'platform', data: { target: rel } });
        return;
      }
      if (moduleOf(file) === targetModule) return;
      // Schema files are a module's contract (the types and checks its routes, other modules and
      // the web app share); the rest is reached through index.ts.
      const face = target === path.join(MODULES, targetModule, 'index.ts') || (path.dirname(target) === path.join(MODULES, targetModule) && isSchemaFile(target));
      if (!face) {
        context.report({ node: node.source, messageId: 'private', data: { target: rel, module: targetModule } });
      }
    }
    const face = moduleOf(file) !== null && file === path.join(MODULES, moduleOf(file), 'index.ts');
    function checkFace(program) {
      let entry = false;
      for (const statement of program.body) {
        const reExport = (statement.type === 'ExportNamedDeclaration' && statement.source) || (statement.type === 'ExportAllDeclaration' && !statement.exported);
        if (!reExport) context.report({ node: statement, messageId: 'faceOnly' });
        else if (statement.source.value === './module.ts') entry = true;
      }
      if (!entry) context.report({ node: program, messageId: 'entry' });
    }
    const entryFile = moduleOf(file) !== null && file === path.join(MODULES, moduleOf(file), 'module.ts');
    function checkEntry(program) {
      const name = `${moduleOf(file).replace(/-(\w)/g, (_, c) => c.toUpperCase())}Module`;
      const shaped = program.body.some(
        (s) =>
          s.type === 'ExportNamedDeclaration' &&
          s.declaration?.type === 'VariableDeclaration' &&
          s.declaration.kind === 'const' &&
          s.declaration.declarations.some((d) => d.id.name === name && d.id.typeAnnotation?.typeAnnotation.type === 'TSTypeReference' && d.id.typeAnnotation.typeAnnotation.typeName.name === 'SpyglassModule'),
      );
      if (!shaped) context.report({ node: program, messageId: 'shape', data: { name } });
    }
    const program = face ? { Program: checkFace } : entryFile ? { Program: checkEntry } : {};
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check, ...program };
  },
};

export default tseslint.config(
  // src/ui/api/openapi.gen.ts is openapi-typescript's output (`npm run generate`), not ours to lint.
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'bench/results/', 'bench/.before/', '**/*.mjs', '**/*.cjs', 'src/ui/api/openapi.gen.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: ROOT },
    },
    plugins: { house: { rules: { boundaries } } },
    rules: {
      // Unused arguments keep a handler's signature readable; an underscore says so.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // The house's boundaries bind the product's code. Tests and benchmarks may reach inside a
    // module to measure or check one piece (a recognizer, a decoder) on its own.
    files: ['src/**/*.{ts,tsx}'],
    rules: { 'house/boundaries': 'error' },
  },
  {
    // Only a module's store files (store.ts, *-store.ts, store/) import db/schema's tables or
    // write SQL (a sql`...` template, or a statement in a plain string); the rest of a module
    // reaches its data through them (docs/architecture.md). With test/foundation/table-owners
    // (each table's one owner) and test/foundation/house-shape (no import cycles, module.ts).
    files: ['src/modules/**/*.ts'],
    ignores: [
      'src/modules/**/store.ts',
      'src/modules/**/*-store.ts',
      'src/modules/**/store/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'drizzle-orm', importNames: ['sql'], message: 'SQL is written in the module\'s store files only (store.ts, *-store.ts).' }],
          patterns: [{ group: ['**/db/schema', '**/db/schema/**'], allowTypeImports: true, message: 'Tables are read and written in the module\'s store files only (store.ts, *-store.ts).' }],
        },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: 'SQL is written in the module\'s store files only (store.ts, *-store.ts).' },
        // A statement in a string or template literal (what a driver's query() takes): the
        // keywords in capitals, as the house writes SQL, so prose ("Select a model") passes.
        { selector: `Literal[value=${SQL_STATEMENT}]`, message: 'SQL is written in the module\'s store files only (store.ts, *-store.ts).' },
        { selector: `TemplateElement[value.raw=${SQL_STATEMENT}]`, message: 'SQL is written in the module\'s store files only (store.ts, *-store.ts).' },
      ],
    },
  },
  {
    // Tests and benchmarks read HTTP answers as untyped JSON on purpose (res.body is any):
    // what they check is in their assertions, not in types.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // A test double of a promise-returning interface (an evaluator, a job handler) is written
      // `async` even with nothing to await: its throw must reach the caller as a rejection, as
      // the real one's would, and that path is often what the test is about.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/ui/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // This rule only says that React Compiler would leave a component unmemoized (TanStack
      // Virtual's useVirtualizer); the build does not run the compiler (esbuild's JSX, no Babel),
      // so there is nothing to act on. Turn it back on with the compiler.
      'react-hooks/incompatible-library': 'off',
      // TanStack Router's redirect() is thrown by design: a Response the router catches in
      // beforeLoad, not an error.
      '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'package', package: '@tanstack/router-core', name: 'Redirect' }] }],
    },
  },
  {
    // One way to show "still loading" on every page: components/QueryState.tsx's Loading (or
    // QueryState/Unloaded around a query), so a spinner always has its label and its place.
    files: ['src/ui/**/*.tsx'],
    ignores: ['src/ui/components/QueryState.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: '@mantine/core', importNames: ['Loader'], message: "Use Loading, Unloaded or QueryState from components/QueryState.tsx." }] }],
    },
  },
  {
    // Files no tsconfig includes: src/ui/vite.config.ts runs in Node, so the web app's tsconfig
    // (DOM, bundler resolution) leaves it out and the server's excludes src/ui. They are linted
    // without type information rather than typed by the wrong project.
    files: ['eslint.config.js', 'scripts/**/*.ts', 'src/ui/vite.config.ts'],
    ...tseslint.configs.disableTypeChecked,
  },
);
