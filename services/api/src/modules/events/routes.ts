import { getEvent } from './get-event';
import { listEvents } from './list-events';

export const eventRoutes = [listEvents, getEvent];
