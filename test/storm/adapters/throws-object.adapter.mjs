// An adapter file whose factory throws something that is not an Error, as some configuration loaders do: the
// storm must print what was thrown, not `[object Object]`.
export default function adapter() {
  throw { code: 'E_SHOP_CONFIG', detail: 'SHOP_DATABASE_URL is not set' };
}
