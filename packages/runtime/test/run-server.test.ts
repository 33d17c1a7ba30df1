/**
 * runServer, the one start-up path: the preload step runs before the server module is evaluated;
 * failures the operator fixes are one line and exit 1; the server and /metrics answer on their
 * own listeners; shutdown stops the background work before the module's close, then exits 0;
 * behind a proxy the drain leaves an idle connection open for keepAliveTimeout.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runServer, type RunningServer, type StartedServer } from '../src/index.ts';

class Exit extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

interface Plan {
  events: string[];
  readConfig(env: NodeJS.ProcessEnv): { name: string };
  start(config: { name: string }): Promise<StartedServer>;
}

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });
const answering = (body: string): RequestListener => (_req, res) => res.end(body);
const silent = { info: () => undefined, warn: () => undefined };

let plan: Plan;
let stderr: string[];
let running: RunningServer | undefined;

function started(overrides: Partial<StartedServer> = {}): StartedServer {
  return {
    logger: silent,
    handler: answering('app'),
    listen: { host: '127.0.0.1', port: 0, settings: 'DEMO_HOST/DEMO_PORT' },
    metrics: { host: '127.0.0.1', port: 0, settings: 'DEMO_METRICS_HOST/DEMO_METRICS_PORT', handler: answering('metrics') },
    close: async () => void plan.events.push('closed'),
    ...overrides,
  };
}

async function run(preload?: () => () => void, closeTimeoutMs?: number): Promise<RunningServer> {
  running = await runServer({
    name: 'demo',
    ...(closeTimeoutMs === undefined ? {} : { closeTimeoutMs }),
    ...(preload ? { preload } : {}),
    load: () => {
      plan.events.push('load');
      return import('./fixtures/server-module.ts');
    },
    env: { DEMO: '1' },
    stderr: (text) => void stderr.push(text),
    exit: (code) => {
      throw new Exit(code);
    },
    signals: false,
  });
  return running;
}

/** A port some other listener holds. */
async function taken(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeEach(() => {
  vi.resetModules();
  stderr = [];
  plan = {
    events: [],
    readConfig: (env) => {
      plan.events.push(`config ${env.DEMO}`);
      return { name: 'app-one' };
    },
    start: async () => started(),
  };
  (globalThis as { serverModuleTest?: Plan }).serverModuleTest = plan;
});

afterEach(async () => {
  for (const server of [running?.server, running?.metrics]) {
    if (server?.listening) await new Promise((resolve) => server.close(resolve));
  }
  running = undefined;
});

describe('runServer: preload', () => {
  it('runs the preload step before the server module is evaluated, and what it returned right after', async () => {
    const Real = Intl.ListFormat;
    class Deferred {}
    await run(() => {
      plan.events.push('preload');
      (Intl as { ListFormat: unknown }).ListFormat = Deferred;
      return () => {
        (Intl as { ListFormat: unknown }).ListFormat = Real;
        plan.events.push('restored');
      };
    });
    expect(plan.events).toEqual(['preload', 'load', 'evaluated (Intl.ListFormat is Deferred)', 'restored', 'config 1']);
    expect(Intl.ListFormat).toBe(Real);
  });
});

describe('runServer: failures the operator fixes', () => {
  const outcome = async (closeTimeoutMs?: number): Promise<{ exit: number | undefined; stderr: string }> => {
    const exit = await run(undefined, closeTimeoutMs).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof Exit) return error.code;
        throw error;
      },
    );
    return { exit, stderr: stderr.join('') };
  };

  it('a refused configuration: its report under the process name, exit 1', async () => {
    plan.readConfig = () => {
      throw coded('invalid_config', 'DEMO_PORT must be a port number');
    };
    expect(await outcome()).toEqual({ exit: 1, stderr: 'demo: DEMO_PORT must be a port number\n' });
  });

  it('a database not there in time, a schema behind, a failed migration: one line under the label the configuration gave', async () => {
    for (const code of ['database_unreachable', 'schema_behind', 'migration_failed']) {
      stderr = [];
      plan.start = async () => {
        throw coded(code, `the ${code} sentence`);
      };
      expect(await outcome()).toEqual({ exit: 1, stderr: `app-one: the ${code} sentence\n` });
    }
  });

  it("the module's own failure codes are one line too", async () => {
    plan.start = async () => {
      throw coded('keys_unreadable', 'key k2 is missing from DEMO_KEYS');
    };
    expect(await outcome()).toEqual({ exit: 1, stderr: 'app-one: key k2 is missing from DEMO_KEYS\n' });
  });

  it('any other error is a bug: thrown, nothing printed', async () => {
    const bug = coded('something_else', 'a bug');
    plan.start = async () => {
      throw bug;
    };
    await expect(run()).rejects.toBe(bug);
    expect(stderr).toEqual([]);
  });

  it("the server's port in use: one line naming it and its settings, exit 1", async () => {
    const other = await taken();
    try {
      plan.start = async () => started({ listen: { host: '127.0.0.1', port: other.port, settings: 'DEMO_HOST/DEMO_PORT' } });
      expect(await outcome()).toEqual({ exit: 1, stderr: `app-one: cannot listen on 127.0.0.1:${other.port} (DEMO_HOST/DEMO_PORT): the port is in use by another process\n` });
    } finally {
      other.server.close();
    }
  });

  it("a listener that fails once the module started: the bound /metrics listener closes and the module's close finishes before the exit", async () => {
    const other = await taken();
    const free = await taken();
    await new Promise((resolve) => free.server.close(resolve));
    try {
      plan.start = async () =>
        started({
          listen: { host: '127.0.0.1', port: other.port, settings: 'DEMO_HOST/DEMO_PORT' },
          logger: { info: () => undefined, warn: (fields) => void plan.events.push(`warn ${String(fields.event)}`) },
          metrics: { host: '127.0.0.1', port: free.port, settings: 'DEMO_METRICS_HOST/DEMO_METRICS_PORT', handler: answering('metrics') },
          close: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            plan.events.push('flushed and closed');
          },
        });
      expect(await outcome()).toEqual({ exit: 1, stderr: `app-one: cannot listen on 127.0.0.1:${other.port} (DEMO_HOST/DEMO_PORT): the port is in use by another process\n` });
      expect(plan.events.filter((event) => !event.startsWith('evaluated'))).toEqual(['load', 'config 1', 'flushed and closed']);
      // The /metrics port is free again: its listener was closed.
      const again = createServer();
      await new Promise<void>((resolve, reject) => again.once('error', reject).listen(free.port, '127.0.0.1', resolve));
      await new Promise((resolve) => again.close(resolve));

      // A close that never ends is waited for only as long as the timeout allows, and logged.
      plan.events = [];
      stderr = [];
      plan.start = async () =>
        started({
          listen: { host: '127.0.0.1', port: other.port, settings: 'DEMO_HOST/DEMO_PORT' },
          logger: { info: () => undefined, warn: (fields) => void plan.events.push(`warn ${String(fields.event)}`) },
          close: () => new Promise<void>(() => undefined),
        });
      expect(await outcome(5)).toEqual({ exit: 1, stderr: `app-one: cannot listen on 127.0.0.1:${other.port} (DEMO_HOST/DEMO_PORT): the port is in use by another process\n` });
      expect(plan.events.filter((event) => !event.startsWith('evaluated'))).toEqual(['load', 'config 1', 'warn close_timeout']);
    } finally {
      other.server.close();
    }
  });

  it('the metrics port in use, or an address not on this host: the same, naming the metrics settings', async () => {
    const other = await taken();
    try {
      plan.start = async () => started({ metrics: { host: '127.0.0.1', port: other.port, settings: 'DEMO_METRICS_HOST/DEMO_METRICS_PORT', handler: answering('metrics') } });
      expect(await outcome()).toEqual({ exit: 1, stderr: `app-one: cannot listen on 127.0.0.1:${other.port} (DEMO_METRICS_HOST/DEMO_METRICS_PORT): the port is in use by another process\n` });
    } finally {
      other.server.close();
    }
    stderr = [];
    plan.start = async () => started({ listen: { host: '192.0.2.1', port: 4000, settings: 'DEMO_HOST/DEMO_PORT' } });
    expect(await outcome()).toEqual({ exit: 1, stderr: 'app-one: cannot listen on 192.0.2.1:4000 (DEMO_HOST/DEMO_PORT): no network interface has this address\n' });
  });
});

