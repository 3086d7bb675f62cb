import { conflict } from '../../http/errors';

/** docs/decisions.md#labels: names are unique in the organization and mode whatever their case. */
export const nameTaken = (name: string) => conflict(`A label named "${name}" already exists (names are compared ignoring case)`, 'name');
