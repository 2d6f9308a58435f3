/** The Uzum Bank Merchant API sources the battery cites (fixtures uzum/protocol.json names them all). */
const DOCS = 'https://developer.uzumbank.uz/en/merchant/';

export const SOURCES = Object.freeze({
  auth: `${DOCS} Authorization (fixtures uzum/examples/auth.json; 10001 per uzum/protocol.json "error_codes")`,
  errors: 'fixtures uzum/protocol.json "error_codes"',
  check: `${DOCS} (fixtures uzum/examples/check.json)`,
  create: 'fixtures uzum/protocol.json "endpoints./create", uzum/examples/create.json',
  confirm: 'fixtures uzum/protocol.json "endpoints./confirm", uzum/examples/confirm.json',
  reverse: 'fixtures uzum/protocol.json "endpoints./reverse", uzum/examples/reverse.json',
  status: `${DOCS} Quick start (status until CONFIRMED or FAILED); fixtures uzum/examples/status.json`,
  ambiguous: 'fixtures uzum/protocol.json "silent_or_ambiguous"',
});
