import { composeMail, type Mail } from './compose';

/** One sign-in link per organization the address is a member of. */
export function signInMail(to: string, links: { organizationName: string; url: string }[]): Mail {
  return composeMail({
    to,
    subject: 'Your worktrack sign-in link',
    paragraphs: ['Someone (hopefully you) asked to sign in to the worktrack dashboard with this address. Each link works once, within 15 minutes.'],
    actions: links.map((link) => ({ label: `Sign in to ${link.organizationName}`, url: link.url })),
    footer: 'If you did not ask for it, ignore this mail: nobody can sign in without the link.',
  });
}

export function invitationMail(invitation: { to: string; organizationName: string; invitedBy: string; role: string; url: string; expiresAt: Date }): Mail {
  return composeMail({
    to: invitation.to,
    subject: `${invitation.invitedBy} invited you to ${invitation.organizationName} on worktrack`,
    paragraphs: [
      `${invitation.invitedBy} invited you to join ${invitation.organizationName} on worktrack as ${invitation.role === 'admin' ? 'an' : 'a'} ${invitation.role}.`,
      `The invitation is valid until ${invitation.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC, once.`,
    ],
    actions: [{ label: 'Accept the invitation', url: invitation.url }],
    footer: 'If you did not expect it, ignore this mail: nothing happens unless you accept.',
  });
}

export function webhookDisabledMail(notice: { to: string; organizationName: string; webhookUrl: string; lastResponse: string; url: string }): Mail {
  return composeMail({
    to: notice.to,
    subject: `A webhook subscription of ${notice.organizationName} was disabled`,
    paragraphs: [
      `The subscription to ${notice.webhookUrl} was disabled: a delivery failed its last retry. It gets no new deliveries until it is re-enabled.`,
      `The endpoint's last answer: ${notice.lastResponse}.`,
      'Once the endpoint works again, re-enable the subscription in the dashboard: it offers to recover what was missed since it was disabled.',
    ],
    actions: [{ label: 'Open the subscription', url: notice.url }],
    footer: `You get this mail as an admin of ${notice.organizationName}.`,
  });
}
