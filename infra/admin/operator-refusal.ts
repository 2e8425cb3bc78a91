/**
 * An operator's command refused on purpose (a missing group, a deal that already exists),
 * with a message that says what to do; it changed nothing.
 */
export class OperatorRefusal extends Error {
  override name = 'OperatorRefusal';
}
