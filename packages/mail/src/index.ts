export { composeMail, type Mail } from './compose';
export { createMailer, type Mailer } from './mailer';
export { invitationMail, signInMail, webhookDisabledMail } from './messages';
