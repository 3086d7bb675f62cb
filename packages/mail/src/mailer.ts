import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger, MailSettings } from '@worktrack/config';
import type { Mail } from './compose';

export interface Mailer {
  /** Sends one mail; rejects when the SMTP server refuses it or cannot be reached. */
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * Mail over SMTP (`SMTP_URL`) through nodemailer, or with no SMTP_URL each mail written to
 * `MAIL_DIR` as one `.eml` file and (outside production) its links logged, so that a local start
 * works with no mail server (docs/decisions.md#email-and-invitations).
 */
export function createMailer(settings: MailSettings, logger: Logger): Mailer {
  // nodemailer loads on the first mail: most processes never send one, and it is a large module.
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      settings.smtpUrl ? nodemailer.createTransport(settings.smtpUrl) : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  const close = () => void transport?.then((opened) => opened.close());
  const fields = (mail: Mail) => ({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
  if (settings.smtpUrl) {
    return {
      async send(mail) {
        await (await open()).sendMail(fields(mail));
      },
      close,
    };
  }
  return {
    async send(mail) {
      const { message } = (await (await open()).sendMail(fields(mail))) as { message: Buffer };
      await mkdir(settings.directory, { recursive: true });
      const file = path.join(settings.directory, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, message);
      logger.info({ to: mail.to, subject: mail.subject, ...(settings.logLinks && { links: mail.links }), file }, 'mail written to MAIL_DIR (no SMTP_URL)');
    },
    close,
  };
}
