import Joi from 'joi';
import type { Actor } from '@worktrack/events';
import { out } from '../../http/record-fields';

/** Who caused an event (docs/decisions.md#history-actors-and-live-events): a user through a key or the dashboard, or the service. */
export const actorSchema = Joi.alternatives<Actor>()
  .try(
    Joi.object({
      type: Joi.string().valid('user').required(),
      userId: out.id('usr'),
      apiKeyId: Joi.string()
        .pattern(/^key_[0-9A-Za-z]+$/)
        .allow(null)
        .required()
        .description('The API key used; null for a change made in the dashboard'),
    }).id('UserActor'),
    Joi.object({ type: Joi.string().valid('system').required() }).id('SystemActor'),
  )
  .required()
  .id('Actor')
  .description('Who caused the event: a user (through an API key, or the dashboard when `apiKeyId` is null), or the service itself');
