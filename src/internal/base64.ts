/**
 * Standard base64 (RFC 4648 §4) with its `=` padding: what `format: byte` means, and what a Basic
 * credential must be. One pattern for the validator, the faker and the security check.
 */
export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
