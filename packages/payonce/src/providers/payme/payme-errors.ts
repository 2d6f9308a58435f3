/**
 * The JSON-RPC error codes the Payme engine answers. Values from fixtures payme/errors.json ("general",
 * "merchant"); https://developer.help.paycom.uz/metody-merchant-api/oshibki-errors.
 */
export const PAYME_ERROR_CODES = Object.freeze({
  /** The HTTP method is not POST. */
  notPost: -32300,
  /** The body is not JSON. */
  parse: -32700,
  /** Required RPC fields missing or of the wrong type. */
  invalidRequest: -32600,
  /** Method not found. */
  methodNotFound: -32601,
  /** Insufficient privileges: authorisation failed. */
  insufficientPrivilege: -32504,
  /** System (internal) error: the database failed; Payme repeats the call. */
  system: -32400,
  /** Wrong amount. */
  wrongAmount: -31001,
  /** Transaction not found. */
  transactionNotFound: -31003,
  /** Cannot cancel: the goods or service were delivered. */
  cannotCancel: -31007,
  /** Operation impossible in the transaction's current state. */
  impossible: -31008,
  /** Invalid account input (the first code of the -31050…-31099 range). */
  account: -31050,
});

/** A Payme error message in the three languages Payme shows (`message` of a JSON-RPC error). */
export interface PaymeMessage {
  /** In Russian. */
  readonly ru: string;
  /** In Uzbek (Latin script). */
  readonly uz: string;
  /** In English. */
  readonly en: string;
}

/** A JSON-RPC error as Payme expects it: `{ code, message: { ru, uz, en }, data? }`. */
export interface PaymeRpcError {
  /** One of {@link PAYME_ERROR_CODES}. */
  readonly code: number;
  /** What went wrong, in payonce's wording, in the three languages. */
  readonly message: PaymeMessage;
  /** The account sub-field at fault (-31050…-31099), or the method name (-32601). */
  readonly data?: string;
}

/** payonce's own wording of each error (Payme prescribes the codes, not the texts). */
const MESSAGES: Readonly<Record<number, PaymeMessage>> = Object.freeze({
  [-32300]: { ru: 'Метод запроса не POST', uz: "So'rov usuli POST emas", en: 'Request method is not POST' },
  [-32700]: { ru: 'Ошибка разбора JSON', uz: 'JSON tahlilida xato', en: 'JSON parse error' },
  [-32600]: {
    ru: 'Отсутствуют обязательные поля или неверный тип',
    uz: "Majburiy maydonlar yo'q yoki turi noto'g'ri",
    en: 'Required fields missing or of the wrong type',
  },
  [-32601]: { ru: 'Метод не найден', uz: 'Usul topilmadi', en: 'Method not found' },
  [-32504]: { ru: 'Недостаточно привилегий', uz: 'Huquqlar yetarli emas', en: 'Insufficient privileges' },
  [-32400]: { ru: 'Системная ошибка', uz: 'Tizim xatosi', en: 'System error' },
  [-31001]: { ru: 'Неверная сумма', uz: "Noto'g'ri summa", en: 'Wrong amount' },
  [-31003]: { ru: 'Транзакция не найдена', uz: 'Tranzaksiya topilmadi', en: 'Transaction not found' },
  [-31007]: {
    ru: 'Заказ выполнен, отмена невозможна',
    uz: 'Buyurtma bajarilgan, bekor qilib bo‘lmaydi',
    en: 'Order fulfilled, cannot cancel',
  },
  [-31008]: {
    ru: 'Невозможно выполнить операцию в текущем состоянии транзакции',
    uz: 'Tranzaksiyaning joriy holatida amalni bajarib bo‘lmaydi',
    en: 'Operation impossible in the current transaction state',
  },
  [-31050]: {
    ru: 'Неверные данные счёта (заказ не найден или занят)',
    uz: "Hisob ma'lumotlari noto'g'ri (buyurtma topilmadi yoki band)",
    en: 'Invalid account (order not found or taken)',
  },
});

/** The error object for `code` with payonce's message (and `data` when given). */
export function paymeError(code: number, data?: string): PaymeRpcError {
  const message = MESSAGES[code] ?? (MESSAGES[-31050] as PaymeMessage);
  return Object.freeze(data === undefined ? { code, message } : { code, message, data });
}
