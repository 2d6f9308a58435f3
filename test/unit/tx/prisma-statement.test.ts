import { describe, expect, it } from 'vitest';
import { answersRows } from '../../../packages/payonce/src/tx/prisma-statement.js';

describe('answersRows: which Prisma raw call runs a statement', () => {
  it.each<[string, boolean]>([
    ['select * from "payonce_receipts" where "provider" = $1', true],
    ['  SELECT 1', true],
    ['(select 1) union (select 2)', true],
    ['with t as (select 1) select * from t', true],
    ['insert into "payonce_receipts" ("provider") values ($1) on conflict do nothing returning "provider"', true],
    [
      'update "payonce_outbox" set "status" = ? where "id" = (select "id" from "payonce_outbox" limit 1) returning *',
      true,
    ],
    ['insert into "payonce_receipts" ("provider") values ($1) on conflict do nothing', false],
    ['insert into `payonce_receipts` (`provider`) values (?)', false],
    ['update "payonce_receipts" set "status" = $1 where "provider" = $2', false],
    ['delete from payonce_receipts where provider = ?', false],
    // A word inside a literal, a quoted identifier or a comment is not the statement's.
    [`update t set note = 'returning' where id = $1`, false],
    ['update t set "returning" = 1', false],
    ['update t set `returning` = 1', false],
    ['update t set a = 1 -- returning', false],
    ['/* select */ update t set a = 1', false],
    [`update t set note = 'it''s returning' where id = 1`, false],
  ])('%s → %s', (sql, rows) => expect(answersRows(sql)).toBe(rows));
});
