#!/bin/sh
# Stands in for Prisma's schema engine, which `prisma generate` looks for at start (and would download) but never
# asks for work: the suite generates clients only, and makes its tables with SQL. Any real call fails loudly.
echo "schema-engine-stub: the schema engine is not available here (called with: $*)" >&2
exit 1
