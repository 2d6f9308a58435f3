/**
 * The answer of a pure state-machine step: `move` to a new status, `noop` (already there) or `ignored` (a move
 * backwards or sideways, e.g. a late "pending" after "succeeded"; nothing changes). @see docs/design.md §6.
 */
export type Transition<S extends string> =
  | { readonly kind: 'move'; readonly to: S }
  | { readonly kind: 'noop' }
  | { readonly kind: 'ignored'; readonly from: S; readonly to: S };
