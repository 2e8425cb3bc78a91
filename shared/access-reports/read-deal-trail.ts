import { NotFound } from '../domain/outcome.ts';
import type { DealRoleReader } from '../groups/deal-roles.ts';
import type { DealRef } from '../groups/group.ts';
import type { TrailFilter, TrailPage, TrailPageRequest, TrailQueries } from './trail-queries.ts';

/**
 * GET …/deal/{deal_id}/access (extension): a page of the deal's trail, newest first, for the
 * group's editors. The trail names the fund's people and what they read, so a viewer gets the
 * same NotFound as a stranger, a deal outside the group and a missing one: nothing tells one
 * from another. Reading the trail writes no entry of its own (docs/api-guide.md says why).
 */
export async function readDealTrail(
  ports: {
    readonly dealRoles: Pick<DealRoleReader, 'rolesIn'>;
    readonly trail: Pick<TrailQueries, 'dealPage'>;
  },
  request: {
    readonly userId: number;
    readonly deal: DealRef;
    readonly filter: TrailFilter;
    readonly page: TrailPageRequest;
  },
): Promise<TrailPage> {
  const [role] = await ports.dealRoles.rolesIn(request.userId, [request.deal]);
  if (role !== 'editor') throw new NotFound();
  return ports.trail.dealPage(request.deal, request.filter, request.page);
}
