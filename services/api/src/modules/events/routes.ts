import { getEvent } from './get-event';
import { listEvents } from './list-events';
import { readFeed } from './read-feed';

export const eventRoutes = [listEvents, readFeed, getEvent];
