/**
 * A server-run scenario: the simulated user (the user model, from the persona, the goal and
 * the conversation) writes a turn, the agent answers, and the judge (the judge model, with the
 * criteria) decides each criterion met or not and whether the conversation has shown enough;
 * until it has, or the run reaches its maximum turns. Every step is stored as the package
 * reports it (snapshots, then the finished event), so a run taken over after a restart goes on
 * from its stored conversation. An agent that times out or answers garbage, or a model that
 * fails, ends the run as an error with the reason; the batch's other runs go on.
 */
import { performance } from 'node:perf_hooks';
import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import { AppError } from '../../platform/errors.ts';
import { RescheduleJob, type ClaimedJob } from '../../platform/jobs/index.ts';
import { callHttpAgent } from '../experiments/index.ts';
import type { ChatTurn, SimulationScope, SimulationsContext } from './context.ts';
import { HEADER_TARGET, headerOwner } from './define-scenario.ts';
import { applyEvent, redactionFor } from './report-event.ts';
import type { SimulationMessage } from './schemas.ts';
import { SIMULATION_QUEUE, type RunPlan } from './start-batch.ts';
import * as store from './store.ts';

export const runJobPayload = z.object({ projectId: z.string().min(1), scenarioRunId: z.string().min(1) });
type RunJob = z.output<typeof runJobPayload>;

/** How often a run renews its claim on its job (the experiments' queue holds a claim 30 s). */
const HEARTBEAT_MS = 5_000;

/** The judge's answer: each criterion in the order given, and whether the conversation can end. */
const judgeAnswer = z.object({
  criteria: z
    .array(z.object({ met: z.boolean().describe('true when the conversation shows the criterion met'), reasoning: z.string().describe('why, in one or two sentences') }))
    .describe('One entry per criterion, in the order they were given'),
  reasoning: z.string().describe('The overall judgement'),
  finished: z.boolean().describe('true when the conversation has shown enough to decide every criterion; false to let the user go on'),
});
type JudgeAnswer = z.output<typeof judgeAnswer>;

class RunFailed extends Error {}

export class SimulationRunner {
  private readonly closing = new AbortController();

  constructor(private readonly ctx: SimulationsContext) {
    // Every call of every run in flight listens to it.
    setMaxListeners(0, this.closing.signal);
    ctx.server.queue.handle(SIMULATION_QUEUE, runJobPayload, (job) => this.runJob(job));
  }

  /** The server is closing: runs in flight stop where they are and are taken up again after the restart. */
  close(): void {
    this.closing.abort(new Error('the server is closing'));
  }

