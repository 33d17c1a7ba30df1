/**
 * Rules for a database URL:
 * - `sqlite:<path>` (relative to the working directory) or `sqlite::memory:` selects the embedded engine;
 * - `postgres://…` or `postgresql://…` selects PostgreSQL;
 * - anything else is refused with a message naming the accepted forms.
 */
export type DatabaseTarget =
  | { engine: 'sqlite'; path: string }
  | { engine: 'postgres'; connectionString: string };

/** Error thrown for a database URL that names no supported engine. */
export class DatabaseUrlError extends Error {
  readonly code = 'invalid_database_url';
}

/** Parses a database URL into the engine and its connection target. */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const trimmed = url.trim();
  if (trimmed.startsWith('sqlite:')) {
    const path = trimmed.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new DatabaseUrlError('sqlite URL needs a file path, e.g. sqlite:./data/app.db or sqlite::memory:');
    return { engine: 'sqlite', path };
  }
  if (/^postgres(ql)?:\/\//.test(trimmed)) {
    return { engine: 'postgres', connectionString: trimmed };
  }
  throw new DatabaseUrlError(
    `unsupported database URL "${redactUrl(trimmed)}": use sqlite:<file>, sqlite::memory: or postgres://user@host:port/db`,
  );
}

/**
 * Why `url` cannot be opened, or undefined when it names a supported engine. For configuration
 * validators: `AUTH_DATABASE_URL=mysql://…` is refused at start with this reason (password redacted).
 */
export function databaseUrlProblem(url: string): string | undefined {
  try {
    parseDatabaseUrl(url);
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseUrlError) return error.message;
    throw error;
  }
}

/** The URL with any password replaced, safe to log. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
