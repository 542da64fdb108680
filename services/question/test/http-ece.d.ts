// The few calls of http_ece (web-push's RFC 8188 codec, which ships no types) the notification tests make.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  /** Decrypts an aes128gcm body for the receiver holding `privateKey`, with the subscription's auth secret. */
  export function decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: Buffer | string }): Buffer;
}
