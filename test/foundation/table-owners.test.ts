import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every table has one owner: the module (or platform piece) whose store files alone read and
 * write it, and whose name its schema file bears (src/db/schema/<owner>.ts). Another module
 * reaches the data through the owner's functions. A new table without an owner, a table
 * declared in another owner's schema file, or SQL over another owner's table fails here.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

interface Owner {
  /** The folder under src/ whose files may touch the tables. */
  dir: string;
  /** The schema file holding the tables' drizzle definitions (some tables have none: SQL only). */
  schema: string;
  tables: string[];
}

const module = (name: string, tables: string[]): Owner => ({ dir: `modules/${name}`, schema: `${name}.ts`, tables });

const OWNERS: Owner[] = [
  module('organizations', ['organizations', 'users', 'memberships', 'projects', 'user_sessions', 'invitations', 'password_resets', 'auth_throttle']),
  module('api-keys', ['api_keys', 'api_key_bindings']),
  module('traces', ['traces', 'spans', 'span_log_events', 'trace_shares', 'trace_views', 'trace_rollups', 'trace_thumb_rollups', 'trace_verdict_rollups', 'trace_hours_dirty']),
  module('prompts', ['prompts', 'prompt_versions', 'prompt_tags']),
  module('annotations', ['annotations', 'score_configs', 'annotation_scores', 'thread_reviews', 'thread_review_scores']),
  module('agent-cache', ['agent_cache_entries']),
  module('webhooks', ['webhook_endpoints', 'webhook_outbox_cursor', 'webhook_dispatches', 'webhook_delivery_attempts']),
  module('evaluators', ['evaluations', 'custom_evaluators', 'custom_evaluator_versions']),
  module('model-providers', ['model_providers']),
  module('monitors', ['monitors', 'monitor_backfills']),
  module('datasets', ['datasets', 'dataset_records', 'dataset_versions', 'dataset_imports']),
  module('experiments', ['experiments', 'experiment_runs', 'experiment_results', 'experiment_evaluations', 'experiment_definitions', 'experiment_platform_runs']),
  module('review', ['review_queues', 'review_queue_items']),
  module('privacy', ['privacy_settings']),
  module('alerts', ['alert_rules', 'alert_windows', 'alert_evaluations', 'alert_channels', 'alert_deliveries', 'alert_reports', 'alert_report_periods']),
  module('simulations', ['simulation_runs', 'simulation_scenarios', 'simulation_server_runs']),
  module('judge-alignment', ['judge_trust_rules', 'judge_version_comparisons']),
  module('dashboards', ['dashboards']),
  module('threads', ['thread_evaluations']),
  module('topics', ['topic_settings', 'topics', 'trace_topics']),
  { dir: 'platform/events', schema: 'events.ts', tables: ['events'] },
  { dir: 'platform/jobs', schema: 'jobs.ts', tables: ['jobs'] },
  { dir: 'platform/periodic.ts', schema: 'periodic.ts', tables: ['periodic_tasks'] },
  { dir: 'ops', schema: 'installation-keys.ts', tables: ['installation_keys'] },
];

/**
 * Files outside an owner that still touch its tables, each with the reason. The list only
 * shrinks: a new entry needs the same kind of reason.
 */
const CROSSINGS: { file: string; tables: string[] | '*'; why: string }[] = [
  { file: 'modules/webhooks/store.ts', tables: ['events'], why: 'the webhook dispatcher is the outbox\'s one reader: it reads events past its cursor and prunes those it has passed' },
  { file: 'ops/backup.ts', tables: '*', why: 'a backup copies every table, below the modules' },
  { file: 'ops/move-to-postgres.ts', tables: '*', why: 'the move to PostgreSQL copies every table, below the modules' },
];

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return /\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** Tables made by the migrations. */
function migratedTables(): Set<string> {
  const tables = new Set<string>();
  const dir = path.join(SRC, 'db/migrations');
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    for (const m of fs.readFileSync(path.join(dir, file), 'utf8').matchAll(/create table (?:if not exists )?"?([a-z_]+)"?/gi)) tables.add(m[1].toLowerCase());
  }
  return tables;
}

/** drizzle binding -> table, and table -> the schema file declaring it. */
function schemaTables(): { bindings: Map<string, string>; fileOf: Map<string, string> } {
  const bindings = new Map<string, string>();
  const fileOf = new Map<string, string>();
  const dir = path.join(SRC, 'db/schema');
  for (const file of fs.readdirSync(dir)) {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/export const (\w+)\s*=\s*pgTable\(\s*'([a-z_]+)'/g)) {
      bindings.set(m[1], m[2]);
      fileOf.set(m[2], file);
    }
  }
  return { bindings, fileOf };
}

