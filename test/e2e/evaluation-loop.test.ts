import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { databaseKinds, startApp, type TestApp } from '../support/harness.ts';
import { hasChromium, closeContexts, workerBrowser, signInContext, openInApp } from '../support/browser.ts';
import { checkBothWidths } from '../support/both-widths.ts';
import { startFakeServer, type FakeServer, type RecordedRequest, type Reply } from '../evaluators/fake-servers.ts';

/**
 * The loop a team does to answer "did my prompt change make the app better?", in the browser
 * alone: production traces picked into a new dataset (made in the dialog), an experiment set up
 * on a prompt whose variables have other names than the dataset's columns (mapped, one to a
 * constant), run, stopped, the prompt changed, run again, the runs compared by name, the
 * regressions sent to a review queue. The test only ingests traces (and an SDK's run log) and
 * scripts the loopback model server; everything else is done by clicking.
 */

const QA: [string, string][] = [
  ['What is 2+2?', '4'],
  ['Capital of France?', 'Paris'],
  ['Largest planet?', 'Jupiter'],
  ['Author of Hamlet?', 'Shakespeare'],
  ['Chemical symbol of gold?', 'Au'],
  ['Tallest mountain?', 'Everest'],
];
/** After the prompt change these two get a sentence instead of the word: exact match fails on them. */
const WORDY = new Set(['Capital of France?', 'Largest planet?']);

