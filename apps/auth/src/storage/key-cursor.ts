/**
 * The opaque keyset cursor of the operators' lists (users by username, clients by client id):
 * base64url of `{"<field>":"<last key of the page>"}`. Rules:
 * - a cursor decodes only to a key that `accepts` allows (the key's stored shape), so nothing
 *   else reaches the query; anything else (not base64url JSON, another field, a bad key) is
 *   undefined, which the caller refuses with its own coded error.
 */
export interface KeyCursor {
  encode(key: string): string;
  decode(cursor: string): string | undefined;
}

export function keyCursor(field: string, accepts: (key: string) => boolean): KeyCursor {
  return {
    encode: (key) => Buffer.from(JSON.stringify({ [field]: key })).toString('base64url'),
    decode(cursor) {
      try {
        const key = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>)[field];
        if (typeof key === 'string' && accepts(key)) return key;
      } catch {
        // Not JSON, or JSON null: a foreign cursor.
      }
      return undefined;
    },
  };
}
