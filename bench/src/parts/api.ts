/**
 * The API's parts (bench/README.md, "API read"): an authorized item read against bare Koa +
 * @koa/router answering the same JSON from memory, and an item's POST + DELETE against the same
 * rows written straight to its database from this process. Rules:
 * - the read is measured on SQLite, with a JWT access token checked on every request;
 * - the bare Koa baseline must answer the very body the API answers, or the run fails;
 * - the write is measured on both engines; one operation is the pair of requests.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { Figure } from '../budgets.ts';
import type { Context } from '../context.ts';
import { httpRequest, repeat, type Script } from '../load.ts';
import { CpuMeter, measure, ratioFigure, roundLogger } from '../measure.ts';
import { compare } from '../paired.ts';
import { basic } from '../sign-in.ts';
import type { EngineStack } from '../stack.ts';

export const API_READ = 'API read vs bare Koa + @koa/router';
export const apiWriteFigure = (stack: EngineStack) => `API write (${stack.engine}) vs raw ${stack.engine === 'sqlite' ? 'node:sqlite' : 'pg'}`;

/** An access token of the machine client (client_credentials). */
async function token(stack: EngineStack, scope: string): Promise<string> {
  const response = await fetch(`${stack.auth.url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(stack.machine.clientId, stack.machine.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`client_credentials answered ${response.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

export async function apiRead(context: Context): Promise<Figure[]> {
  const { settings, processes, log } = context;
  const { sqlite: stack } = await context.stacks();
  const access = await token(stack, 'movies:read movies:write');
  const seeded = await fetch(`${stack.api.url}/api/movies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: 1, title: 'Alien' }),
  });
  if (seeded.status !== 201) throw new Error(`seeding the API answered ${seeded.status}: ${await seeded.text()}`);
  const read = await fetch(`${stack.api.url}/api/movies/1`, { headers: { authorization: `Bearer ${access}` } });
  const body = await read.text();
  if (read.status !== 200) throw new Error(`GET /api/movies/1 answered ${read.status}: ${body}`);
  const bare = await processes.fork<{ port: number }>('bare-koa', './baselines/bare-koa.ts', [body]);
  const check = await fetch(`http://127.0.0.1:${bare.message.port}/api/movies/1`);
  if ((await check.text()) !== body) throw new Error('the bare Koa baseline does not answer the same body');
  const headers = { Authorization: `Bearer ${access}`, Accept: 'application/json' };
  const api = { port: stack.api.port, pid: stack.api.child.pid!, cpu: new CpuMeter(stack.engine) };
  const koa = { port: bare.message.port, pid: bare.child.pid!, cpu: new CpuMeter() };
  const result = await compare({
    name: API_READ,
    subject: () => measure(api, settings.seconds, settings.connections, repeat(httpRequest(api.port, 'GET', '/api/movies/1', headers))),
    baseline: () => measure(koa, settings.seconds, settings.connections, repeat(httpRequest(koa.port, 'GET', '/api/movies/1', headers))),
    rounds: settings.rounds,
    onRound: roundLogger(log, 'API read (sqlite)', 'req/s'),
  });
  return [ratioFigure(result, api.cpu, koa.cpu)];
}

let nextId = 1_000_000;

export async function apiWrite(context: Context): Promise<Figure[]> {
  const { sqlite, postgres } = await context.stacks();
  const figures: Figure[] = [];
  for (const stack of [sqlite, postgres]) figures.push(await apiWriteOn(context, stack));
  return figures;
}

async function apiWriteOn(context: Context, stack: EngineStack): Promise<Figure> {
  const { settings, log } = context;
  const access = await token(stack, 'movies:read movies:write');
  const auth = { Authorization: `Bearer ${access}`, Accept: 'application/json' };
  // Each connection creates an item, then deletes it: one operation is the pair.
  const script = (): Script => {
    let pending: number | undefined;
    return {
      next() {
        if (pending === undefined) {
          pending = nextId++;
          return httpRequest(stack.api.port, 'POST', '/api/movies', { ...auth, 'Content-Type': 'application/json' }, JSON.stringify({ id: pending, title: `Movie ${pending}` }));
        }
        const id = pending;
        pending = undefined;
        return httpRequest(stack.api.port, 'DELETE', `/api/movies/${id}`, auth);
      },
    };
  };
  const raw = await rawWriter(stack, settings.seconds, settings.connections);
  const api = { port: stack.api.port, pid: stack.api.child.pid!, cpu: new CpuMeter(stack.engine) };
  try {
    const result = await compare({
      name: apiWriteFigure(stack),
      subject: () => measure(api, settings.seconds, settings.connections, script, 2),
      baseline: raw.measure,
      rounds: settings.infoRounds,
      onRound: roundLogger(log, `API write (${stack.engine})`, 'op/s'),
    });
    return ratioFigure(result, api.cpu);
  } finally {
    await raw.close();
  }
}

/** insert + delete of the same row shape, straight on the API's database, from this process. */
async function rawWriter(stack: EngineStack, seconds: number, connections: number): Promise<{ measure: () => Promise<number>; close: () => Promise<void> }> {
  const durationMs = seconds * 1000;
  const data = (id: number) => JSON.stringify({ title: `Movie ${id}` });
  if (stack.engine === 'sqlite') {
    const db = new DatabaseSync(stack.databaseUrl.api.slice('sqlite:'.length));
    db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
    const insert = db.prepare('insert into api_items (collection, id, data, created_at, updated_at) values (?, ?, ?, ?, ?) on conflict (collection, id) do nothing');
    const remove = db.prepare('delete from api_items where collection = ? and id = ?');
    return {
      measure: async () => {
        const started = performance.now();
        let ops = 0;
        while (performance.now() - started < durationMs) {
          const id = nextId++;
          const now = Date.now();
          if (insert.run('movies', id, data(id), now, now).changes !== 1) throw new Error('raw insert failed');
          if (remove.run('movies', id).changes !== 1) throw new Error('raw delete failed');
          ops++;
          // Yield now and then, as a server would between requests.
          if (ops % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        return ops / ((performance.now() - started) / 1000);
      },
      close: async () => db.close(),
    };
  }
  const pool = new pg.Pool({ connectionString: stack.databaseUrl.api, max: 10 });
  return {
    measure: async () => {
      const started = performance.now();
      let ops = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() - started < durationMs) {
            const id = nextId++;
            const now = Date.now();
            const inserted = await pool.query({ name: 'ins', text: 'insert into api_items (collection, id, data, created_at, updated_at) values ($1, $2, $3, $4, $5) on conflict (collection, id) do nothing', values: ['movies', id, data(id), now, now] });
            const removed = await pool.query({ name: 'del', text: 'delete from api_items where collection = $1 and id = $2', values: ['movies', id] });
            if (inserted.rowCount !== 1 || removed.rowCount !== 1) throw new Error('raw insert/delete failed');
            ops++;
          }
        }),
      );
      return ops / ((performance.now() - started) / 1000);
    },
    close: () => pool.end(),
  };
}
