import type { Mode } from './generated/prisma/enums';

/**
 * The tenant scope every data access carries: an organization and its live or test dataset. The
 * data layer binds it once (`tenantData`) and puts it in every statement; there is no lookup by bare id.
 */
export interface Scope {
  organizationId: string;
  mode: Mode;
}
