/**
 * The edges of the world for server-run simulations: the loopback OpenAI-compatible server's
 * script (the user simulator's turns, and a judge that finds the refund criterion met once the
 * agent said REFUND APPROVED), and a loopback HTTP agent whose behaviour is in its path.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { textReply, toolCallReply, type RecordedRequest } from '../evaluators/fake-servers.ts';

/** The judge of the fake: a criterion naming "refund" is met when the agent said REFUND APPROVED. */
export function scriptedModel(req: RecordedRequest) {
  const messages = req.body.messages as Array<{ role: string; content: string }>;
  if (!req.body.tools) {
    // A prompt playing the agent (a scenario's prompt target): its system message names the desk.
    if (messages.some((m) => m.role === 'system' && m.content.includes('REFUND DESK'))) return textReply('REFUND APPROVED: your refund for order 42 is on its way.');
    const turns = messages.filter((m) => m.role === 'assistant').length;
    return textReply(turns === 0 ? 'Hi, I want a refund for order 42.' : `Turn ${turns + 1}: so is my refund approved?`);
  }
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  const conversation = messages.find((m) => m.role === 'user')?.content ?? '';
  const criteria = [...system.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]);
  const approved = /AGENT: .*REFUND APPROVED/.test(conversation);
  return toolCallReply('judge', {
    criteria: criteria.map((c) => ({ met: /refund/i.test(c) ? approved : true, reasoning: approved ? 'the agent approved it' : 'no approval yet' })),
    reasoning: approved ? 'The refund was approved.' : 'No refund so far.',
    finished: approved,
  });
}

/** The user's agent: its behaviour is in the path. */
export interface LoopbackAgent {
  url: string;
  calls: Array<{ path: string; body: any; headers: http.IncomingHttpHeaders }>;
  /** `/versioned`: version 1 refuses every refund; version 2 grants them in scenarios "case 0" to "case 14". */
  version: 1 | 2;
  close: () => Promise<void>;
}

export async function startAgent(): Promise<LoopbackAgent> {
  const calls: Array<{ path: string; body: any; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text);
      calls.push({ path: req.url ?? '', body, headers: req.headers });
      const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (req.url === '/good') return json({ output: 'REFUND APPROVED: the money is on its way.' });
      if (req.url === '/stubborn') return json({ output: 'We never give refunds.' });
      if (req.url === '/garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
      if (req.url === '/versioned') {
        const n = Number(/case (\d+)/.exec(body.scenario?.name ?? '')?.[1] ?? 99);
        return json({ output: agent.version === 2 && n < 15 ? 'REFUND APPROVED.' : 'We never give refunds.' });
      }
      if (req.url === '/slow') return void setTimeout(() => json({ output: 'too late' }), 5_000);
      res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const agent: LoopbackAgent = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    version: 1,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  return agent;
}

