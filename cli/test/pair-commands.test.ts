import { describe, expect, it } from 'vitest';
import { formatPairing, formatPairingsTable } from '../src/commands/pairings.ts';
import { parseCommand } from '../src/parse-command.ts';

describe('relay pair, pairs and unpair', () => {
  it('parses each form', () => {
    expect(parseCommand(['pair', '--code'])).toEqual({ kind: 'pairing-code', json: false });
    expect(parseCommand(['pair', 'https://build-box.example.com', 'ABCD-EFGH-JKMN', '--json'])).toEqual({
      kind: 'pair',
      url: 'https://build-box.example.com',
      code: 'ABCD-EFGH-JKMN',
      json: true,
    });
    expect(parseCommand(['pairs'])).toEqual({ kind: 'pairs', json: false });
    expect(parseCommand(['pairs', 'build-box', '--level', 'read', '--accept-prompts', 'off'])).toEqual({
      kind: 'pairs',
      level: { name: 'build-box', level: 'read' },
      acceptPrompts: false,
      json: false,
    });
    expect(parseCommand(['unpair', 'build-box'])).toEqual({ kind: 'unpair', name: 'build-box', json: false });
  });

  it.each([
    [['pair'], 'relay pair needs'],
    [['pair', 'https://x.example.com'], 'relay pair needs'],
    [['pair', 'https://x.example.com', '--code'], 'takes no URL'],
    [['pairs', 'build-box'], 'give both'],
    [['pairs', 'build-box', '--level', 'admin'], '--level must be one of'],
    [['unpair'], 'needs the paired relay'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseCommand(argv)).toThrow(message);
  });

  it('shows a pairing on one line', () => {
    expect(formatPairing({ name: 'build-box', url: 'https://build-box.example.com', level: 'full', online: true, version: '0.9.19' })).toBe(
      'build-box  https://build-box.example.com  agents may: full  online  0.9.19',
    );
  });

  it('lists the paired relays as an aligned table', () => {
    const text = formatPairingsTable([
      { name: 'build-box', url: 'https://build-box.example.com', level: 'full', online: true, version: '0.9.19' },
      { name: 'nas', url: 'https://nas.example.com', level: 'read', online: false, version: '' },
    ]);
    expect(text.split('\n')).toEqual([
      'NAME       URL                            AGENTS MAY  STATE    VERSION',
      'build-box  https://build-box.example.com  full        online   0.9.19',
      'nas        https://nas.example.com        read        offline  -',
    ]);
  });
});
