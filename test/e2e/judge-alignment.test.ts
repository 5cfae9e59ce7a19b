import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { appDatabaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { startFakeServer, toolCallReply, type FakeServer, type RecordedRequest } from '../evaluators/fake-servers.ts';
import { hasChromium, closeContexts, workerBrowser, saveScreenshot, SCREENSHOT_DIR, openSignedIn, openInApp } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';

/**
 * A judge against people in Debian's Chromium: people's pass/fail on 60 traces and a judge's
 * results on them and 20 more, seeded over the API; the alignment page's numbers, its
 * disagreements sent to a new review queue, and the judge's trust on a monitor and on a run
 * comparison. A custom judge answered by a loopback model: whether it agrees with itself, and
 * whether its new version agrees with people more (run as an experiment). Desktop 1280 and phone 390.
 */
describe.runIf(hasChromium).each(appDatabaseKinds)('judge alignment in a real browser (%s)', (kind) => {
  let web: TestApp;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  let key = '';
  let correct = '';
  let monitorId = '';
  let fake: FakeServer;
  const shots = kind === appDatabaseKinds[0];

  beforeAll(async () => {
    // The custom judge's model: version 1 passes thankful answers, version 2 polite ones too; "Maybe" it answers by turns.
    fake = await startFakeServer();
    let turn = 0;
    fake.fallback = (r: RecordedRequest) => {
      const text = (r.body as { messages: { content: string }[] }).messages.map((m) => m.content).join('\n');
      if (/Maybe later/.test(text)) return toolCallReply('verdict', { reasoning: 'unsure', passed: turn++ % 2 === 0 });
      const passed = /Polite or thankful/.test(text) ? /Thank you|Please wait/.test(text) : /Thank you/.test(text);
      return toolCallReply('verdict', { reasoning: 'read the tone', passed });
    };
    web = await startApp(kind);
    browser = await workerBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.setDefaultTimeout(15_000);
    projectId = web.creds.project.id;
    key = web.creds.projectApiKey;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await web.request(method, p, { authToken: key, body });
      expect(res.status, `${method} ${p}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    correct = (await call('POST', '/api/score-configs', { name: 'Correct', kind: 'boolean' })).data.id;
    // People pass the even traces; the judge passes 24 of their 30 passes and 10 of their 30 fails, and every fourth of 20 unlabelled.
    const humanPass = (i: number) => i % 2 === 0;
    const judgePass = (i: number) => (i >= 60 ? i % 4 === 0 : humanPass(i) ? i % 10 !== 0 : i % 6 === 1);
    // Each trace's result, then its label, in order; the traces side by side.
    await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        await call('POST', '/api/evaluations/langevals/exact_match/evaluate', { data: { output: judgePass(i) ? 'yes' : 'no', expected_output: 'yes' }, trace_id: `ja-${i}` });
        if (i < 60) await call('POST', `/api/annotations/trace/ja-${i}`, { comment: '', isThumbsUp: humanPass(i), scores: [{ configId: correct, value: humanPass(i) }] });
      }),
    );
    monitorId = (await call('POST', '/api/monitors', { name: 'Exact answers', evaluator: 'langevals/exact_match' })).id;
    for (const runId of ['base', 'next']) {
      await call('POST', '/api/evaluations/batch/log_results', {
        experiment_slug: 'judged',
        run_id: runId,
        dataset: [0, 1, 2].map((index) => ({ index, entry: { q: `q${index}` }, predicted: { output: 'a' } })),
        evaluations: [0, 1, 2].map((index) => ({ evaluator: 'langevals/exact_match', index, status: 'processed', passed: runId === 'base' || index > 0, score: 1 })),
        timestamps: { created_at: Date.parse('2026-11-22T10:00:00Z'), finished_at: Date.parse('2026-11-22T10:01:00Z') },
      });
    }
  }, 180_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await fake?.close();
  });

  const url = (p: string) => web.baseUrl + p;
  const checkPage = (name: string, ready: () => Promise<unknown>) => checkBothWidths(page, name, ready, shots);

  it('the alignment page: choose the judge and the score, read the numbers, the trust state and the pass rates', async () => {
    await openSignedIn(page, web.baseUrl, web.creds.user, `/p/${projectId}/evaluators`);
    await page.getByRole('link', { name: 'Judge alignment' }).click();
    await page.waitForURL('**/evaluators/alignment**');
    await page.getByRole('heading', { name: 'Judge alignment' }).waitFor();
    await page.getByRole('combobox', { name: 'Judge', exact: true }).selectOption('langevals/exact_match');
    await page.getByLabel("People's score").selectOption(correct);
    await page.getByTestId('trust-state').filter({ hasText: 'not trusted' }).waitFor();
    expect(await page.getByTestId('trust-reason').textContent()).toMatch(/^kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6\.$/);
    expect(await page.getByTestId('accuracy').textContent()).toMatch(/Agrees with people: on 73 % of traces \(between \d+ % and \d+ %\), on 60 labels\./);
    expect(await page.getByTestId('kappa').textContent()).toMatch(/Cohen's kappa\): 0\.47, moderate \(between 0\.\d\d and 0\.\d\d\), on 60 labels\./);
    expect(await page.getByTestId('tpr').textContent()).toMatch(/the judge passes: 80 % \(between \d+ % and \d+ %\), on 30 labels\./);
    expect(await page.getByTestId('tnr').textContent()).toMatch(/the judge fails: 67 % \(between \d+ % and \d+ %\), on 30 labels\./);
    expect(await page.getByTestId('raw-pass-rate').textContent()).toBe('The judge passes 49 % of the 80 traces it judged (39 passed).');
    expect(await page.getByTestId('corrected-pass-rate').textContent()).toMatch(/^Corrected for its measured errors, the share people would pass is [\d.]+ % \(between [\d.]+ % and [\d.]+ %\)\.$/);
    const matrix = page.getByTestId('confusion');
    expect(await matrix.locator('tbody tr').first().textContent()).toBe('fail2010');
    const disagreements = page.getByTestId('disagreements');
    expect(await disagreements.locator('tbody tr').count()).toBe(16);
    await disagreements.getByRole('link', { name: 'ja-0', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Propose traces to label' }).click();
    await page.getByTestId('label-more-rule').filter({ hasText: 'The true-negative rate has the widest interval' }).waitFor();
    await checkPage('judge-alignment', () => page.getByTestId('label-more').locator('li').first().waitFor());
    if (shots && SCREENSHOT_DIR) {
      // The page scrolls inside its frame: its top, where the numbers are, at both widths.
      for (const [width, name] of [[1280, 'judge-alignment-top'], [390, 'judge-alignment-top-phone']] as const) {
        await page.setViewportSize({ width, height: width === 390 ? 1600 : 1100 });
        await page.locator('.page').evaluate((e) => e.scrollTo(0, 0));
        await saveScreenshot(page, name);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('sends the disagreements to a new review queue in one step', async () => {
    await page.getByRole('button', { name: 'Send disagreements to a review queue' }).click();
    await page.getByLabel("New queue's name").fill('Judge vs people');
    await page.getByRole('button', { name: 'Send 16 traces' }).click();
    const sent = page.getByTestId('sent');
    await sent.filter({ hasText: '16 traces added to Judge vs people' }).waitFor();
    const queues = (await web.request('GET', '/api/queues', { authToken: key })).body.data as { id: string; name: string; progress: { total: number } }[];
    expect(queues.find((q) => q.name === 'Judge vs people')?.progress.total).toBe(16);
    // Sending again names the taken name at its field.
    await sent.getByRole('button').click();
    await page.getByRole('button', { name: 'Send disagreements to a review queue' }).click();
    await page.getByLabel("New queue's name").fill('Judge vs people');
    await page.getByRole('button', { name: 'Send 16 traces' }).click();
    await page.getByText('a queue named Judge vs people already exists').waitFor();
  });

  it('the team changes the trust rule: a bound out of range is named at its field; a rule the judge meets makes it trusted', async () => {
    await page.getByRole('button', { name: 'Change the rule' }).click();
    await page.getByLabel('Lower bound at least').fill('2');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByRole('region', { name: 'Trust rule' }).getByText('At most 1.', { exact: true }).waitFor();
    await page.getByLabel('Statistic').selectOption('accuracy');
    await page.getByLabel('Lower bound at least').fill('0.5');
    await page.getByLabel('Labels needed').fill('40');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByTestId('trust-rule').filter({ hasText: 'accuracy' }).waitFor();
    await page.getByTestId('trust-state').filter({ hasText: /^trusted$/ }).waitFor();
    expect(await page.getByTestId('trust-reason').textContent()).toMatch(/^accuracy's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.5\.$/);
    // Back to the default bar, for the pages that follow.
    await page.getByRole('button', { name: 'Change the rule' }).click();
    await page.getByLabel('Statistic').selectOption('kappa');
    await page.getByLabel('Lower bound at least').fill('0.6');
    await page.getByLabel('Labels needed').fill('50');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByTestId('trust-state').filter({ hasText: 'not trusted' }).waitFor();
  });

  it("the judge's trust on the monitor and on the run comparison, linked to its alignment", async () => {
    await openInApp(page, url(`/p/${projectId}/monitors/${monitorId}`));
    const badge = page.getByTestId('judge-trust');
    await checkPage('judge-trust-monitor', () => badge.getByText('judge not trusted').waitFor());
    await openInApp(page, url(`/p/${projectId}/experiments/judged/compare?runs=base,next&baseline=base`));
    const list = page.getByRole('region', { name: 'Can the judges be trusted?' });
    await checkPage('judge-trust-compare', () => list.getByText('judge not trusted').waitFor());
    await list.getByRole('link', { name: 'Alignment' }).click();
    await page.waitForURL('**/evaluators/alignment**');
    await page.getByTestId('trust-state').filter({ hasText: 'not trusted' }).waitFor();
    expect(await page.getByLabel("People's score").inputValue()).toBe(correct);
  });

  it("the judge's trust on the experiment's page and on an alert rule that requires a trusted judge", async () => {
    await openInApp(page, url(`/p/${projectId}/experiments/judged?runId=next`));
    const list = page.getByRole('region', { name: 'Can the judges be trusted?' });
    await checkPage('judge-trust-experiment', () => list.getByText('judge not trusted').waitFor());
    const rule = await web.request('POST', '/api/alerts/rules', {
      authToken: key,
      body: { name: 'Exact answers pass less', metric: { kind: 'evaluator_pass_rate', evaluator: 'langevals/exact_match', requireTrusted: true }, windowMinutes: 60, condition: { kind: 'threshold', operator: 'below', value: 0.8 } },
    });
    expect(rule.status, rule.text).toBe(200);
    await openInApp(page, url(`/p/${projectId}/alerts/${rule.body.id}`));
    const trust = page.getByTestId('rule-judge-trust');
    await checkPage('judge-trust-alert-rule', () => trust.getByText('judge not trusted').waitFor());
    expect(await page.getByTestId('rule-requires-trusted').textContent()).toMatch(/^Requires a trusted judge: held back \(kappa's 95 % lower bound is 0\.\d\d on 60 labels; the bar is 0\.6\)\.$/);
  });

  it("a run set up in the app shows the trust of the judge its evaluator ran, not \"not measured\"", async () => {
    // The team's agent: "yes" to the first two questions, "no" to the others.
    const agent = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ output: ['q0', 'q1'].includes(JSON.parse(body).question) ? 'yes' : 'no' })));
    });
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    try {
      const call = async (method: string, p: string, body?: unknown) => {
        const res = await web.request(method, p, { authToken: key, body });
        expect(res.status, `${method} ${p}: ${res.text}`).toBeLessThan(300);
        return res.body;
      };
      const dataset = await call('POST', '/api/dataset', { name: 'Served questions', columnTypes: [{ name: 'question', type: 'string' }, { name: 'expected', type: 'string' }] });
      await call('POST', `/api/dataset/${dataset.slug}/records`, { entries: ['q0', 'q1', 'q2', 'q3'].map((question) => ({ question, expected: 'yes' })) });
      // Its evaluator is named "exact"; the judge behind it is langevals/exact_match, measured above.
      await call('PUT', '/api/experiments/served/definition', {
        name: 'Served',
        dataset: { id: dataset.slug },
        targets: [{ id: 'agent', type: 'http', url: `http://127.0.0.1:${(agent.address() as AddressInfo).port}/` }],
        evaluators: [{ id: 'exact', evaluator: 'langevals/exact_match', mapping: { output: 'target.output', expected_output: 'dataset.expected' } }],
      });
      await openInApp(page, url(`/p/${projectId}/experiments/served`));
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.waitForURL(/runId=/);
      await page.getByText('completed', { exact: true }).first().waitFor({ timeout: 60_000 });
      const list = page.getByRole('region', { name: 'Can the judges be trusted?' });
      const badge = list.getByTestId('judge-trust');
      await checkPage('judge-trust-server-run', async () => {
        await badge.getByText('judge not trusted').waitFor();
        await list.scrollIntoViewIfNeeded();
      });
      expect(await badge.getAttribute('data-evaluator')).toBe('langevals/exact_match');
      expect(await list.getByText('judge not measured').count()).toBe(0);
      // 2 of the 4 rows passed: that rate, corrected for the judge's measured errors.
      expect(await badge.getByTestId('judge-corrected').textContent()).toMatch(/^Corrected pass rate [\d.]+ % \([\d.]+ % to [\d.]+ %\)$/);
      await badge.getByRole('link', { name: 'Alignment' }).click();
      await page.waitForURL('**/evaluators/alignment**');
      await page.getByTestId('trust-state').filter({ hasText: 'not trusted' }).waitFor();
      // the judge chosen once the list of judges has come
      await expect.poll(() => page.getByRole('combobox', { name: 'Judge', exact: true }).inputValue()).toBe('langevals/exact_match');
      expect(await page.getByLabel("People's score").inputValue()).toBe(correct);
    } finally {
      await new Promise((r) => agent.close(r));
    }
  }, 180_000);

  it('a custom judge: does it agree with itself, and does its new version agree with people more (an experiment run, row by row)', async () => {
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await web.request(method, p, { authToken: key, body });
      expect(res.status, `${method} ${p}: ${res.text}`).toBeLessThan(300);
      return res.body;
    };
    const provider = await web.request('POST', '/api/model-providers', {
      token: web.creds.adminApiKey,
      projectId,
      body: { name: 'local', kind: 'openai_compatible', api_key: 'sk-local-123456', base_url: `${fake.url}/v1`, models: ['gpt-4o-mini'] },
    });
    expect(provider.status, provider.text).toBe(201);
    await call('POST', '/api/custom-evaluators', { slug: 'polite', name: 'Polite', prompt: 'Question: {{input}}\nAnswer: {{output}}\nIs the answer thankful?', model: 'local/gpt-4o-mini', answer: { type: 'pass_fail' } });
    const polite = (await call('POST', '/api/score-configs', { name: 'Polite', kind: 'boolean' })).data.id as string;
    // 24 answers thankful, asking nicely, curt, rude by turns (people pass the first two kinds), and one "Maybe later." people fail.
    const output = (i: number) => (i === 24 ? 'Maybe later.' : ['Thank you, it arrives tomorrow.', 'Please wait a day.', 'No.', 'Whatever.'][i % 4]);
    for (let i = 0; i < 25; i++) {
      const at = Date.parse('2026-11-28T10:00:00Z') + i * 1000;
      await call('POST', '/api/collector', {
        trace_id: `jp-${i}`,
        spans: [{ span_id: `jps-${i}`, type: 'llm', input: { type: 'text', value: `Where is parcel ${i}?` }, output: { type: 'text', value: output(i) }, timestamps: { started_at: at, finished_at: at + 100 } }],
      });
      await call('POST', '/api/evaluations/custom/polite/evaluate', { data: { input: `Where is parcel ${i}?`, output: output(i) }, trace_id: `jp-${i}` });
      await call('POST', `/api/annotations/trace/jp-${i}`, { comment: '', isThumbsUp: i < 24 && i % 4 < 2, scores: [{ configId: polite, value: i < 24 && i % 4 < 2 }] });
    }
    await call('PATCH', '/api/custom-evaluators/polite', { prompt: 'Question: {{input}}\nAnswer: {{output}}\nPolite or thankful?' });

    await openInApp(page, url(`/p/${projectId}/evaluators/alignment?evaluator=custom%2Fpolite&version=1&config=${polite}`));
    await page.getByTestId('trust-state').waitFor();

    // Self-consistency: out of range is named at its field; then each trace judged 3 times, the one it wavers on listed.
    const consistency = page.getByRole('region', { name: 'Self-consistency' });
    await consistency.getByLabel('Times per trace').fill('11');
    await consistency.getByRole('button', { name: 'Run the judge again' }).click();
    await consistency.locator('input[aria-invalid="true"]').waitFor();
    expect(await consistency.getByLabel('Times per trace').getAttribute('aria-invalid')).toBe('true');
    await consistency.getByLabel('Times per trace').fill('3');
    await consistency.getByLabel('Traces').fill('25');
    await consistency.getByRole('button', { name: 'Run the judge again' }).click();
    const items = consistency.getByTestId('self-consistency-items');
    await checkPage('judge-self-consistency', () => items.getByRole('link', { name: 'jp-24', exact: true }).waitFor());
    expect(await consistency.getByTestId('self-consistency-summary').textContent()).toMatch(/\S/);
    expect(await items.locator('li').count()).toBe(1);
    expect(await items.locator('li').textContent()).toMatch(/^jp-24 answered (pass|fail), (pass|fail), (pass|fail)$/);

    // Version 2 against version 1: a version it does not have is named at its field; then the verdict in words and its run.
    const versions = page.getByRole('region', { name: 'Compare a new version' });
    await versions.getByLabel('New version').fill('9');
    await versions.getByRole('button', { name: 'Compare the versions' }).click();
    await versions.getByText('custom/polite has no version 9').waitFor();
    await versions.getByLabel('New version').fill('2');
    await versions.getByLabel('Traces').fill('25');
    await versions.getByRole('button', { name: 'Compare the versions' }).click();
    const summary = versions.getByTestId('version-comparison-summary').first();
    await checkPage('judge-version-comparison', () => summary.filter({ hasText: 'Version 2 agrees with people more than version 1' }).waitFor({ timeout: 60_000 }));
    expect(await summary.textContent()).toMatch(/^Version 2 agrees with people more than version 1: \+0\.2\d accuracy \[0\.\d\d, 0\.\d\d\], n=25\.$/);
    expect(await versions.getByTestId('version-comparison').first().getAttribute('data-status')).toBe('done');
    await versions.getByTestId('version-comparison-run').first().click();
    await page.waitForURL('**/experiments/judge-versions-polite?runId=**');
    // the run's rows: each labelled trace with people's label, version 1's answer and version 2's
    await page.getByText('jp-1', { exact: true }).first().waitFor();
    await page.getByText('Please wait a day.').first().waitFor();
    // No saved setup to run or edit (those led to a missing page): the way back is the judge's alignment page.
    const back = page.getByRole('link', { name: 'Judge alignment' });
    await back.waitFor();
    expect(await page.getByRole('button', { name: /^Run( again)?$/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Compare with another run' }).click();
    await page.getByRole('table', { name: 'Runs' }).waitFor();
    await back.waitFor();
    expect(await page.getByRole('link', { name: 'Setup' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Run( again)?$/ }).count()).toBe(0);
    await back.click();
    await page.waitForURL('**/evaluators/alignment?evaluator=custom%2Fpolite**');
    // The judge is chosen there; people's score is the reader's to choose, then its versions compare again.
    expect(await page.getByRole('combobox', { name: 'Judge', exact: true }).inputValue()).toBe('custom/polite');
    await page.getByLabel("People's score").selectOption(polite);
    await page.getByRole('region', { name: 'Compare a new version' }).waitFor();
  }, 240_000);
});