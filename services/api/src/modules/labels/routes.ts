import { createLabel } from './create-label';
import { deleteLabel } from './delete-label';
import { getLabel } from './get-label';
import { listLabels } from './list-labels';
import { updateLabel } from './update-label';

export const labelRoutes = [listLabels, createLabel, getLabel, updateLabel, deleteLabel];
