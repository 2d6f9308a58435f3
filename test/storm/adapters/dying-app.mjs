// A stand-in app for `payonce storm --start` that dies mid-run: it serves GET /healthz, takes orders (never paying
// them: the storm's scenarios would wait out their budget) and, 300 ms after its first order, writes a fatal error
// (with the API key it was given, which the storm must redact) and exits with status 7.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const orders = new Map();
let dying = false;
const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
createServer((req, res) => {
  if (req.url === '/healthz') return json(res, 200, { ok: true });
  if (req.method === 'POST' && req.url === '/orders') {
    const orderId = randomUUID();
    orders.set(orderId, { status: 'awaiting_payment', amountMinor: 100, currency: 'EUR' });
    if (!dying) {
      dying = true;
      setTimeout(() => {
        console.error(`payment worker: using api key ${process.env.PAYONCE_STORM_API_KEY}`);
        console.error('FATAL: payment worker crashed: the connection to the database was lost');
        process.exit(7);
      }, 300);
    }
    return json(res, 201, { orderId });
  }
  const order = orders.get(req.url?.split('/')[2] ?? '');
  if (req.method === 'GET' && order !== undefined)
    return json(res, 200, { ...order, paidTransitions: 0, fulfilments: 0 });
  json(res, 404, { error: 'not found' });
}).listen(Number(process.env.PORT), '127.0.0.1');