/** The text of the SQL a file writes: its sql`...` templates and string literals that are statements. */
function sqlTexts(source: string): string[] {
  const texts: string[] = [];
  for (const start of source.matchAll(/\bsql(?:\.raw\()?`/g)) {
    let i = start.index + start[0].length;
    let depth = 0;
    let text = '';
    for (; i < source.length; i++) {
      const c = source[i];
      if (depth === 0 && c === '`') break;
      if (c === '$' && source[i + 1] === '{') depth++;
      else if (c === '}' && depth > 0) depth--;
      text += c;
    }
    texts.push(text);
  }
  for (const m of source.matchAll(/(['"`])\s*((?:SELECT|INSERT|UPDATE|DELETE|WITH|TRUNCATE|COPY)\b[^'"`]*)\1/g)) texts.push(m[2]);
  return texts;
}

function tablesTouched(source: string, tables: Set<string>, bindings: Map<string, string>): Set<string> {
  const touched = new Set<string>();
  const statements = sqlTexts(source).join('\n');
  for (const m of statements.matchAll(/\b(?:from|join|into|update|table|truncate|copy)\s+(?:only\s+)?"?([a-z_]+)"?/gi)) {
    const name = m[1].toLowerCase();
    if (tables.has(name)) touched.add(name);
  }
  for (const m of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'[./]*db\/schema(?:\/index\.ts)?'/g)) {
    for (const name of m[1].split(',').map((s) => s.trim())) {
      if (name.startsWith('type ')) continue;
      const table = bindings.get(name);
      if (table) touched.add(table);
    }
  }
  return touched;
}

describe('every table has one owner', () => {
  const tables = migratedTables();
  const { bindings, fileOf } = schemaTables();
  const ownerOf = new Map(OWNERS.flatMap((o) => o.tables.map((t) => [t, o] as const)));

  it('each table the migrations make has exactly one owner, and each owned table exists', () => {
    const counted = OWNERS.flatMap((o) => o.tables);
    expect(counted.filter((t, i) => counted.indexOf(t) !== i), 'tables given two owners').toEqual([]);
    expect([...tables].filter((t) => !ownerOf.has(t)).sort(), 'tables without an owner: add them to OWNERS').toEqual([]);
    expect(counted.filter((t) => !tables.has(t)), 'owned tables no migration makes').toEqual([]);
    for (const owner of OWNERS) expect(fs.existsSync(path.join(SRC, owner.dir)), `${owner.dir} exists`).toBe(true);
  });

  it("each table's drizzle definition is in the schema file named for its owner", () => {
    const misplaced = [...fileOf].filter(([table, file]) => ownerOf.get(table)?.schema !== file).map(([table, file]) => `${table} is in ${file}, not ${ownerOf.get(table)?.schema}`);
    expect(misplaced).toEqual([]);
  });

  it("only the owner's files read or write its tables (the crossings listed say why)", () => {
    const trespasses: string[] = [];
    for (const file of filesUnder(SRC)) {
      const rel = path.relative(SRC, file).split(path.sep).join('/');
      if (rel.startsWith('db/') || rel.startsWith('ui/')) continue;
      const crossing = CROSSINGS.find((c) => c.file === rel);
      for (const table of tablesTouched(fs.readFileSync(file, 'utf8'), tables, bindings)) {
        const owner = ownerOf.get(table)!;
        if (rel === owner.dir || rel.startsWith(`${owner.dir}/`)) continue;
        if (crossing && (crossing.tables === '*' || crossing.tables.includes(table))) continue;
        trespasses.push(`${rel} touches ${table} (owned by ${owner.dir})`);
      }
    }
    expect(trespasses).toEqual([]);
  });

  it('each listed crossing still happens (an entry that no longer crosses leaves the list)', () => {
    const stale: string[] = [];
    for (const crossing of CROSSINGS) {
      if (crossing.tables === '*') continue;
      const touched = tablesTouched(fs.readFileSync(path.join(SRC, crossing.file), 'utf8'), tables, bindings);
      for (const table of crossing.tables) if (!touched.has(table)) stale.push(`${crossing.file}: ${table}`);
    }
    expect(stale).toEqual([]);
  });
});
