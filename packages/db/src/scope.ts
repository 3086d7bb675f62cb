import type { Actor } from '@worktrack/events';
import type { Mode } from './generated/prisma/enums';

/**
 * The tenant scope every data access carries: an organization and its live or test dataset. The
 * data layer binds it once (`tenantData`) and puts it in every statement; there is no lookup by bare id.
 */
export interface Scope {
  organizationId: string;
  mode: Mode;
}

/** A scope and who acts in it, whose name the events of its changes carry; the service itself when none is given. */
export interface ActingScope extends Scope {
  actor?: Actor;
}
