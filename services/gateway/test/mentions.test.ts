import { describe, expect, it } from 'vitest';
import { mentionedRelays } from '../src/domain/mentions.ts';

const relays = [
  { name: 'build-box', url: 'https://build-box.example.com' },
  { name: 'desk', url: 'https://workstation.lan:7420' },
  { name: 'lab', url: 'http://10.0.0.7:7420' },
  { name: 'localhost', url: 'http://localhost:7420' },
];

describe('mentionedRelays', () => {
  it.each([
    ['its name', 'ask build-box about the deploy', ['build-box']],
    ['its name in any case, with @', 'Ask @Build-Box', ['build-box']],
    ['its host', 'the relay at workstation.lan has it', ['desk']],
    ['its name at the end of a sentence', 'try desk.', ['desk']],
    ['several', 'desk, then build-box', ['build-box', 'desk']],
    ['an IP host only with @', 'see @10.0.0.7 for the logs', ['lab']],
    ['localhost only with @', 'use @localhost', ['localhost']],
  ])('counts %s', (_what, text, expected) => {
    expect(mentionedRelays(text, relays)).toEqual(expected);
  });

  it.each([
    ['a longer word', 'the desktop and build-boxes'],
    ['a name inside a dotted or dashed word', 'my.desk and desk-2 and build-box.old'],
    ['an IP host without @', 'ping 10.0.0.7 first'],
    ['localhost without @', 'it runs on localhost'],
    ['nothing', 'no relays here'],
  ])('does not count %s', (_what, text) => {
    expect(mentionedRelays(text, relays)).toEqual([]);
  });
});
