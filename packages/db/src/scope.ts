import type { Mode } from './generated/prisma/enums';

/**
 * The tenant scope every data access carries: an organization and its live or test dataset.
 * Spread it into every `where` of a mode-scoped model; there is no lookup by bare id.
 */
export interface Scope {
  organizationId: string;
  mode: Mode;
}

export function scoped<W extends object>(scope: Scope, where: W): W & Scope {
  return { ...where, organizationId: scope.organizationId, mode: scope.mode };
}
