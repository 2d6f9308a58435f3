// A stand-in for `payonce serve` in the supervisor tests: listens on `--port`, answers GET /healthz with its pid,
// exits 0 on SIGTERM. FAKE_SERVICE_MODE=fail prints an error and exits 1 at once; =silent never listens;
// =fail-after-first fails every start after the first one (a marker file in FAKE_SERVICE_STATE remembers it).
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const mode = process.env.FAKE_SERVICE_MODE ?? 'ok';
const state = process.env.FAKE_SERVICE_STATE;

if (mode === 'fail' || (mode === 'fail-after-first' && state !== undefined && existsSync(state))) {
  process.stderr.write('fake service: cannot open the database (placeholder failure)\n');
  process.exit(1);
}
if (mode === 'fail-after-first' && state !== undefined) writeFileSync(state, 'started');
if (mode === 'silent') {
  setInterval(() => {}, 1_000);
} else {
  const server = createServer((request, response) => {
    if (request.url === '/healthz') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', pid: process.pid }));
    } else {
      response.writeHead(404).end();
    }
  });
  server.on('error', (error) => {
    process.stderr.write(`fake service: ${error.message}\n`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`fake service listening on ${port}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
