import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Sends through the SMTP server of `SMTP_URL` (smtp:// with STARTTLS when offered, smtps:// for TLS from the start). */
export function smtpMailer(smtp: { url: string; from: string }): Mailer {
  // nodemailer is loaded with the first mail, not at start (docs/performance.md: Overload, memory and start).
  let transport: Promise<Transporter> | null = null;
  return {
    async send(message) {
      transport ??= import('nodemailer').then((m) => m.default.createTransport(smtp.url));
      await (await transport).sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
