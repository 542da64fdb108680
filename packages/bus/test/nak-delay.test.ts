import { expect, it } from 'vitest';
import { nakDelayMs } from '@relay/bus';

it('backs off 1 s, 2 s, 4 s … after each failed delivery, capped at 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 20].map(nakDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});