  private async runJob(job: ClaimedJob<RunJob>): Promise<void> {
    const { ctx } = this;
    const { projectId, scenarioRunId } = job.payload;
    const server = await store.findServerRun(ctx.db.orm, projectId, scenarioRunId);
    const run = await store.findRun(ctx.db.orm, projectId, scenarioRunId);
    if (!server || !run || run.finished_at !== null) return;
    const plan = server.plan as RunPlan;
    const scope: SimulationScope = { organizationId: server.organization_id, projectId, userId: plan.userId };
    const signal = this.closing.signal;
    const heartbeat = setInterval(() => void ctx.server.queue.extendLease(job.id).catch(() => undefined), HEARTBEAT_MS);
    const ids = { batchRunId: server.batch_run_id, scenarioId: plan.scenarioId, scenarioRunId, scenarioSetId: plan.scenarioSetId };
    const redact = await redactionFor(ctx, projectId);
    const store1 = async (event: Parameters<typeof applyEvent>[2]) => {
      const now = ctx.clock.now().getTime();
      await ctx.db.orm.transaction((tx) => applyEvent(tx, scope, event, redact, now));
    };
    const messages = [...(run.messages as SimulationMessage[])];
    try {
      const verdict = await this.converse(scope, plan, scenarioRunId, messages, async () => {
        await store1({ type: 'SCENARIO_MESSAGE_SNAPSHOT', timestamp: ctx.clock.now().getTime(), ...ids, messages });
      });
      const unmet = plan.criteria.filter((_, i) => !verdict.criteria[i].met);
      await store1({
        type: 'SCENARIO_RUN_FINISHED',
        timestamp: ctx.clock.now().getTime(),
        ...ids,
        status: unmet.length ? 'FAILED' : 'SUCCESS',
        results: {
          verdict: unmet.length ? 'failure' : 'success',
          reasoning: reasoningText(plan.criteria, verdict),
          metCriteria: plan.criteria.filter((_, i) => verdict.criteria[i].met),
          unmetCriteria: unmet,
        },
      });
    } catch (err) {
      if (signal.aborted) throw new RescheduleJob(ctx.clock.now().getTime());
      if (!(err instanceof RunFailed)) throw err; // the server's own failure (the database): the job is retried
      await store1({
        type: 'SCENARIO_RUN_FINISHED',
        timestamp: ctx.clock.now().getTime(),
        ...ids,
        status: 'ERROR',
        results: { verdict: 'failure', reasoning: err.message, metCriteria: [], unmetCriteria: plan.criteria, error: err.message },
      });
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Turns until the judge ends the conversation or the turns run out; `stored` keeps each new message. */
  private async converse(scope: SimulationScope, plan: RunPlan, scenarioRunId: string, messages: SimulationMessage[], stored: () => Promise<void>): Promise<JudgeAnswer> {
    const signal = this.closing.signal;
    for (;;) {
      const last = messages.at(-1);
      if (last?.role === 'user') {
        const answer = await this.agentAnswer(scope, plan, scenarioRunId, messages, signal);
        messages.push({ id: `msg-${messages.length}`, role: 'assistant', content: answer.text, ...(answer.traceId ? { trace_id: answer.traceId } : {}) });
        await stored();
        continue;
      }
      const turns = messages.filter((m) => m.role === 'user').length;
      if (last?.role === 'assistant') {
        const lastTurn = turns >= plan.maxTurns;
        const verdict = await this.judge(scope, plan, messages, lastTurn, signal);
        if (verdict.finished || lastTurn) return verdict;
      }
      const text = await this.userTurn(scope, plan, messages, signal);
      messages.push({ id: `msg-${messages.length}`, role: 'user', content: text });
      await stored();
    }
  }

  private async userTurn(scope: SimulationScope, plan: RunPlan, messages: SimulationMessage[], signal: AbortSignal): Promise<string> {
    // The simulator plays the user: the agent's messages are what it is told, its own what it said.
    const turns: ChatTurn[] = [
      {
        role: 'system',
        content: `You are a user talking to an AI agent, to test it. Stay in character and write only your next message to the agent, as this user would: short, natural, no narration.

# Who you are
${plan.persona}

# What you want
${plan.goal}
${plan.description ? `\n# The scenario\n${plan.description}\n` : ''}
When your goal is reached, or it is clear it will not be, say so briefly.`,
      },
      ...messages.map((m): ChatTurn => ({ role: m.role === 'user' ? 'assistant' : 'user', content: textOf(m) })),
    ];
    if (!messages.length) turns.push({ role: 'user', content: 'Write your first message to the agent.' });
    const text = await this.model('user_simulator', () => this.ctx.server.models.chat(scope, plan.userModel, turns, signal));
    if (!text.trim()) throw new RunFailed(`user_simulator_empty: the user model ${plan.userModel} answered an empty message`);
    return text.trim();
  }

  private async judge(scope: SimulationScope, plan: RunPlan, messages: SimulationMessage[], lastTurn: boolean, signal: AbortSignal): Promise<JudgeAnswer> {
    const criteria = plan.criteria.map((c, i) => `${i + 1}. ${c}`).join('\n');
    const transcript = messages.map((m) => `${m.role === 'user' ? 'USER' : 'AGENT'}: ${textOf(m)}`).join('\n\n');
    const answer = await this.model('judge', () =>
      this.ctx.server.models.callTool(
        scope,
        plan.judgeModel,
        {
          system: `You judge a conversation between a simulated user and an AI agent against written criteria. For each criterion decide whether the conversation shows it met, with a short reason.
${lastTurn ? 'This is the last turn: decide now (finished true).' : 'Set finished to true once every criterion can be decided (met, or clearly failed); false while the conversation should go on.'}

# The scenario
${plan.description || plan.name}
The user's goal: ${plan.goal}

# Criteria
${criteria}`,
          prompt: `# Conversation\n${transcript}`,
          tool: { name: 'judge', description: 'The verdict on each criterion, in the order given, and whether the conversation can end', input: judgeAnswer },
        },
        signal,
      ),
    );
    if (answer.criteria.length !== plan.criteria.length) {
      throw new RunFailed(`judge_invalid_answer: the judge model ${plan.judgeModel} answered ${answer.criteria.length} verdicts for ${plan.criteria.length} criteria`);
    }
    return answer;
  }

  private async agentAnswer(scope: SimulationScope, plan: RunPlan, scenarioRunId: string, messages: SimulationMessage[], signal: AbortSignal): Promise<{ text: string; traceId: string | null }> {
    const t = plan.target;
    const conversation = messages.map((m) => ({ role: m.role, content: textOf(m) }));
    if (t.type === 'prompt') {
      const last = conversation.at(-1)?.content ?? '';
      const transcript = conversation.map((m) => `${m.role}: ${m.content}`).join('\n');
      const { run, stored } = await this.model('agent', async () => {
        const prepared = await this.ctx.server.prompts.prepare(scope, t.prompt, { version: t.version });
        const call = prepared({ variables: { input: last, conversation: transcript }, ...(t.model ? { model: t.model } : {}) }, signal);
        // Handled at once: a failed call's trace may fail to store too, and nothing else awaits it.
        const stored = call.recorded.then(
          () => true,
          () => false,
        );
        return { run: await call.answer, stored };
      });
      // The message links the trace only once it is stored, so the link never leads to a 404;
      // a trace that failed to store is not linked (the answer still counts), as in experiments.
      return { text: run.output.content, traceId: (await stored) ? run.trace_id : null };
    }
    let headers: Record<string, string> = {};
    try {
      if (t.sealed_headers) headers = this.ctx.server.headers.open(headerOwner(plan.scenarioId), HEADER_TARGET, t.sealed_headers);
    } catch (err) {
      throw new RunFailed(`headers_unreadable: the agent's headers do not open (${err instanceof Error ? err.message : String(err)}); save the scenario again`);
    }
    const t0 = performance.now();
    const called = await callHttpAgent(this.ctx.server.agents, t, headers, { messages: conversation, thread_id: scenarioRunId, scenario: { id: plan.scenarioId, name: plan.name } }, signal);
    if (called.aborted) throw signal.reason ?? new Error('aborted');
    if (called.error) throw new RunFailed(called.error);
    if (typeof called.output !== 'string') {
      throw new RunFailed(`invalid_output: the agent's "${t.output_field}" is ${called.output === null ? 'null' : typeof called.output}, not text (after ${Math.round(performance.now() - t0)} ms)`);
    }
    const answer = called.answer as { trace_id?: unknown } | null;
    return { text: called.output, traceId: answer && typeof answer.trace_id === 'string' ? answer.trace_id : null };
  }

  /** A model's or prompt's failure as the run's reason (the server closing is not one). */
  private async model<T>(role: 'user_simulator' | 'judge' | 'agent', call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (this.closing.signal.aborted || err instanceof RunFailed) throw err;
      const message = err instanceof AppError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
      throw new RunFailed(`${role}_failed: ${message}`);
    }
  }
}

function textOf(m: SimulationMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p).text) : '')).join('');
  return '';
}

/** The judge's reasoning, then each criterion's verdict and reason: what the run page shows. */
function reasoningText(criteria: string[], verdict: JudgeAnswer): string {
  return [verdict.reasoning, ...criteria.map((c, i) => `${verdict.criteria[i].met ? '✓' : '✗'} ${c}: ${verdict.criteria[i].reasoning}`)].join('\n');
}
