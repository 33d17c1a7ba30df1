import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa, { type Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { createKnownDevices, KNOWN_DEVICE_COOKIE } from '../../src/regulation/known-device.ts';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const DAY = 86_400_000;

/** A real Koa context for one request carrying `cookie`, https through a trusted proxy when asked. */
function context(cookie?: string, https = false): Context {
  const app = new Koa({ proxy: true });
  const req = new IncomingMessage(new Socket());
  req.headers = { ...(cookie ? { cookie } : {}), ...(https ? { 'x-forwarded-proto': 'https' } : {}) };
  return app.createContext(req, new ServerResponse(req));
}

/** The `name=value` pair and attributes of the known-device cookie the response sets. */
function setCookie(ctx: Context): { pair: string; attributes: string[] } {
  const header = ([ctx.response.get('Set-Cookie')].flat() as string[]).find((h) => h.startsWith(`${KNOWN_DEVICE_COOKIE}=`))!;
  const [pair, ...attributes] = header.split('; ');
  return { pair: pair!, attributes: attributes.map((a) => a.toLowerCase()) };
}

function setup(keys = [KEY_A]) {
  const clock = { now: 1_790_000_000_000 };
  const devices = createKnownDevices({ keys, ttl: 30 * 86_400, clock: () => clock.now });
  /** Signs in `accountId` on a browser holding `cookie`; returns the browser's new cookie pair. */
  const signIn = (accountId: string, cookie?: string) => {
    const ctx = context(cookie);
    devices.remember(ctx, accountId);
    return setCookie(ctx).pair;
  };
  return { clock, devices, signIn };
}

describe('known devices', () => {
  it('recognise a browser that signed in, for that account only, until the TTL ends', () => {
    const { clock, devices, signIn } = setup();
    const cookie = signIn('acc-1');
    const id = devices.recognise(context(cookie), 'acc-1');
    expect(id).toMatch(/^[\w-]{22}$/);
    expect(devices.recognise(context(cookie), 'acc-1')).toBe(id);
    expect(devices.recognise(context(cookie), 'acc-2')).toBeUndefined();
    expect(devices.recognise(context(), 'acc-1')).toBeUndefined();
    clock.now += 30 * DAY - 1;
    expect(devices.recognise(context(cookie), 'acc-1')).toBe(id);
    clock.now += 1;
    expect(devices.recognise(context(cookie), 'acc-1')).toBeUndefined();
  });

  it('set an HttpOnly, SameSite=Lax cookie for the whole site, Secure only over https', () => {
    const { clock, devices } = setup();
    const plain = context();
    devices.remember(plain, 'acc-1');
    const { attributes } = setCookie(plain);
    const expires = `expires=${new Date(clock.now + 30 * DAY).toUTCString().toLowerCase()}`;
    expect(attributes.sort()).toEqual([expires, 'httponly', 'path=/', 'samesite=lax']);
    expect(attributes).not.toContain('secure');
    const https = context(undefined, true);
    devices.remember(https, 'acc-1');
    expect(setCookie(https).attributes).toContain('secure');
  });

  it('ignore a forged, tampered or malformed token, and accept one signed by an older key', () => {
    const { devices, signIn } = setup();
    const cookie = signIn('acc-1');
    const [name, value] = cookie.split('=') as [string, string];
    const [deviceId, expiresAt, mac] = value.split('.') as [string, string, string];
    const longer = `${name}=${deviceId}.${Number(expiresAt) + DAY}.${mac}`;
    const otherDevice = `${name}=${'x'.repeat(22)}.${expiresAt}.${mac}`;
    const flipped = `${name}=${deviceId}.${expiresAt}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    for (const forged of [longer, otherDevice, flipped, `${name}=garbage`, `${name}=${value}.extra`, `${name}=`]) {
      expect(devices.recognise(context(forged), 'acc-1')).toBeUndefined();
    }
    // Another deployment's keys do not verify it; a rotation that keeps the old key does.
    expect(setup([KEY_B]).devices.recognise(context(cookie), 'acc-1')).toBeUndefined();
    expect(setup([KEY_B, KEY_A]).devices.recognise(context(cookie), 'acc-1')).toMatch(/^[\w-]{22}$/);
  });

  it('keep the tokens of a few accounts on one browser; a new sign-in replaces the account’s own token', () => {
    const { devices, signIn } = setup();
    let cookie = signIn('acc-1');
    const first = devices.recognise(context(cookie), 'acc-1');
    cookie = signIn('acc-2', cookie);
    expect(devices.recognise(context(cookie), 'acc-1')).toBe(first);
    expect(devices.recognise(context(cookie), 'acc-2')).toMatch(/^[\w-]{22}$/);
    cookie = signIn('acc-1', cookie);
    const renewed = devices.recognise(context(cookie), 'acc-1');
    expect(renewed).toMatch(/^[\w-]{22}$/);
    expect(renewed).not.toBe(first);
    expect(cookie.split('~')).toHaveLength(2);
    for (let i = 3; i <= 7; i++) cookie = signIn(`acc-${i}`, cookie);
    expect(cookie.split('~')).toHaveLength(5);
    expect(devices.recognise(context(cookie), 'acc-7')).toMatch(/^[\w-]{22}$/);
    expect(devices.recognise(context(cookie), 'acc-2')).toBeUndefined();
  });
});
