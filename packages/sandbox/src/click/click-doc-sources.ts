/** Click's SHOP API documentation pages the battery cites (fixtures click/*.json name the same pages). */
export const SOURCES = Object.freeze({
  request: 'https://docs.click.uz/en/click-api-request/ (fixtures click/protocol.json)',
  errors: 'https://docs.click.uz/en/click-api-error/ (fixtures click/protocol.json "errors_returned_by_supplier")',
  sign: 'https://docs.click.uz/en/click-api-request/ sign_string (fixtures click/signature/*.json)',
  order: 'fixtures click/protocol.json "official_lib_check_order" (click-llc/click-integration-php, -django)',
  testing: "https://docs.click.uz/en/click-api-testing/ (Click's test scenarios)",
});
