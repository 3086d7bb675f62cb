import escapeHtml from 'escape-html';

/** One mail, with its plain-text and HTML parts saying the same thing. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The links it carries: logged when mail goes to MAIL_DIR. */
  links: string[];
}

export interface MailContent {
  to: string;
  subject: string;
  /** Paragraphs before the buttons. */
  paragraphs: string[];
  /** Each a button in HTML, a labelled line in text. */
  actions: { label: string; url: string }[];
  /** A smaller last paragraph: why they got it, what to do if unexpected. */
  footer: string;
}

/** Both parts from one content, so that they never drift apart; every value is escaped in the HTML. */
export function composeMail({ to, subject, paragraphs, actions, footer }: MailContent): Mail {
  const text = [...paragraphs, ...actions.map((action) => `${action.label}:\n${action.url}`), `-- \n${footer}`].join('\n\n');
  const button = (action: { label: string; url: string }) =>
    `<p><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:10px 16px;background:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(action.label)}</a></p>` +
    `<p style="font-size:13px;color:#4b5563">Or open: ${escapeHtml(action.url)}</p>`;
  const html = [
    '<!doctype html><html lang="en"><body style="font-family:system-ui,sans-serif;font-size:15px;line-height:1.5;color:#111827;max-width:560px">',
    ...paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    ...actions.map(button),
    `<p style="font-size:13px;color:#4b5563">${escapeHtml(footer)}</p>`,
    '</body></html>',
  ].join('\n');
  return { to, subject, text, html, links: actions.map((action) => action.url) };
}
