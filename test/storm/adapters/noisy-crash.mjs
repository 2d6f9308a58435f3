// A stand-in `--start` command that fails as an app does when its database refuses it: startup logs, the driver's
// decisive error, then a long dump (stack and fields) after it, and the secrets it was given; exits with status 1.
for (let i = 1; i <= 40; i++) console.log(`boot: loading module ${i} of 40`);
console.log(
  `config: webhook secret ${process.env.PAYONCE_STORM_WEBHOOK_SECRET}, payme key ${process.env.PAYONCE_STORM_PAYME_KEY}`,
);
console.error('error: role "nobody" does not exist');
for (let i = 1; i <= 40; i++)
  console.error(`    at Parser.parseErrorMessage (node_modules/pg-protocol/dist/parser.js:${280 + i}:98)`);
console.error("  severity: 'FATAL',\n  code: '28000',\n  file: 'miscinit.c',\n  routine: 'InitializeSessionUserId'");
process.stderr.write(`the last words, unterminated, with the api key ${process.env.PAYONCE_STORM_API_KEY}`);
process.exitCode = 1;
