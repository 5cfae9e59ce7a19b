import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, seriousViolations, saveScreenshot, openInApp, signInContext } from '../support/browser.ts';
import { Receiver } from '../webhooks/receiver.ts';

/** Beside the other pages' screenshots (docs/web-app.md shows them). */

/**
 * The settings pages in Debian's Chromium against the real server: projects, members,
 * API keys, webhooks (to a loopback receiver), the organization and the user's own
 * sessions, as an admin; then what a viewer sees.
 */
describe.runIf(hasChromium)('the settings pages in a real browser', () => {
  const kind = appDatabaseKinds[0];
  let web: TestApp;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectId = '';

  beforeAll(async () => {
    // Loopback receivers need SPYGLASS_WEBHOOK_ALLOW_PRIVATE; a quick dispatcher keeps the test short.
    web = await startApp(kind, { env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '100' } });
    receiver = await Receiver.start();
    browser = await workerBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // A step that cannot happen fails naming its locator, well before the test's own limit.
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    projectId = web.creds.project.id;
  });
  afterAll(async () => {
    await closeContexts(browser);
    await receiver?.close();
    await web?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const settings = (p: string) => url(`/p/${projectId}/settings/${p}`);
  async function accessible(p: Page = page) {
    expect(await seriousViolations(p)).toEqual([]);
  }
  const screenshot = (name: string, p: Page = page) => saveScreenshot(p, name);
  const admin = { token: () => web.creds.adminApiKey };
  async function signIn(p: Page, email: string, password: string) {
    await p.goto(url('/signin'));
    await p.getByLabel('E-mail').fill(email);
    await p.locator('input[type=password]').fill(password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.waitForURL(/\/p\/[^/]+\/traces/);
  }

  it('signs in and reaches the settings from the header', async () => {
    await signIn(page, web.creds.user.email, web.creds.user.password);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(`**/p/${projectId}/settings/projects`);
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  });

  it('creates a project and shows its key once, renames it, and deletes it by typing its name', async () => {
    await page.getByLabel('Project name').fill('Checkout bot');
    await page.getByLabel('Retention (days)').fill('30');
    await page.getByRole('button', { name: 'Create project' }).click();
    const once = page.getByTestId('shown-once');
    await once.waitFor();
    expect(await once.textContent()).toContain('shown once');
    const token = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(token).toMatch(/^sgp-/);
    // The key works at once, for the new project.
    const search = await web.request('POST', '/api/trace/search', { authToken: token, body: {} });
    expect(search.status).toBe(200);
    const row = page.locator('tr', { hasText: 'Checkout bot' });
    await row.waitFor();
    expect(await row.textContent()).toContain('30 days');
    // The shell's project switcher knows it too.
    await expect.poll(() => page.getByLabel('Project', { exact: true }).locator('option', { hasText: 'Checkout bot' }).count()).toBe(1);
    await accessible();
    await screenshot('settings-projects');

    await page.getByRole('button', { name: 'Edit Checkout bot' }).click();
    const edit = page.getByRole('dialog');
    await edit.getByLabel('Project name').fill('Checkout assistant');
    await edit.getByLabel('Retention (days)').fill('');
    await edit.getByRole('button', { name: 'Save' }).click();
    const renamed = page.locator('tr', { hasText: 'Checkout assistant' });
    await renamed.waitFor();
    expect(await renamed.textContent()).toContain('forever');

    // Rotating the key: the old token stops working, the new one (shown once) works.
    await page.getByRole('button', { name: 'Rotate the key of Checkout assistant' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
    await expect.poll(async () => (await page.getByTestId('secret-value').textContent())!.trim()).not.toBe(token);
    const rotated = (await page.getByTestId('secret-value').textContent())!.trim();
    expect((await web.request('POST', '/api/trace/search', { authToken: token, body: {} })).status).toBe(401);
    expect((await web.request('POST', '/api/trace/search', { authToken: rotated, body: {} })).status).toBe(200);

    await page.getByRole('button', { name: 'Delete Checkout assistant' }).click();
    const confirm = page.getByRole('dialog');
    const deleteButton = confirm.getByRole('button', { name: 'Delete project' });
    expect(await deleteButton.isDisabled()).toBe(true);
    await confirm.getByLabel(/Type the project name/).fill('Checkout');
    expect(await deleteButton.isDisabled()).toBe(true);
    await accessible();
    await screenshot('settings-project-delete');
    // The keyboard is enough: Enter in the field confirms.
    await confirm.getByLabel(/Type the project name/).fill('Checkout assistant');
    await confirm.getByLabel(/Type the project name/).press('Enter');
    await renamed.waitFor({ state: 'detached' });
    const projects = (await web.request('GET', '/api/projects', { token: admin.token() })).body.data as { name: string }[];
    expect(projects.map((p) => p.name)).not.toContain('Checkout assistant');
  });

  it('invites a member with a role, shows the link once, lists the invitation, and changes the role', async () => {
    await page.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL('**/settings/members');
    await page.getByLabel('E-mail').fill('dana@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('MEMBER');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByTestId('shown-once').waitFor();
    const link = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9]+$/);
    expect((await web.request('GET', `/api/auth/invitations/${link.split('/invite/')[1]}`)).body).toMatchObject({ email: 'dana@example.com', role: 'MEMBER' });
    await page.locator('[data-invitation="dana@example.com"]').waitFor();

    await page.getByLabel('Role of dana@example.com').selectOption('VIEWER');
    await expect
      .poll(async () => ((await web.request('GET', '/api/members', { token: admin.token() })).body.data as { email: string; role: string }[]).find((m) => m.email === 'dana@example.com')?.role)
      .toBe('VIEWER');
    await page.getByText('dana@example.com is now viewer').waitFor();

    // Only a hash of a link is kept: "New link" replaces it (same e-mail and the role now held), shown once.
    await page.getByRole('button', { name: 'New link for dana@example.com' }).click();
    await expect.poll(async () => (await page.getByTestId('secret-value').textContent())!.trim()).not.toBe(link);
    const fresh = (await page.getByTestId('secret-value').textContent())!.trim();
    expect((await web.request('GET', `/api/auth/invitations/${link.split('/invite/')[1]}`)).status).toBe(404);
    expect((await web.request('GET', `/api/auth/invitations/${fresh.split('/invite/')[1]}`)).body).toMatchObject({ email: 'dana@example.com', role: 'VIEWER' });
    await expect.poll(() => page.locator('[data-invitation="dana@example.com"]').count()).toBe(1);
    await accessible();
    await screenshot('settings-members');
  });

  it('creates an API key with a binding and an expiry, shows the token once, and the token works', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/settings/api-keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('CI reader');
    await dialog.getByLabel('Description (optional)').fill('Reads traces in CI');
    await dialog.getByLabel('Expires').selectOption('30');
    await dialog.getByText('Read-only').click();
    await dialog.getByLabel('Role of binding 1').selectOption('VIEWER');
    await dialog.getByLabel('Scope of binding 1').selectOption(`PROJECT:${projectId}`);
    await accessible();
    await screenshot('settings-api-key-create');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('shown-once').waitFor();
    const token = (await page.getByTestId('secret-value').textContent())!.trim();
    expect(token).toMatch(/^sg-/);

    // The token reads the project, and may do nothing more.
    const read = await web.request('POST', '/api/trace/search', { token, projectId, body: {} });
    expect(read.status).toBe(200);
    const write = await web.request('POST', '/api/annotations/trace/t1', { token, projectId, body: { comment: 'x', isThumbsUp: true } });
    expect(write.status).toBe(403);
    // The list, opened again, shows the key's last use (written beside the request).
    const keyId = token.slice(3, 19);
    await expect.poll(async () => (await web.request('GET', `/api/api-keys/${keyId}`, { token: admin.token() })).body.lastUsedAt).not.toBeNull();
    await page.reload();
    const row = page.locator('[data-key-name="CI reader"]');
    await row.waitFor();
    const text = (await row.textContent())!;
    expect(text).toContain('viewer on project');
    expect(text).toContain('read-only');
    expect(text).toContain('active');
    expect(text).not.toContain('never'); // used, and it expires
    await accessible();
    await screenshot('settings-api-keys');

    // Revoked in the page: the token stops working.
    await page.getByRole('button', { name: 'Revoke CI reader' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => row.textContent()).toContain('revoked');
    expect((await web.request('POST', '/api/trace/search', { token, projectId, body: {} })).status).toBe(401);
  });

  it('adds a webhook endpoint with events from the catalogue, fires the test event and shows the delivery', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/settings/webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('URL').fill(receiver.url);
    await dialog.getByLabel('Description (optional)').fill('Loopback receiver');
    const catalogue = (await web.request('GET', '/api/webhooks/v1/event-types', { token: admin.token(), projectId })).body.data as { type: string; family: string }[];
    const family = catalogue[0].family;
    const single = catalogue.find((t) => t.family !== family)!;
    // Families expand; a whole family or single types are picked.
    await dialog.getByRole('button', { name: new RegExp(`^${family}`) }).click();
    await dialog.getByLabel(`Every ${family} event (${family}.*)`).check();
    await dialog.getByRole('button', { name: new RegExp(`^${single.family}`) }).click();
    await dialog.getByRole('checkbox', { name: new RegExp(single.type.replace(/\./g, '\\.')) }).check();
    await accessible();
    await screenshot('settings-webhook-create');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByTestId('shown-once').waitFor();
    expect((await page.getByTestId('secret-value').textContent())!.trim()).toMatch(/^whsec_/);
    const endpoints = (await web.request('GET', '/api/webhooks/v1/endpoints', { token: admin.token(), projectId })).body.data as { id: string; enabled_events: string[] }[];
    expect(endpoints[0].enabled_events.sort()).toEqual([`${family}.*`, single.type].sort());
    const card = page.locator(`[data-endpoint-id="${endpoints[0].id}"]`);

    await card.getByRole('button', { name: 'Send test event' }).click();
    await page.waitForURL(/endpoint=/);
    const delivered = card.getByTestId('deliveries').locator('tr', { hasText: 'delivered' });
    await delivered.waitFor({ timeout: 15_000 }); // the log refreshes by itself
    expect(await delivered.textContent()).toContain('200');
    expect(receiver.received.some((r) => r.json.batch.some((e) => e.type === 'webhook.test'))).toBe(true);
    // The endpoint's health follows while its log is open.
    await expect.poll(() => card.textContent(), { timeout: 10_000 }).not.toContain('last success –');
    await accessible();
    await screenshot('settings-webhooks');

    // Rolling the secret shows the new one once.
    await card.getByRole('button', { name: /^Roll the secret/ }).click();
    await expect.poll(() => page.getByTestId('shown-once').textContent()).toContain('previous secret');

    // Disabled by hand, with the reason; enabled again.
    await card.getByRole('switch').click();
    await card.getByText('Disabled by hand').waitFor();
    expect(await card.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    await card.getByRole('switch').click();
    await card.getByText('enabled', { exact: true }).waitFor();
  });

  it('renames the organization', async () => {
    await page.getByRole('link', { name: 'Organization' }).click();
    await page.getByLabel('Organization name').fill('Acme Support');
    await page.getByRole('button', { name: 'Rename' }).click();
    await expect.poll(async () => (await web.request('GET', '/api/organization', { token: admin.token() })).body.name).toBe('Acme Support');
    await accessible();
    await screenshot('settings-organization');
  });

  it('lists the own sessions and signs out another one', async () => {
    const other = await web.request('POST', '/api/auth/signin', {
      body: { email: web.creds.user.email, password: web.creds.user.password },
      headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Firefox/131.0' },
    });
    expect(other.status).toBe(200);
    const cookie = other.headers.get('set-cookie')!.split(';')[0];
    expect((await web.request('GET', '/api/auth/session', { headers: { cookie } })).status).toBe(200);

    await page.getByRole('link', { name: 'Your account' }).click();
    await page.waitForURL('**/settings/account');
    const otherRow = page.locator('tr', { hasText: 'Firefox 131 on macOS' });
    await otherRow.waitFor();
    expect(await page.locator('tr', { hasText: 'this session' }).count()).toBe(1);
    await accessible();
    await screenshot('settings-account');
    await otherRow.getByRole('button', { name: /^Sign out/ }).click();
    await otherRow.waitFor({ state: 'detached' });
    expect((await web.request('GET', '/api/auth/session', { headers: { cookie } })).status).toBe(401);
    // This session goes on.
    await page.reload();
    await page.locator('tr', { hasText: 'this session' }).waitFor();
  });

  it('shows a viewer what the role may do, and the API 403 plainly where it may not', async () => {
    const added = await web.request('POST', '/api/members', { token: admin.token(), body: { email: 'vic@example.com', role: 'VIEWER' } });
    const token = new URL(added.body.invitation.url).pathname.split('/invite/')[1];
    expect((await web.request('POST', `/api/auth/invitations/${token}/accept`, { body: { password: 'viewer-password-1' } })).status).toBe(200);
    // The admin's browser, signed in as the viewer now (its session cookie replaced): a page load shows the viewer's app.
    await signInContext(context, web.baseUrl, { email: 'vic@example.com', password: 'viewer-password-1' });
    const viewer = page;
    await viewer.goto(settings('projects'));
    await viewer.getByText('only administrators create, change or delete them').waitFor();
    expect(await viewer.getByRole('button', { name: 'Create project' }).count()).toBe(0);
    expect(await viewer.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    // Pages the role may not read are not listed; opened anyway, the server's 403 is said plainly.
    const nav = viewer.getByRole('navigation', { name: 'Settings' });
    expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    await openInApp(viewer, settings('api-keys'));
    await viewer.getByRole('alert').filter({ hasText: 'does not allow this' }).waitFor();
    await accessible(viewer);
    await screenshot('settings-viewer-forbidden', viewer);
    await openInApp(viewer, settings('members'));
    await viewer.locator('[data-member="vic@example.com"]').waitFor();
    expect(await viewer.getByLabel(/^Role of/).count()).toBe(0);
  });
});
