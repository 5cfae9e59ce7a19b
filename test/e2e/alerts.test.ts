import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, ManualClock, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, saveScreenshot, SCREENSHOT_DIR, openSignedIn } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { PHONE } from '../support/phone-width.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Alerts in a real browser: a rule made in the editor (a field error, a preview, saved), seen firing, its history opened. */
describe.runIf(hasChromium)('alerts in a real browser', () => {
  const kind = appDatabaseKinds[0];
  // The server's clock: moved past the current window's end to evaluate it, as the scheduler would.
  const clock = new ManualClock(Date.now());
  const windowStart = Math.floor(Date.now() / HOUR) * HOUR;
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  const shots = true;

  beforeAll(async () => {
    // The app's own alert poll is off: the test evaluates the windows when it says.
    web = await startApp(kind, { clock, env: { SPYGLASS_WEBHOOK_ALLOW_PRIVATE: '1', SPYGLASS_WEBHOOK_POLL_MS: '0', SPYGLASS_ALERT_POLL_SECONDS: '0' } });
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
  });

  let n = 0;
  /** `count` traces in the 10 minutes from `at`, the first `errors` of them failed. */
  async function traffic(at: number, count: number, errors: number) {
    for (let i = 0; i < count; i++) {
      const id = `e2e-alert-${n++}`;
      const started = at + Math.floor((i * 10 * 60_000) / count);
      const res = await web.request('POST', '/api/collector', {
        token: web.creds.projectApiKey,
        body: {
          trace_id: id,
          spans: [{ span_id: `${id}-1`, type: 'llm', model: 'gpt-4o', input: { type: 'text', value: 'q' }, output: { type: 'text', value: 'a' }, ...(i < errors ? { error: { message: 'upstream 500' } } : {}), timestamps: { started_at: started, finished_at: started + 100 } }],
        },
      });
      expect(res.status, res.text).toBe(200);
    }
  }

  /** The phone's screenshot again, scrolled to the part shown (the width checks scroll the page). */
  async function phoneShot(name: string, scroll: () => Promise<unknown>) {
    if (!shots || !SCREENSHOT_DIR) return;
    await page.setViewportSize(PHONE);
    await scroll();
    await saveScreenshot(page, `${name}-phone`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  it('creates a rule (a field error, a preview that would have fired twice), sees it fire, and opens its history', async () => {
    const projectId = web.creds.project.id;
    // The rule is made 5 hours before the current window, so that it has windows to show when it fires.
    clock.set(windowStart - 5 * HOUR + 60_000);
    // The past: errors jumped 3 days and 9 days ago; calm traffic around them.
    await traffic(windowStart - 3 * DAY, 10, 6);
    await traffic(windowStart - 9 * DAY, 12, 7);
    await traffic(windowStart - 5 * DAY, 10, 1);
    await traffic(windowStart - 2 * DAY, 10, 0);
    const channel = await web.request('POST', '/api/alerts/channels', { token: web.creds.projectApiKey, body: { name: 'On call', kind: 'slack', target: 'http://127.0.0.1:9/services/T/B/X' } });
    expect(channel.status, channel.text).toBe(200);
    // What the editor's pickers list: the project's monitors (a PII check) and its score configs.
    const monitor = await web.request('POST', '/api/monitors', { token: web.creds.projectApiKey, body: { name: 'PII check', evaluator: 'pii/pii_detection' } });
    expect(monitor.status, monitor.text).toBe(200);
    const tone = await web.request('POST', '/api/score-configs', { token: web.creds.projectApiKey, body: { name: 'Tone', kind: 'categorical', categories: ['friendly', 'neutral', 'rude'] } });
    expect(tone.status, tone.text).toBe(201);
    const quality = await web.request('POST', '/api/score-configs', { token: web.creds.projectApiKey, body: { name: 'Quality', kind: 'numeric', min: 1, max: 5 } });
    expect(quality.status, quality.text).toBe(201);

    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/traces`);
    await page.getByRole('link', { name: 'Alerts', exact: true }).click();
    await page.getByRole('heading', { name: 'Alerts', exact: true }).waitFor();
    await page.getByRole('link', { name: 'New rule' }).click();
    await page.getByRole('heading', { name: 'New alert rule' }).waitFor();

    await page.getByLabel('Name').fill('Errors');
    // The pickers fill in once the project's monitors and score configs have loaded: polled.
    const options = (label: string) => expect.poll(() => page.getByLabel(label, { exact: true }).locator('option').allTextContents());
    // An evaluator's metric: the evaluator is picked from the project's monitors; split by evaluator, it may be every one.
    await page.getByLabel('Metric').selectOption('evaluator_pass_rate');
    await options('Evaluator').toEqual(['Choose an evaluator', 'PII check (PII Detection)']);
    await options('Split by').toContain('Evaluator');
    await page.getByLabel('Split by').selectOption('evaluator');
    await options('Evaluator').toContain('Every evaluator');
    // A category's share: categorical score configs only, then that config's categories; a review score is not split.
    await page.getByLabel('Metric').selectOption('category_share');
    await options('Score config').toEqual(['Choose a score config', 'Tone (categorical)']);
    expect(await page.getByLabel('Split by').isDisabled()).toBe(true);
    await page.getByLabel('Score config').selectOption({ label: 'Tone (categorical)' });
    await options('Category').toEqual(['Choose a category', 'friendly', 'neutral', 'rude']);
    await page.getByLabel('Category', { exact: true }).selectOption('rude');
    const top = () => page.getByLabel('Metric').evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await checkBothWidths(page, 'alerts-rule-editor-score', top, shots);
    await phoneShot('alerts-rule-editor-score', top);
    await page.getByLabel('Metric').selectOption('score_mean');
    await options('Score config').toEqual(['Choose a score config', 'Quality (numeric)']);

    // A change against a reference period: picked with two dates; one that ends before it starts is refused at its field.
    await page.getByLabel('Metric').selectOption('error_rate');
    await page.getByLabel('Window (minutes)').fill('60');
    await page.locator('label').filter({ hasText: /^Change against a baseline$/ }).click();
    await page.getByLabel('Baseline', { exact: true }).selectOption('reference');
    // A time as a datetime-local field takes it, in the browser's time zone.
    const local = (ms: number) => page.evaluate((t) => new Date(t - new Date(t).getTimezoneOffset() * 60_000).toISOString().slice(0, 16), ms);
    await page.getByLabel('Reference from', { exact: true }).fill(await local(windowStart - 6 * DAY));
    await page.getByLabel('Reference to', { exact: true }).fill(await local(windowStart - 7 * DAY));
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();
    await page.locator('input[aria-invalid="true"]').first().waitFor();
    expect(await page.getByLabel('Reference to', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText('The reference period ends after it starts').count()).toBe(1);
    await page.getByLabel('Reference to', { exact: true }).fill(await local(windowStart - 4 * DAY));
    const sent = page.waitForRequest((r) => r.url().endsWith('/api/alerts/rules/preview') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();
    const body = JSON.parse((await sent).postData() ?? '{}');
    expect(body.condition.baseline).toEqual({ kind: 'reference', start: windowStart - 6 * DAY, end: windowStart - 4 * DAY });
    // The editor shows what the API answers for that rule.
    const answer = await web.request('POST', '/api/alerts/rules/preview', { token: web.creds.projectApiKey, body });
    expect(answer.status, answer.text).toBe(200);
    const said = `Would have fired ${answer.body.fired} ${answer.body.fired === 1 ? 'time' : 'times'} in the last 30 days`;
    await page.getByText(said).waitFor();
    const baseline = () => page.getByLabel('Baseline', { exact: true }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await checkBothWidths(page, 'alerts-rule-editor-reference', baseline, shots);
    await phoneShot('alerts-rule-editor-reference', baseline);
    await page.locator('label').filter({ hasText: /^Threshold$/ }).click();
    await page.getByLabel('Window (minutes)').fill('60');
    // A rate past 1: refused, and said at the value's field.
    await page.getByLabel('Value (0 to 1)').fill('1.5');
    await page.getByLabel('Minimum events per window').fill('5');
    await page.getByLabel('Calm windows before resolved').fill('1');
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();
    const value = page.getByLabel('Value (0 to 1)');
    await page.locator('input[aria-invalid="true"]').first().waitFor();
    expect(await value.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.mantine-NumberInput-error').first().textContent()).toMatch(/rate between 0 and 1/);

    await value.fill('0.3');
    await page.getByLabel('Every channel of the project').uncheck();
    await page.getByLabel('On call (Slack)').check();
    await page.getByRole('button', { name: 'Preview the last 30 days' }).click();
    await page.getByText('Would have fired 2 times in the last 30 days').waitFor();
    expect(await page.locator('.preview-chart [data-fire]').count()).toBe(2);
    await checkBothWidths(page, 'alerts-rule-editor', () => page.locator('.preview-chart').evaluate((el) => el.scrollIntoView({ block: 'end' })), shots);

    await page.getByRole('button', { name: 'Create rule' }).click();
    await page.waitForURL(/\/alerts\/alr_/);
    await page.getByRole('heading', { name: 'Errors' }).waitFor();
    const ruleId = page.url().split('/alerts/')[1];
    const saved = await web.request('GET', `/api/alerts/rules/${ruleId}`, { token: web.creds.projectApiKey });
    expect(saved.body).toMatchObject({ name: 'Errors', windowMinutes: 60, channels: [channel.body.id], condition: { kind: 'threshold', value: 0.3, minCount: 5 } });

    // Five calm hours (0 or 10 % errors), then half the calls fail in the current window; it ends;
    // the scheduler's evaluation runs over the six windows since the rule was made.
    for (let h = 5; h >= 1; h--) await traffic(windowStart - h * HOUR + 1_000, 10, h % 2);
    await traffic(windowStart + 1_000, 10, 5);
    clock.set(windowStart + HOUR + 1_000);
    expect((await web.app.services.alerts.alerts.evaluateDue()).windows).toBe(6);

    await page.reload();
    await page.getByRole('table', { name: 'Evaluations' }).waitFor();
    const row = page.getByRole('table', { name: 'Evaluations' }).locator('tbody tr').first();
    expect(await row.textContent()).toContain('50.0 %');
    expect(await row.textContent()).toContain('breach');
    expect(await row.textContent()).toContain('firing');
    expect(await page.getByRole('table', { name: 'Evaluations' }).locator('tbody tr').count()).toBe(6);
    await page.getByRole('table', { name: 'Deliveries' }).waitFor();
    expect(await page.getByRole('table', { name: 'Deliveries' }).textContent()).toContain('Firing: Errors');
    await checkBothWidths(page, 'alerts-rule-history', () => page.getByRole('table', { name: 'Evaluations' }).waitFor(), shots);

    await page.getByRole('link', { name: 'Alerts', exact: true }).first().click();
    const rules = page.getByRole('table', { name: 'Alert rules' });
    await rules.waitFor();
    expect(await rules.textContent()).toContain('firing');
    // The rule's recent values: the six windows it evaluated.
    await rules.getByRole('img', { name: 'Errors: the last 6 windows' }).waitFor();
    expect(await rules.locator('svg.sparkline circle').count()).toBe(7);
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await rules.getByText('acknowledged').waitFor();
    await checkBothWidths(page, 'alerts', () => rules.waitFor(), shots);

    // Back to the history from the list.
    await rules.getByRole('link', { name: 'Errors' }).click();
    await page.getByRole('table', { name: 'Evaluations' }).waitFor();
  }, 240_000);
});
