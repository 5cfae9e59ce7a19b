import { describe, expect, it } from 'vitest';
import { appDatabaseKinds, useProjectApp, type TestApp, type Tenant } from '../support/harness.ts';

describe.each(appDatabaseKinds)('privacy settings (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let other: Tenant;
  useProjectApp(kind, (app) => ({ t, key, other } = app));

  const get = (token = key) => t.request('GET', '/api/privacy/settings', { token });
  // Changing them is an administrator's decision (project:update): the organization's admin key.
  const put = (body: unknown) => t.request('PUT', '/api/privacy/settings', { token: t.creds.adminApiKey, projectId: t.creds.project.id, body });

  it('is off until set; a change answers what it applies to, and reads back', async () => {
    const before = await get();
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ mode: 'off', untouched_keys: [], patterns: [], updated_at: null });
    expect(before.body.entities).toContain('EMAIL_ADDRESS');

    const set = await put({ mode: 'mask', entities: ['EMAIL_ADDRESS', 'PHONE_NUMBER'], untouched_keys: ['user_id'], patterns: [{ name: 'EMPLOYEE_ID', pattern: 'EMP-\\d{6}' }] });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({ mode: 'mask', entities: ['EMAIL_ADDRESS', 'PHONE_NUMBER'], untouched_keys: ['user_id'], patterns: [{ name: 'EMPLOYEE_ID', pattern: 'EMP-\\d{6}' }] });
    expect(set.body.applies_to).toMatch(/arriving from .* on; what was stored before stays as it was/);
    expect((await get()).body).toEqual(set.body);
    // Another organization's project keeps its own (off).
    expect((await get(other.projectToken)).body.mode).toBe('off');
    await put({ mode: 'off' });
  });

  it('refuses what it cannot apply: 400 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ mode: 'scramble' }, 'mode'],
      [{ mode: 'mask', entities: ['EMAIL_ADDRESS', 'SHOE_SIZE'] }, 'entities.1'],
      [{ mode: 'mask', patterns: [{ name: 'BACKREF', pattern: '(a)\\1' }] }, 'patterns.0.pattern'],
      [{ mode: 'mask', patterns: [{ name: 'OK', pattern: 'x' }, { name: 'LOOKAHEAD', pattern: 'foo(?=bar)' }] }, 'patterns.1.pattern'],
      [{ mode: 'mask', patterns: [{ name: 'UNCLOSED', pattern: '[a-z' }] }, 'patterns.0.pattern'],
      [{ mode: 'mask', patterns: [{ name: 'lower case', pattern: 'x' }] }, 'patterns.0.name'],
      [{ mode: 'mask', untouched_keys: [''] }, 'untouched_keys.0'],
      [{ mode: 'mask', extra: true }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text, JSON.stringify(body)).toContain(field);
    }
    expect((await get()).body.mode).toBe('off');
  });

  it('changing them needs project:update: 401 without credentials, 403 for the project key and read-only keys; reading needs project:view', async () => {
    expect((await t.request('PUT', '/api/privacy/settings', { body: { mode: 'mask' } })).status).toBe(401);
    const readonly = (await t.request('POST', '/api/api-keys', { token: t.creds.adminApiKey, body: { name: 'ro', keyType: 'service', permissionMode: 'readonly' } })).body.token as string;
    const projectId = t.creds.project.id;
    const refused = await t.request('PUT', '/api/privacy/settings', { token: readonly, projectId, body: { mode: 'mask' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error' });
    expect((await t.request('PUT', '/api/privacy/settings', { token: key, body: { mode: 'off' } })).status).toBe(403);
    expect((await t.request('GET', '/api/privacy/settings', { token: readonly, projectId })).status).toBe(200);
    expect((await get()).body.mode).toBe('off');
  });
});
