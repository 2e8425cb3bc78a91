import { NotFound } from '../domain/outcome.ts';
import type { GroupRepository } from '../groups/group-repository.ts';
import type { AccessEntry, TrailScope } from '../access-trail/access-entry.ts';
import type { TrailQueries, TrailWindow } from './trail-queries.ts';

/**
 * The operator's export of a group's trail for its auditors, oldest first, of any size: every
 * deal's entries and the group's membership changes, or one deal's alone. What it names is
 * checked before the first entry, so a refusal streams nothing.
 */
export async function exportTrail(
  ports: {
    readonly groups: Pick<GroupRepository, 'dealsOf'>;
    readonly trail: Pick<TrailQueries, 'entriesOf'>;
  },
  request: { readonly groupId: number; readonly dealId?: number; readonly window: TrailWindow },
  signal?: AbortSignal,
): Promise<AsyncIterable<AccessEntry>> {
  const { groupId, dealId, window } = request;
  const deals = await ports.groups.dealsOf(groupId);
  if (deals === undefined) throw new NotFound(`group ${groupId} does not exist`);
  const dealScope = (id: number): TrailScope => ({ kind: 'deal', groupId, dealId: id });
  if (dealId !== undefined) {
    if (!deals.some((deal) => deal.id === dealId)) {
      throw new NotFound(`deal ${dealId} is not in group ${groupId}`);
    }
    return ports.trail.entriesOf([dealScope(dealId)], window, signal);
  }
  const scopes = [...deals.map((deal) => dealScope(deal.id)), { kind: 'group', groupId } as const];
  return ports.trail.entriesOf(scopes, window, signal);
}
