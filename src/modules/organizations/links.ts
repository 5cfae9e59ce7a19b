import { type OrganizationsContext } from './context.ts';

/** The base of links: SPYGLASS_PUBLIC_URL, else the origin the request came to. */
export function linkBase(ctx: OrganizationsContext, origin: string): string {
  return ctx.accounts.publicUrl ?? origin;
}
export function sendMail(ctx: OrganizationsContext, to: string, subject: string, text: string) {
  if (!ctx.mailer) return;
  // The link is already in the answer; a mail server that fails costs the mail, not the request.
  ctx.mailer.send({ to, subject, text }).catch((err: Error) => ctx.logger.warn({ error: err.message }, 'mail not sent'));
}