import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { appPort } from '../../packages/cli/src/storm-app/app-port.js';

describe('payonce storm --start: the port the app gets', () => {
  it('is free and below every OS ephemeral range (no listen(0) elsewhere can take it while the app boots)', async () => {
    const port = await appPort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThanOrEqual(29_999);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port, exclusive: true }, resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
