import Joi from 'joi';

/**
 * docs/decisions.md#signing-in-safely: a name (of a member, a key, a project) is one line of text. Control
 * characters and line separators are refused, not stripped: a line break in a name shown in a mail could
 * fake a line of its own there ("Bcc: ..."). Checked by a custom rule rather than a pattern: client
 * generators write an OpenAPI pattern into a regular expression literal with its escapes decoded, and a
 * raw line break ends that literal (the generated client would not compile).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is what it is for.
const ONE_LINE = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;

export const nameString = (maxLength: number) =>
  Joi.string()
    .trim()
    .min(1)
    .max(maxLength)
    .custom((value: string, helpers) => (ONE_LINE.test(value) ? value : helpers.error('string.oneLine')))
    .messages({ 'string.oneLine': '{#label} must not contain control characters such as line breaks or tabs' });
