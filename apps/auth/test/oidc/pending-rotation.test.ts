import { describe, expect, it } from 'vitest';
import { createPendingRotation } from '../../src/oidc/pending-rotation.ts';

describe('the rotation a request has under way', () => {
  it('holds one consumption per request, taken once, reachable by the request object from outside its context', () => {
    let current: object | undefined = {};
    const request = current;
    const pending = createPendingRotation(() => current);
    expect(pending.active()).toBe(true);
    pending.holdConsumption({ model: 'RefreshToken', id: 'r1', now: 1 });
    current = {};
    expect(pending.takeConsumption()).toBeUndefined();
    current = undefined;
    expect(pending.active()).toBe(false);
    expect(pending.takeConsumption()).toBeUndefined();
    expect(pending.takeConsumption({})).toBeUndefined();
    expect(pending.takeConsumption(request)).toEqual({ model: 'RefreshToken', id: 'r1', now: 1 });
    expect(pending.takeConsumption(request)).toBeUndefined();
  });

  it('holds the wait for the disk of a committed rotation until the request takes it', async () => {
    let current: object | undefined = {};
    const request = current;
    const pending = createPendingRotation(() => current);
    const durable = Promise.resolve();
    pending.holdDurable(durable);
    current = undefined;
    expect(pending.takeDurable()).toBeUndefined();
    expect(pending.takeDurable(request)).toBe(durable);
    expect(pending.takeDurable(request)).toBeUndefined();
  });

  it('outside a request holds nothing', () => {
    const pending = createPendingRotation(() => undefined);
    pending.holdConsumption({ model: 'RefreshToken', id: 'r1', now: 1 });
    expect(pending.active()).toBe(false);
    expect(pending.takeConsumption()).toBeUndefined();
  });
});
