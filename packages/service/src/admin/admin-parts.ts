import type { ServiceContext } from '../service-context.js';
import type { AdminActions } from './admin-actions.js';
import type { AdminSessions } from './admin-auth.js';
import type { AdminReads } from './admin-reads.js';

/** The parts the admin API serves from. */
export interface AdminParts {
  readonly ctx: ServiceContext;
  readonly sessions: AdminSessions;
  readonly reads: AdminReads;
  readonly actions: AdminActions;
}
