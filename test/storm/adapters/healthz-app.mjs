// A stand-in app for `payonce storm --start`: serves GET /healthz on $PORT with the storm's environment it got.
import { createServer } from 'node:http';

const seen = {
  pid: process.pid,
  appUrl: process.env.PAYONCE_STORM_APP_URL,
  sandboxUrl: process.env.PAYONCE_STORM_SANDBOX_URL,
  webhookSecret: process.env.PAYONCE_STORM_WEBHOOK_SECRET,
  apiKey: process.env.PAYONCE_STORM_API_KEY,
  paymeKey: process.env.PAYONCE_STORM_PAYME_KEY,
  clickServiceId: process.env.PAYONCE_STORM_CLICK_SERVICE_ID,
  clickSecretKey: process.env.PAYONCE_STORM_CLICK_SECRET_KEY,
  uzumLogin: process.env.PAYONCE_STORM_UZUM_LOGIN,
  uzumPassword: process.env.PAYONCE_STORM_UZUM_PASSWORD,
  uzumServiceId: process.env.PAYONCE_STORM_UZUM_SERVICE_ID,
};
createServer((req, res) => {
  res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(seen));
}).listen(Number(process.env.PORT), '127.0.0.1');
