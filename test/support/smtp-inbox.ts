import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait-for';

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * A real SMTP server on a loopback port (smtp-server, parsed with mailparser): what the service
 * sends over SMTP_URL lands here, as a mail client would read it.
 */
export async function startSmtpInbox() {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: mail.from?.text ?? '',
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The next mail to this address whose subject matches, once it arrives (bounded). */
    async mailTo(address: string, subject: RegExp, after = 0): Promise<ReceivedMail> {
      return waitFor(() => Promise.resolve(received.slice(after).find((mail) => mail.to.includes(address) && subject.test(mail.subject))));
    },
    /** The link of a mail's plain-text part that starts with this address. */
    linkIn(mail: ReceivedMail, prefix: string): string {
      const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
      if (!link) throw new Error(`no link starting with ${prefix} in: ${mail.text}`);
      return link;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type SmtpInbox = Awaited<ReturnType<typeof startSmtpInbox>>;
