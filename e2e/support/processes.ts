/**
 * Helpers for tests and benchmarks that run the apps as child processes. Rules: ports are
 * picked by the kernel on loopback; a process is ready when its readiness URL answers 2xx, and a
 * process that exits first, or is not ready within the timeout, fails with its name.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers 2xx; throws if `child` exits first or the timeout passes. */
export async function waitUntilReady(name: string, url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before it was ready (see its log)`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
}

/**
 * Stops a child and resolves once it has exited: `stop` asks it to end (a signal, or closing
 * its IPC channel), and SIGKILL follows after `graceMs`. Resolves at once if it already exited.
 */
export function stopChild(child: ChildProcess, stop: () => void, graceMs = 12_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    stop();
  });
}
