import { describe, expect, it } from 'vitest';
import { assignPorts, sparePortsNeeded, type PortRequest } from '../src/assign-ports.ts';
import { CliError } from '../src/cli-error.ts';

const requests: PortRequest[] = [
  { name: 'gateway', preferred: 7420, strict: false },
  { name: 'session', preferred: 50051, strict: false },
  { name: 'nats', preferred: 4222, strict: false },
];

describe('assignPorts', () => {
  it('gives every request its preferred port when all are free', () => {
    expect(Object.fromEntries(assignPorts(requests, new Set(), []))).toEqual({ gateway: 7420, session: 50051, nats: 4222 });
  });

  it('moves busy ports to spare ones, in order', () => {
    const busy = new Set([4222, 50051]);
    expect(sparePortsNeeded(requests, busy)).toBe(2);
    expect(Object.fromEntries(assignPorts(requests, busy, [40001, 40002]))).toEqual({ gateway: 7420, session: 40001, nats: 40002 });
  });

  it('never hands out a spare port that another request prefers, or one port twice', () => {
    const twice: PortRequest[] = [
      { name: 'a', preferred: 5000, strict: false },
      { name: 'b', preferred: 5000, strict: false },
      { name: 'c', preferred: 6000, strict: false },
    ];
    expect(sparePortsNeeded(twice, new Set())).toBe(1);
    expect(Object.fromEntries(assignPorts(twice, new Set(), [6000, 7000]))).toEqual({ a: 5000, b: 7000, c: 6000 });
  });

  it('refuses a busy port the user asked for', () => {
    const strict: PortRequest[] = [{ name: 'gateway', preferred: 8080, strict: true, source: 'RELAY_PORT' }];
    expect(() => assignPorts(strict, new Set([8080]), [40001])).toThrow(CliError);
    expect(() => assignPorts(strict, new Set([8080]), [40001])).toThrow(/8080 \(RELAY_PORT\)/);
  });
});
