import { redactSecrets } from './storm-timeline.js';

/** `text` redacted (secrets) and escaped for HTML text. */
function esc(text: string): string {
  return redactSecrets(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The HTML report (`payonce storm --html FILE`) of a storm that could not run or was stopped (the app or the
 * sandbox did not answer, the app exited during the run): one self-contained page (inline CSS, no script, its
 * Content-Security-Policy forbids any resource) saying `failed`, with `code` and `message` (the app's last output
 * lines, when the message holds them, kept as written). Secrets (`whsec_…`, `sk_test_…`, bearer tokens) are redacted.
 */
export function stormHtmlErrorReport(code: string, message: string, title = 'payonce storm'): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(title)}</title>`,
    '<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24}.v-fail{color:#b3261e;font-weight:600}' +
      'pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;white-space:pre-wrap;font-size:12px}</style>',
    '</head><body>',
    `<h1>${esc(title)}: <span class="v-fail">failed</span></h1>`,
    `<p>no scenario verdict: <code>${esc(code)}</code></p>`,
    `<pre>${esc(message)}</pre>`,
    '</body></html>',
    '',
  ].join('\n');
}
