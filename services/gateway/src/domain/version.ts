/** The version this relay speaks as (decisions.md, Versions); paired relays compare features against it. */
export const RELAY_VERSION = '0.9.19';
