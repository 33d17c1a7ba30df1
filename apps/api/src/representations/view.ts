import type { Item } from '../collections/item-validator.ts';

/**
 * What a successful response shows, independent of the representation:
 * - `items`: a JSON array of items (v1 lists, and the v1 single item shown as an array of one);
 * - `page`: a page envelope (v2 lists);
 * - `item`: one item as an object (v2 reads, and every version's POST and PUT).
 */
export type View =
  | { readonly kind: 'items'; readonly collection: string; readonly items: readonly Item[] }
  | {
      readonly kind: 'page';
      readonly collection: string;
      readonly items: readonly Item[];
      readonly limit: number;
      readonly next: string | null;
    }
  | { readonly kind: 'item'; readonly collection: string; readonly item: Item };

/** The JSON value of a view. */
export function viewToJson(view: View): unknown {
  switch (view.kind) {
    case 'items':
      return view.items;
    case 'page':
      return { items: view.items, page: { limit: view.limit, next: view.next } };
    case 'item':
      return view.item;
  }
}