function completion(text: string): Reply {
  return {
    kind: 'json',
    body: {
      id: 'chatcmpl-loop',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gpt-4o-mini-2024-07-18',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    },
  };
}

// On both databases (PostgreSQL when the suite has it): the "done when" asks for the whole loop on each.
describe.runIf(hasChromium).each(databaseKinds)('the evaluation loop in the app alone (%s)', (kind) => {
  vi.setConfig({ testTimeout: 240_000 });
  let web: TestApp;
  let model: FakeServer;
  let browser: Browser;
  let page: Page;
  let projectId = '';
  /** Every page at both widths on each database; PostgreSQL's screenshots are named for it. */
  const shot = (name: string) => (kind === 'pglite' ? name : `${name}-${kind}`);
  /** How the model answers: each row's word; or, for the run to stop, two rows then no answer. */
  let mode: 'words' | 'two-then-hang' | 'sentences' = 'words';
  let answered = 0;
  const systemPrompts: string[] = [];

  beforeAll(async () => {
    model = await startFakeServer();
    model.fallback = (req: RecordedRequest) => {
      const messages = (req.body as { messages?: { role: string; content: string }[] }).messages ?? [];
      const system = messages.find((m) => m.role === 'system')?.content ?? '';
      const question = messages.filter((m) => m.role === 'user').pop()?.content ?? '';
      systemPrompts.push(system);
      const answer = QA.find(([q]) => q === question)?.[1] ?? 'I do not know';
      if (mode === 'two-then-hang' && ++answered > 2) return { kind: 'hang' };
      if (mode === 'sentences' && WORDY.has(question)) return completion(`The answer is ${answer}.`);
      return completion(answer);
    };
    web = await startApp(kind, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: `${model.url}/v1` } });
    projectId = web.creds.project.id;
    browser = await workerBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const now = Date.now();
    for (const [i, [question, answer]] of QA.entries()) {
      const res = await web.request('POST', '/api/collector', {
        authToken: web.creds.projectApiKey,
        body: {
          trace_id: `loop-trace-${i}`,
          metadata: { labels: ['production'] },
          spans: [
            {
              span_id: `loop-span-${i}`,
              type: 'llm',
              name: 'answer',
              model: 'gpt-4o-mini',
              input: { type: 'text', value: question },
              output: { type: 'text', value: answer },
              timestamps: { started_at: now - (i + 1) * 60_000, finished_at: now - (i + 1) * 60_000 + 800 },
            },
          ],
        },
      });
      expect(res.status).toBe(200);
    }
    await signInContext(page.context(), web.baseUrl, web.creds.user);
  }, 120_000);
  afterAll(async () => {
    await closeContexts(browser);
    await web?.close();
    await model?.close();
  });

  const project = (p: string) => `${web.baseUrl}/p/${projectId}${p}`;
  const runIdOfPage = () => new URL(page.url()).searchParams.get('runId') ?? '';

  it('picks the production traces into a dataset created in the "Add to dataset" dialog', async () => {
    await page.goto(project('/traces'));
    for (let i = 0; i < QA.length; i++) {
      const row = page.locator(`[data-trace-id="loop-trace-${i}"]`);
      await row.waitFor();
      await row.getByRole('checkbox').check();
    }
    await page.getByText(`${QA.length} selected`).waitFor();
    await page.getByRole('button', { name: 'Add to dataset' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a dataset' });
    // No dataset yet: the dialog offers to make one instead of sending the user away.
    const form = dialog.getByRole('form', { name: 'New dataset' });
    await form.getByLabel('Name').fill('Support questions');
    await form.getByLabel('Columns').fill('question, expected_answer');
    await form.getByRole('button', { name: 'Create dataset' }).click();
    await expect.poll(() => dialog.getByLabel('Dataset', { exact: true }).inputValue()).toMatch(/^dataset_/);
    // Guessed by name: the question from the trace's input, the expected answer from its output.
    await expect.poll(() => dialog.getByLabel('Source of question').inputValue()).toBe('input');
    expect(await dialog.getByLabel('Source of expected_answer').inputValue()).toBe('output');
    await dialog.getByLabel(`The ${QA.length} selected`).check();
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByText(`${QA.length} rows added`).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
  });

  it('writes a prompt whose variables are named unlike the columns, and a review queue', async () => {
    await openInApp(page, project('/prompts'));
    await page.getByRole('button', { name: 'New prompt' }).click();
    await page.getByRole('textbox', { name: 'Handle', exact: true }).fill('support-answer');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByText('v1 · 1 version').waitFor();
    await page.getByLabel('System prompt').fill('Answer in a {{tone}} voice.');
    await page.getByLabel('Content of message 1').fill('{{user_question}}');
    await page.getByLabel('Input 1 name').fill('user_question');
    await page.getByRole('button', { name: 'Add input' }).click();
    await page.getByLabel('Input 2 name').fill('tone');
    await page.getByRole('textbox', { name: 'Commit message' }).fill('A tone and the question');
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('v2 · 2 versions').waitFor();

    // A queue is for giving scores: the score reviewers give is defined first, on the same page.
    await openInApp(page, project('/queues'));
    const scoreForm = page.getByRole('form', { name: 'New score config' });
    await scoreForm.getByLabel('Name').fill('Better than before');
    await scoreForm.getByLabel('Kind').selectOption('boolean');
    await scoreForm.getByRole('button', { name: 'Add score' }).click();
    await page.getByRole('table', { name: 'Score configs' }).getByText('Better than before').waitFor();
    await page.getByRole('button', { name: 'New queue' }).click();
    const queueDialog = page.getByRole('dialog');
    await queueDialog.getByLabel('Name').fill('Regressions review');
    // A queue without a score to give is refused, next to the scores.
    await page.getByRole('button', { name: 'Create queue' }).click();
    await queueDialog.getByText('Choose at least one score for reviewers to fill in.').waitFor();
    await queueDialog.getByLabel('Scores to fill in').click();
    await page.getByRole('option', { name: 'Better than before (boolean)' }).click();
    await page.getByRole('button', { name: 'Create queue' }).click();
    await page.getByRole('cell', { name: 'Regressions review' }).first().waitFor();
  });

  it('sets up an experiment, mapping each variable to a column or a constant, previewed on the first row', async () => {
    await openInApp(page, project('/experiments'));
    // The empty state tells of runs set up in the app, not only of the SDK.
    await page.getByText(/Name one under New experiment and set it up/).waitFor();
    await page.getByLabel('New experiment').fill('Support accuracy');
    await page.getByRole('button', { name: 'Set it up' }).click();
    await page.waitForURL('**/experiments/support-accuracy/setup**');
    // Nothing is saved yet: the breadcrumb names the experiment without linking to a page that does not exist.
    await page.getByRole('heading', { name: 'New experiment support-accuracy' }).waitFor();
    expect(await page.getByRole('link', { name: /support.accuracy/i }).count()).toBe(0);

    await page.getByLabel('Dataset', { exact: true }).selectOption('support-questions');
    await page.getByLabel('Concurrency').fill('1');
    await page.getByRole('combobox', { name: 'Prompt', exact: true }).selectOption('support-answer');
    const variables = page.getByRole('table', { name: 'Variables of target 1' });
    await variables.waitFor();
    // user_question has no column of its name: it asks for one; tone becomes a constant.
    await variables.getByText('The dataset has no column of this name').first().waitFor();
    await variables.getByLabel('Source of variable user_question').selectOption('dataset.question');
    await variables.getByLabel('Source of variable tone').selectOption('(constant)');
    await variables.getByLabel('Constant value of tone').fill('friendly');
    const firstQuestion = (await page.getByTestId('first-row').textContent())!.match(/question = ([^·]+?) ·/)![1];
    await expect.poll(() => page.getByTestId('rendered-prompt').textContent()).toBe(`system: Answer in a friendly voice.\n\nuser: ${firstQuestion}`);

    await page.getByRole('button', { name: 'Add an evaluator' }).click();
    await page.getByRole('combobox', { name: 'Evaluator', exact: true }).selectOption('checks/exact_match');
    await page.getByLabel('Source of expected_output').selectOption('dataset.expected_answer');
    // The pointer off the buttons: a hovered one is drawn in its hover colours.
    await page.mouse.move(0, 0);
    await checkBothWidths(page, shot('loop-setup'), () => page.getByTestId('rendered-prompt').waitFor(), true);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
  });

  it('runs it with "Run": a named run, verdicts first, rows counted from 1; the run is renamed', async () => {
    await openInApp(page, project('/experiments/support-accuracy'));
    await page.getByText('No runs yet').waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/runId=/);
    await page.getByText('completed', { exact: true }).first().waitFor({ timeout: 60_000 });
    // The name says what ran: prompt and version, model, start time.
    const heading = page.getByRole('heading', { level: 1 });
    await expect.poll(() => heading.textContent()).toMatch(/^support-answer v2 · openai\/gpt-4o-mini · \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(await page.getByTestId('run-targets').textContent()).toContain('support-answer v2 · openai/gpt-4o-mini');
    const grid = page.getByTestId('run-grid');
    await grid.locator('[data-row-index="0"]').waitFor();
    const headers = await grid.getByRole('columnheader').allTextContents();
    expect(headers.slice(0, 3)).toEqual(['#', 'Exact match', 'Output']);
    expect(await grid.locator('[data-row-index="0"] [role=cell]').first().textContent()).toBe('1');
    // The rows read while it ran are read again once it ends: all of them, shortly.
    await expect.poll(() => page.getByTestId('row-count').textContent(), { timeout: 15_000 }).toBe(`${QA.length} rows`);
    expect(systemPrompts.at(-1)).toBe('Answer in a friendly voice.');

    await page.getByRole('button', { name: 'Rename the run' }).click();
    await page.getByLabel('Run name').fill('friendly v2');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('heading', { name: 'friendly v2' }).waitFor();
    await checkBothWidths(page, shot('loop-run'), () => grid.locator('[data-row-index="0"]').waitFor(), true);
  });

  it('"Run again" shows rows as they finish, and "Stop" ends the run', async () => {
    mode = 'two-then-hang';
    answered = 0;
    await page.getByRole('button', { name: 'Run again' }).click();
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.getByText(`2 of ${QA.length} rows`).waitFor({ timeout: 30_000 });
    // The finished rows are in the table while the run goes on.
    await expect.poll(() => page.getByTestId('row-count').textContent(), { timeout: 15_000 }).toBe('2 rows');
    await page.getByTestId('run-grid').locator('[data-row-index]').nth(1).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('stopped', { exact: true }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    // What it did finish can go to review from here: a queue picked, not typed.
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a review queue' });
    expect(await dialog.getByLabel('Queue').locator('option:checked').textContent()).toBe('Regressions review');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByText('2 added.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('changes the prompt, runs again, compares the runs by name and sends the regressions to the queue', async () => {
    await openInApp(page, project('/prompts'));
    await page.getByRole('link', { name: /support-answer/ }).first().click();
    await page.getByLabel('System prompt').waitFor();
    await page.getByLabel('System prompt').fill('Answer in a {{tone}} voice, in a full sentence.');
    await page.getByRole('textbox', { name: 'Commit message' }).fill('Full sentences');
    await page.getByRole('button', { name: 'Save version' }).click();
    await page.getByText('v3 · 3 versions').waitFor();

    mode = 'sentences';
    await openInApp(page, project('/experiments/support-accuracy'));
    await page.getByRole('button', { name: 'Run again' }).click();
    await page.waitForURL(/runId=/);
    await page.getByText('completed', { exact: true }).first().waitFor({ timeout: 60_000 });
    const current = runIdOfPage();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^support-answer v3 · openai\/gpt-4o-mini · /);

    // The runs list: names, not ids.
    await openInApp(page, project('/experiments/support-accuracy'));
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByRole('link', { name: 'friendly v2' }).waitFor();
    await runs.getByRole('link', { name: /^support-answer v3 · / }).waitFor();
    expect(await runs.getByRole('link', { name: /^run_/ }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Compare run friendly v2' }).check();
    await page.getByRole('checkbox', { name: /^Compare run support-answer v3/ }).check();
    await page.getByRole('link', { name: 'Compare 2 runs' }).click();
    await page.waitForURL('**/compare**');

    // The verdict speaks of the runs by name.
    const verdicts = page.getByTestId('verdicts');
    await verdicts.waitFor({ timeout: 30_000 });
    const sentence = (await verdicts.textContent())!;
    // a handful of rows: under the minimum of paired rows the verdict says so, with the rows needed
    expect(sentence).toMatch(/Not enough data to compare support-answer v3 · openai\/gpt-4o-mini · [\d-]+ [\d:]+ with friendly v2 on .*: \d+ shared rows, 20 needed/);
    expect(sentence).toContain('friendly v2');
    expect(sentence).not.toMatch(/run_[A-Za-z0-9]/);

    await page.getByText('Regressions', { exact: true }).click();
    await expect.poll(() => page.getByTestId('compare-count').textContent()).toMatch(/^2 regressed, 0 improved/);
    const regressed = page.getByTestId('regression-rows');
    await regressed.getByText('The answer is Paris.').waitFor();
    await checkBothWidths(page, shot('loop-regressions'), () => regressed.getByText('The answer is Paris.').waitFor(), true);
    await page.getByRole('button', { name: 'Add to queue' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add to a review queue' });
    await dialog.getByText(/The traces of the 2 regressed results listed/).waitFor();
    expect(await dialog.getByLabel('Queue').locator('option:checked').textContent()).toBe('Regressions review');
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    await dialog.getByText('2 added.').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(current).toMatch(/^run_/);
  });

  it("adds a run's traces to a queue by picking the experiment and the run by name", async () => {
    await openInApp(page, project('/queues'));
    await page.getByRole('button', { name: 'Add items' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add to Regressions review' });
    await dialog.getByLabel('From').selectOption('experiment');
    // The experiments that have runs, the first chosen, once they are read.
    await expect.poll(() => dialog.getByLabel('Experiment').locator('option:checked').textContent()).toBe('Support accuracy');
    await dialog.getByLabel('Run', { exact: true }).selectOption({ label: 'friendly v2' });
    await dialog.getByRole('button', { name: 'Add', exact: true }).click();
    // Each row of that run has the trace of its prompt call.
    await dialog.getByText(`${QA.length} added.`).waitFor();
  });

  it('an SDK-logged experiment offers no setup, and its slug cannot be taken by a new one', async () => {
    const logged = await web.request('POST', '/api/evaluations/batch/log_results', {
      authToken: web.creds.projectApiKey,
      body: {
        experiment_slug: 'sdk-bot',
        name: 'SDK bot',
        run_id: 'sdk-run-1',
        dataset: [{ index: 0, entry: { question: 'Hi?' }, predicted: { output: 'Hello' } }],
        evaluations: [],
        timestamps: { created_at: Date.now(), finished_at: Date.now() },
      },
    });
    expect(logged.status, JSON.stringify(logged.body)).toBe(200);
    await openInApp(page, project('/experiments/sdk-bot'));
    await page.getByRole('table', { name: 'Runs' }).waitFor();
    expect(await page.getByRole('link', { name: 'Setup' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Run/ }).count()).toBe(0);
    await openInApp(page, project('/experiments/sdk-bot/setup'));
    await page.getByText('Logged by an SDK').waitFor();
    expect(await page.getByRole('button', { name: 'Save', exact: true }).count()).toBe(0);
    await openInApp(page, project('/experiments'));
    await page.getByLabel('New experiment').fill('SDK bot');
    await page.getByText('SDK bot is logged by an SDK; choose another name').waitFor();
    expect(await page.getByRole('button', { name: 'Set it up' }).isDisabled()).toBe(true);
  });
});