describe('runServer: running and shutdown', () => {
  it('serves the app and /metrics on their own listeners, starts the background work once listening, and on shutdown stops it before closing, then exits 0', async () => {
    plan.start = async () =>
      started({
        listening: (server) => void plan.events.push(`listening ${server.listening}`),
        background: [
          {
            start: () => void plan.events.push('feed started'),
            stop: async () => void plan.events.push('feed stopped'),
          },
        ],
        closeStreams: () => void plan.events.push('streams closed'),
      });
    const { server, metrics, shutdown } = await run();
    expect(plan.events).toEqual(['load', 'evaluated (Intl.ListFormat is ListFormat)', 'config 1', 'listening true', 'feed started']);
    expect(portOf(server)).not.toBe(portOf(metrics));
    expect(await (await fetch(`http://127.0.0.1:${portOf(server)}/`)).text()).toBe('app');
    expect(await (await fetch(`http://127.0.0.1:${portOf(metrics)}/metrics`)).text()).toBe('metrics');

    await expect(shutdown('SIGTERM')).rejects.toEqual(new Exit(0));
    expect(plan.events.slice(5)).toEqual(['streams closed', 'feed stopped', 'closed']);
    expect([server.listening, metrics.listening]).toEqual([false, false]);
  });

  it("behind a proxy, a draining server closes an idle kept-alive connection only after its keepAliveTimeout, not after the drain's 1 s", async () => {
    // The proxy's own idle timeout is below keepAliveTimeout, so it closes first and never sends
    // a request on a connection that is closing under it.
    plan.start = async () => started({ behindProxy: true, listening: (server) => void (server.keepAliveTimeout = 1_600) });
    const { server, shutdown } = await run();
    const socket = connect(portOf(server), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    let closedAt: number | undefined;
    const closed = new Promise<void>((resolve) => socket.on('close', () => ((closedAt = Date.now()), resolve())));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    await vi.waitFor(() => expect(received).toMatch(/\r\n\r\napp$/));
    const idleFrom = Date.now();

    const done = shutdown('SIGTERM').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 1_250));
    expect(closedAt).toBeUndefined();
    await closed;
    expect(closedAt! - idleFrom).toBeGreaterThanOrEqual(1_550);
    expect(await done).toEqual(new Exit(0));
  });
});
