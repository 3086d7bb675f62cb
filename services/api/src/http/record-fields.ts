import Joi from 'joi';

/** Field schemas of the records the API returns (response schemas, not input validation). */
export const out = {
  id: (prefix: string) =>
    Joi.string()
      .pattern(new RegExp(`^${prefix}_[0-9A-Za-z]+$`))
      .required()
      .example(`${prefix}_01JD2X5K8Y3V4M7N9P0Q1R2S3T`),
  timestamp: () => Joi.string().isoDate().required().example('2026-11-21T10:00:00.000Z'),
  nullableTimestamp: () => Joi.string().isoDate().allow(null).required(),
  string: () => Joi.string().allow('').required(),
  nullableString: () => Joi.string().allow('', null).required(),
};
