import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message with quoted-printable soft line breaks and escapes undone. */
  text: string;
}

/**
 * A loopback SMTP server (the edge of the world for mail): accepts `user:pass` over plain
 * SMTP and keeps what it receives. `port` (0: any free one) starts it again where one was closed.
 */
export async function startSmtp(credentials = { user: 'spy', pass: 'glass' }, port = 0) {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === credentials.user && auth.password === credentials.pass) callback(null, { user: auth.username });
      else callback(new Error('bad credentials'));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          text: raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${credentials.user}:${credentials.pass}@127.0.0.1:${bound}`,
    port: bound,
    received,
    /** The first mail to `to` (containing `containing`) that arrives within `ms`. */
    async waitFor(to: string, containing = '', ms = 5000): Promise<ReceivedMail> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = received.find((m) => m.to.includes(to) && m.text.includes(containing));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no mail to ${to} containing "${containing}" within ${ms} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
