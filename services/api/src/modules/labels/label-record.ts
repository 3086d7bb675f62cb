import Joi from 'joi';
import type { Label } from '@worktrack/db';
import type { LabelRecord } from '@worktrack/events';
import { out } from '../../http/record-fields';
import { defineResource } from '../../http/route';

export function toLabelRecord(label: Label): LabelRecord {
  return {
    id: label.id,
    name: label.name,
    color: label.color,
    description: label.description,
    createdAt: label.createdAt.toISOString(),
    updatedAt: label.updatedAt.toISOString(),
  };
}

export const labelRecordSchema = Joi.object<LabelRecord, true>({
  id: out.id('lbl'),
  name: Joi.string().required().example('bug'),
  color: Joi.string().allow(null).required().example('#d73a4a'),
  description: out.nullableString(),
  createdAt: out.timestamp(),
  updatedAt: out.timestamp(),
}).id('Label');

export const labelResource = defineResource<Label>({
  param: 'labelId',
  name: 'label',
  find: (data, id) => data.labels.find(id),
  lockRow: (tx, id) => tx.labels.lock(id),
  toRecord: toLabelRecord,
});
