import { describe, expect, it } from 'vitest';
import { shellWord, stormReplayCommand } from '../../../packages/storm/src/storm-replay.js';

describe('stormReplayCommand', () => {
  it('names the adapter and the start command, quoted for a shell', () => {
    expect(stormReplayCommand(7, 8, { adapter: './storm.adapter.ts', start: 'npm run start:test' })).toBe(
      "npx payonce storm --adapter ./storm.adapter.ts --start 'npm run start:test' --seed 7 --only 8",
    );
    expect(stormReplayCommand(7, 8, { adapter: 'my adapter.ts', start: "PORT=1 node -e 'x'" })).toBe(
      `npx payonce storm --adapter 'my adapter.ts' --start 'PORT=1 node -e '\\''x'\\''' --seed 7 --only 8`,
    );
  });

  it('names --url with the app URL when no start command is known', () => {
    expect(stormReplayCommand(7, 8, { adapter: './storm.adapter.ts', appUrl: 'http://127.0.0.1:3000' })).toBe(
      'npx payonce storm --adapter ./storm.adapter.ts --url http://127.0.0.1:3000 --seed 7 --only 8',
    );
  });

  it('without a target says which flags to fill in', () => {
    expect(stormReplayCommand(7, 8)).toBe(
      'npx payonce storm --adapter FILE --start CMD --seed 7 --only 8 (FILE: your adapter file; CMD: the command ' +
        "that starts your app, or --url URL instead when the adapter starts it; describeStorm's replay option fills " +
        'them in)',
    );
  });

  it('leaves a plain word as it is', () => {
    expect(shellWord('http://127.0.0.1:3000/a_b-c.d')).toBe('http://127.0.0.1:3000/a_b-c.d');
    expect(shellWord('')).toBe("''");
  });
});
